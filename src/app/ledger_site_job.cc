#include "app/ledger_site_job.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <system_error>

#include "app/trial_parts.h"
#include "base/file.h"
#include "base/number_format.h"
#include "base/json.h"
#include "ledger/ledger.h"
#include "ledger/writable.h"

namespace preflight::app {
namespace {

using nlohmann::json;
using report::Bounds;

const json& At(const json& j, std::initializer_list<const char*> path) { return JsonAt(j, path); }

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

std::optional<double> Num(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

std::optional<int64_t> Int(const json& v) {
  if (v.is_number()) return v.get<int64_t>();
  return std::nullopt;
}

std::optional<bool> Bool(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  return std::nullopt;
}

std::optional<Bounds> Pair(const json& v) {
  if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number()) {
    return Bounds{v[0].get<double>(), v[1].get<double>()};
  }
  return std::nullopt;
}

// The target's name as the trial page gives it: --target-name, else the target file's stem.
std::string TargetName(const json& config) {
  std::string name = Str(At(config, {"target_name"}));
  if (!name.empty()) return name;
  const std::string path = Str(At(config, {"target_select"}));
  return path.empty() ? "?" : TargetStem(path);
}

report::SiteForecast ForecastOf(const json& trial,
                                const std::map<std::string, const json*>& by_hash) {
  report::SiteForecast f;
  const json& mark = At(trial, {"result", "forecast"});
  f.hash = Str(At(trial, {"config", "forecast"}));
  if (f.hash.empty()) f.hash = Str(At(mark, {"receipt"}));
  f.verdict = Str(At(mark, {"verdict"}));
  f.correct = Bool(At(mark, {"correct"}));
  f.predicted_saving = Num(At(mark, {"predicted_saving"}));
  f.interval = Pair(At(mark, {"interval"}));
  f.probability = Num(At(mark, {"probability"}));
  // The forecast's own receipt, when the ledger holds it, is the source of its numbers.
  if (auto it = by_hash.find(f.hash); it != by_hash.end()) {
    const json& r = At(*it->second, {"result"});
    if (f.verdict.empty()) f.verdict = Str(At(r, {"verdict"}));
    if (auto v = Num(At(r, {"probability"}))) f.probability = v;
    if (auto v = Num(At(r, {"predicted_saving"}))) f.predicted_saving = v;
    if (auto v = Pair(At(r, {"interval"}))) f.interval = v;
    if (auto v = Num(At(r, {"interval_level"}))) f.interval_level = *v;
  }
  return f;
}

std::string ReportPathOf(const json& result) {
  const std::string dir = Str(At(result, {"out_dir"}));
  if (dir.empty()) return "";
  const std::string path = JoinPath(dir, "report.html");
  return PathExists(path) ? path : "";
}

report::SiteTrial TrialOf(const json& r, const std::map<std::string, const json*>& by_hash) {
  report::SiteTrial t;
  const json& config = At(r, {"config"});
  const json& result = At(r, {"result"});
  t.hash = Str(At(r, {"hash"}));
  t.created_at = Str(At(r, {"created_at"}));
  t.target = TargetName(config);
  t.selector = Str(At(config, {"selector"}));
  if (config.contains("schedules")) t.selector = "schedule";
  t.model = Str(At(result, {"model", "name"}));
  if (t.model.empty()) t.model = Str(At(config, {"model", "name"}));
  t.params = Num(At(result, {"model", "params"})).value_or(0);
  t.steps = Int(At(config, {"steps"})).value_or(0);
  t.caught_up = Bool(At(result, {"caught_up"})).value_or(true);
  const json& saved = At(result, {"compute_saved"});
  t.gross = Num(At(saved, {"gross"}));
  t.net = Num(At(saved, {"net"}));
  t.ci95 = Pair(At(saved, {"ci95"}));
  t.ci95_gross = Pair(At(saved, {"ci95_gross"}));
  t.informative = Bool(At(result, {"regime", "informative"}));
  t.margin = Num(At(result, {"regime", "margin"}));
  t.threshold = Num(At(result, {"regime", "threshold"}));
  t.forecast = ForecastOf(r, by_hash);
  for (const json& in : At(r, {"inputs"})) {
    t.inputs.push_back({Str(At(in, {"role"})), Str(At(in, {"path"})), Str(At(in, {"sha256"})),
                        static_cast<uint64_t>(Int(At(in, {"docs"})).value_or(0)),
                        static_cast<uint64_t>(Int(At(in, {"bytes"})).value_or(0))});
  }
  t.report_path = ReportPathOf(result);
  t.receipt_json = r.dump(2);
  return t;
}

// "net saving 12.0% (95% -3.0% to 20.0%) at 1.00 EFLOP; <assumption>".
std::string ProjectionText(const json& p) {
  std::string s;
  if (auto saving = Num(At(p, {"saving"}))) {
    s = "net saving " + FormatPercent(*saving);
    if (auto interval = Pair(At(p, {"interval"}))) {
      s += " (" + FormatPercent(interval->first) + " to " + FormatPercent(interval->second) + ")";
    }
    if (auto flops = Num(At(p, {"flops"}))) s += " at " + FormatFlops(*flops);
  }
  const std::string assumption = Str(At(p, {"assumption"}));
  if (!assumption.empty()) s += (s.empty() ? "" : "; ") + assumption;
  return s;
}

report::SiteLadder LadderOf(const json& r) {
  report::SiteLadder l;
  const json& result = At(r, {"result"});
  l.hash = Str(At(r, {"hash"}));
  l.created_at = Str(At(r, {"created_at"}));
  l.target = TargetName(At(r, {"config"}));
  for (const json& rung : At(result, {"rungs"})) {
    report::SiteRung s;
    s.model = Str(At(rung, {"model"}));
    s.steps = Int(At(rung, {"steps"})).value_or(0);
    s.flops = Num(At(rung, {"flops"})).value_or(0);
    s.gross = Num(At(rung, {"compute_saved", "gross"}));
    s.net = Num(At(rung, {"compute_saved", "net"}));
    s.ci95 = Pair(At(rung, {"compute_saved", "ci95"}));
    s.caught_up = Bool(At(rung, {"caught_up"})).value_or(true);
    l.rungs.push_back(s);
  }
  l.slope_per_decade = Num(At(result, {"trend", "slope_per_decade"}));
  l.slope_interval = Pair(At(result, {"trend", "interval"}));
  l.direction = Str(At(result, {"trend", "direction"}));
  const json& p = At(result, {"projection"});
  if (p.is_object()) l.projection = ProjectionText(p);
  return l;
}

report::SiteBattery BatteryOf(const json& r) {
  report::SiteBattery b;
  b.hash = Str(At(r, {"hash"}));
  b.created_at = Str(At(r, {"created_at"}));
  b.selector = Str(At(r, {"config", "selector"}));
  b.model = Str(At(r, {"config", "model"}));
  const json& rows = At(r, {"result", "rows"});
  b.targets = rows.is_array() ? static_cast<int64_t>(rows.size())
                              : Int(At(r, {"config", "targets"})).value_or(0);
  const json& all = At(r, {"result", "evaluation", "forecast", "all"});
  b.right = Int(At(all, {"right"}));
  b.wrong = Int(At(all, {"wrong"}));
  b.abstained = Int(At(all, {"abstained"}));
  b.accuracy = Num(At(all, {"accuracy"}));
  const json& value = At(r, {"result", "evaluation", "value"});
  b.saved_vs_always_curate = Num(At(value, {"saved_vs_always_curate"}));
  b.saved_vs_always_random = Num(At(value, {"saved_vs_always_random"}));
  return b;
}

report::SiteTrain TrainOf(const json& r) {
  report::SiteTrain t;
  const json& result = At(r, {"result"});
  t.hash = Str(At(r, {"hash"}));
  t.created_at = Str(At(r, {"created_at"}));
  t.model = Str(At(result, {"model", "name"}));
  t.params = Num(At(result, {"params"})).value_or(0);
  t.tokens = Num(At(result, {"tokens"})).value_or(0);
  t.flops = Num(At(result, {"flops"})).value_or(0);
  t.final_eval_bpb = Num(At(result, {"final_eval_bpb"}));
  return t;
}

// A score receipt (`preflight score`): its result is a trial result with the net nulled when the
// user stated no cost (app/score_job.h).
report::SiteScore ScoreOf(const json& r) {
  report::SiteScore s;
  const json& result = At(r, {"result"});
  const json& saved = At(result, {"compute_saved"});
  s.hash = Str(At(r, {"hash"}));
  s.created_at = Str(At(r, {"created_at"}));
  s.name = Str(At(r, {"config", "name"}));
  const json& per_seed = At(saved, {"per_seed"});
  s.runs_per_arm = per_seed.is_array() ? static_cast<int64_t>(per_seed.size()) : 0;
  s.caught_up = Bool(At(result, {"caught_up"})).value_or(true);
  s.net_stated = Bool(At(result, {"net_stated"})).value_or(false);
  s.gross = Num(At(saved, {"gross"}));
  s.ci95_gross = Pair(At(saved, {"ci95_gross"}));
  if (s.net_stated) {
    s.net = Num(At(saved, {"net"}));
    s.ci95 = Pair(At(saved, {"ci95"}));
  }
  return s;
}

// Writes the site into `dir` (which exists and is empty).
Status WriteSite(const report::SiteData& data, const std::string& dir) {
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(dir, "trials")));
  for (const report::SiteTrial& t : data.trials) {
    PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(dir, report::TrialPagePath(t)),
                                           report::RenderSiteTrialPage(t)));
  }
  return WriteFileAtomically(JoinPath(dir, "index.html"), report::RenderSiteIndex(data));
}

// Renames the built site `tmp` to `out`, replacing a former site (or an empty folder) there.
Status MoveIntoPlace(const std::string& tmp, const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string old;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec) ||
        (!fs::is_empty(out, ec) && !fs::exists(JoinPath(out, "index.html"), ec))) {
      return Status::InvalidArgument(
          out +
          ": exists and is not a site built by `preflight ledger report` (no index.html); "
          "choose another --out or remove it");
    }
    old = out + ".old." + std::to_string(::getpid());
    fs::rename(out, old, ec);
    if (ec) return Status::IOError(out + ": cannot move the former site aside: " + ec.message());
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    if (!old.empty()) fs::rename(old, out, ec);
    return Status::IOError(out + ": cannot rename " + tmp + " into place: " + ec.message());
  }
  if (!old.empty()) fs::remove_all(old, ec);
  return Status::Ok();
}

}  // namespace

report::SiteData SiteDataFromReceipts(const std::vector<json>& receipts,
                                      const std::string& ledger_path) {
  report::SiteData data;
  data.ledger_path = ledger_path;
  data.receipts = static_cast<int64_t>(receipts.size());
  std::map<std::string, const json*> forecasts;
  using ledger::ReceiptKind;
  for (const json& r : receipts) {
    if (ledger::KindOf(r) == ReceiptKind::kForecast) forecasts[Str(At(r, {"hash"}))] = &r;
  }
  for (const json& r : receipts) {
    const std::optional<ReceiptKind> kind = ledger::KindOf(r);
    if (kind == ReceiptKind::kTrial) data.trials.push_back(TrialOf(r, forecasts));
    if (kind == ReceiptKind::kLadder) data.ladders.push_back(LadderOf(r));
    if (kind == ReceiptKind::kBattery) data.batteries.push_back(BatteryOf(r));
    if (kind == ReceiptKind::kTrain) data.trains.push_back(TrainOf(r));
    if (kind == ReceiptKind::kScore) data.scores.push_back(ScoreOf(r));
  }
  return data;
}

Result<LedgerSiteOutcome> BuildLedgerSite(const LedgerSiteRequest& request) {
  const std::string& path = request.ledger_path;
  if (request.out_dir.empty())
    return Status::InvalidArgument("--out: a folder for the site is required");
  std::string out = request.out_dir;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  // The site is built beside --out and renamed into place: that folder must take new files, and
  // --out must not be a link (the rename would replace the link, not fill what it points to).
  if (IsSymbolicLink(out)) {
    return Status::InvalidArgument(out +
                                   ": --out names a symbolic link; the site is renamed into "
                                   "place, which would replace the link itself: give the folder "
                                   "it points to");
  }
  PF_RETURN_IF_ERROR(ledger::CheckWritableFolder(DirName(out), "--out"));
  Result<ledger::VerifyReport> verified = ledger::Verify(path);
  if (!verified.ok()) {
    if (verified.status().kind() == Status::Kind::kNotFound) {
      return Status::NotFound(path +
                              ": no ledger there; give --ledger the file that `trial`, "
                              "`forecast` and the other jobs appended their receipts to");
    }
    return verified.status();
  }
  if (!verified->ok) {
    return Status::Corruption(path + ": line " + std::to_string(verified->first_bad_line) + ": " +
                              verified->reason +
                              "; the ledger fails verification (`preflight ledger verify`), so no "
                              "site is built from it");
  }
  PF_ASSIGN_OR_RETURN(std::vector<json> receipts, ledger::ReadAll(path));
  const report::SiteData data = SiteDataFromReceipts(receipts, path);

  PF_RETURN_IF_ERROR(MakeDirectories(DirName(out)));
  const std::string tmp = out + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  Status written = WriteSite(data, tmp);
  if (written.ok()) written = MoveIntoPlace(tmp, out);
  if (!written.ok()) {
    std::filesystem::remove_all(tmp, ec);
    return written;
  }
  LedgerSiteOutcome outcome;
  outcome.out_dir = out;
  outcome.index_path = JoinPath(out, "index.html");
  outcome.receipts = data.receipts;
  outcome.trials = data.trials.size();
  outcome.ladders = data.ladders.size();
  outcome.batteries = data.batteries.size();
  outcome.trains = data.trains.size();
  outcome.scores = data.scores.size();
  return outcome;
}

}  // namespace preflight::app
