#include "app/ladder_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "app/rung_reuse.h"
#include "base/file.h"
#include "base/json.h"
#include "base/number_format.h"
#include "ledger/ledger.h"
#include "ledger/receipt.h"
#include "narrate/keep_text.h"
#include "report/ladder_page.h"
#include "trial/run_folder.h"

namespace preflight::app {
namespace {

using nlohmann::json;

Result<int64_t> ParseSteps(const std::string& text, const std::string& item) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < 1) {
    return Status::InvalidArgument("--rungs: '" + item +
                                   "' needs MODEL:STEPS with STEPS a positive whole number");
  }
  return static_cast<int64_t>(v);
}

// A later rung's folder starts with rung 1's arms: the files (hard links, else copies, with
// their selection manifests) and their records. The n-gram scores are kept only when the
// eval windows are the same (they depend on the context and the window count).
Status ShareArms(const std::string& first_dir, const trial::TrialConfig& config) {
  trial::RunFolder first(first_dir);
  PF_ASSIGN_OR_RETURN(json first_json, ReadJsonFile(first.manifest_path()));
  PF_ASSIGN_OR_RETURN(trial::RunFolderManifest manifest,
                      trial::ManifestFromJson(first_json, first.manifest_path()));
  PF_ASSIGN_OR_RETURN(trial::TrialConfig first_config,
                      trial::TrialConfigFromJson(manifest.config, first.manifest_path()));
  const bool same_windows = first_config.model.context == config.model.context &&
                            first_config.eval_max_windows == config.eval_max_windows;
  trial::RunFolder folder(config.out_dir);
  PF_RETURN_IF_ERROR(folder.Open(config.ToJson()));
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(config.out_dir, "arms")));
  for (auto [name, record] : manifest.arms) {
    for (const std::string suffix : {"", ".manifest.json"}) {
      const std::string from = first.ArmPath(name) + suffix, to = folder.ArmPath(name) + suffix;
      if (!PathExists(from) || PathExists(to)) continue;
      std::error_code ec;
      std::filesystem::create_hard_link(from, to, ec);
      if (ec) {  // another file system: a copy, renamed into place so a kill leaves no half file
        ec.clear();
        std::filesystem::copy_file(from, to + ".tmp",
                                   std::filesystem::copy_options::overwrite_existing, ec);
        if (!ec) std::filesystem::rename(to + ".tmp", to, ec);
      }
      if (ec) return Status::IOError(to + ": cannot share rung 1's arm (" + ec.message() + ")");
    }
    if (!same_windows) record.ngram.reset();
    folder.manifest().arms[name] = record;
  }
  return folder.Save();
}

// A rung finished by an earlier run of this ladder: its trial read back with its receipt.
Result<std::optional<TrialJob>> FinishedRung(const trial::TrialConfig& config) {
  trial::RunFolder folder(config.out_dir);
  if (!PathExists(folder.ResultPath())) return std::optional<TrialJob>();
  PF_RETURN_IF_ERROR(folder.Check(config.ToJson()));
  PF_ASSIGN_OR_RETURN(TrialJob job, LoadTrialJob(config.out_dir));
  if (job.receipt_hash.empty()) return std::optional<TrialJob>();
  return std::optional<TrialJob>(std::move(job));
}

// The rung's point of the saving trend: the comparison `index` (curated against random; in a
// keep ladder the fraction of lowest end loss against the whole pool).
trial::LadderPoint PointOf(const trial::TrialOutcome& o, double flops, size_t index) {
  const trial::Comparison& c = o.trial.comparisons.at(index);
  trial::LadderPoint p;
  p.flops = flops;
  p.caught_up = c.saving.caught_up;
  p.ci_lo = c.ci.net.lo;
  p.ci_hi = c.ci.net.hi;
  p.net = c.saving.caught_up
              ? c.saving.net
              : trial::NeverCaughtUpNetBound(static_cast<double>(o.trial.budget_steps),
                                             c.saving.t_baseline, o.trial.core_seconds_per_step,
                                             c.arm_cost_core_seconds, c.baseline_cost_core_seconds);
  return p;
}

// The compared arm's name: "curated", or a keep ladder's fraction of lowest end loss.
std::string SavingArm(const LadderRungOutcome& r) {
  return r.keep ? r.keep->keeps.at(r.keep->saving_arm).arm : std::string("curated");
}

size_t SavingIndex(const LadderRungOutcome& r) { return r.keep ? r.keep->saving_arm : 0; }

double CuratedBytes(const LadderRungOutcome& r) {
  for (const trial::MadeArm& arm : r.trial.outcome.data) {
    if (arm.name == SavingArm(r)) return static_cast<double>(arm.record.kept_bytes);
  }
  return 0;
}

// `checked`: what the ladder's own check read of rung 1's inputs (null for the other rungs), used
// when rung 1 trains on arms it selects itself, so that its pool is not read a second time.
Result<LadderRungOutcome> RunRung(const LadderRequest& r, size_t i, const TrialObserver& observer,
                                  trial::CheckedInputs* checked) {
  LadderRungOutcome out;
  out.rung = r.rungs[i];
  const trial::TrialConfig config = RungConfig(r, i);
  out.out_dir = config.out_dir;
  out.flops = RungFlops(out.rung);
  PF_ASSIGN_OR_RETURN(std::optional<TrialJob> finished, FinishedRung(config));
  std::string how;
  if (finished) {
    how = "finished earlier: read back";
  } else if (!PathExists(trial::RunFolder(out.out_dir).manifest_path())) {
    if (i > 0) PF_RETURN_IF_ERROR(trial::CheckTrial(config));
    // A finished trial of the same arms (and config) lends them (and its runs): app/rung_reuse.h.
    PF_ASSIGN_OR_RETURN(how, SeedRungFromFinishedTrial(r.out_dir, config));
    if (how.empty() && i > 0) {
      PF_RETURN_IF_ERROR(ShareArms(JoinPath(r.out_dir, RungFolderName(0, r.rungs[0])), config));
      how = "on rung 1's arms";
    }
  }
  if (observer.note) {
    observer.note(fmt::format("ladder: rung {} of {}: {}, {} steps{}", i + 1, r.rungs.size(),
                              out.rung.model_name, out.rung.steps,
                              how.empty() ? "" : " (" + how + ")"));
  }
  if (finished) {
    out.trial = std::move(*finished);
    out.reused = true;
  } else {
    TrialRequest request{config, r.ledger_path, false, ""};
    if (how.empty()) request.checked = checked;  // arms lent by another trial: nothing to reuse
    PF_ASSIGN_OR_RETURN(out.trial, RunTrialJob(request, observer));
  }
  if (config.IsKeepTrial()) {
    PF_ASSIGN_OR_RETURN(KeepRung keep, KeepRungOf(out.trial.outcome));
    out.keep = std::move(keep);
  }
  out.point = PointOf(out.trial.outcome, out.flops, SavingIndex(out));
  return out;
}

json ReceiptConfig(const LadderRequest& r) {
  json config = r.base.ToJson();
  for (const char* key : {"model", "steps", "forecast"}) config.erase(key);
  json rungs = json::array();
  for (const LadderRung& rung : r.rungs) {
    rungs.push_back(
        {{"model", engine::ModelToJson(rung.model_name, rung.model)}, {"steps", rung.steps}});
  }
  config["rungs"] = rungs;
  config["out"] = r.out_dir;
  config["project_to"] = r.project_to ? json(*r.project_to) : json(nullptr);
  config["arms"] = "made once by rung 1 and shared";
  if (r.base.IsKeepTrial()) {
    config["arms"] =
        "made once by rung 1 and shared: the whole pool in random order (keep 1) and the "
        "selector's top fraction for each of keeps";
    config["at_flops"] = r.at_flops ? json(*r.at_flops) : json(nullptr);
  }
  config["forecast"] = "none (every rung's net is charged alike)";
  if (!r.plan.is_null()) config["plan"] = r.plan;
  return config;
}

report::LadderPageKeeps KeepPageRung(const KeepRung& k) {
  report::LadderPageKeeps out;
  out.best_keep = k.best.keep;
  out.best_share = k.best.share;
  auto add = [&](const KeepArmOutcome& a, bool baseline) {
    const double net = baseline ? std::nan("") : (a.caught_up ? a.net : a.net_bound);
    out.arms.push_back({a.keep, a.end_loss, a.end_loss_sd, a.epochs, net, baseline || a.caught_up});
  };
  add(k.baseline, true);
  for (const KeepArmOutcome& a : k.keeps) add(a, false);
  return out;
}

report::LadderPageData PageData(const LadderJob& job, const std::string& title) {
  report::LadderPageData d;
  d.title = title;
  for (const LadderRungOutcome& r : job.rungs) {
    const trial::Comparison& c = r.trial.outcome.trial.comparisons.at(SavingIndex(r));
    const auto& regime = r.trial.outcome.regime;
    d.rungs.push_back({r.rung.model_name, r.rung.steps, r.flops, c.saving.gross, r.point.net,
                       c.ci.net.lo, c.ci.net.hi, r.point.caught_up,
                       regime ? std::optional<bool>(regime->informative) : std::nullopt,
                       r.trial.receipt_hash});
    if (r.keep) d.keeps.push_back(KeepPageRung(*r.keep));
  }
  d.trend = job.trend;
  d.projection = job.projection;
  d.keep_trend = job.keep_trend;
  d.recommendation = job.recommendation;
  return d;
}

// The best fraction's trend and the recommendation, under KEEP.
std::string KeepTrendText(const trial::KeepTrend& t, const trial::KeepRecommendation& rec) {
  std::string out =
      "\nKEEP: the fraction of lowest end-of-budget loss per rung, against log compute\n";
  if (t.fit.fitted) {
    out += fmt::format(
        "  trend: {}: log10(best keep) changes by {:+.3f} per decade of compute (95% {:+.3f} to "
        "{:+.3f}), {} rungs fitted\n",
        t.fit.direction, t.fit.slope_per_decade, t.fit.lo, t.fit.hi, t.fit.rungs_fitted);
  } else {
    out += fmt::format("  trend: unclear ({} rungs to fit)\n", t.fit.rungs_fitted);
  }
  for (const std::string& note : t.notes) out += "  note: " + note + "\n";
  return out + "  " + narrate::RecommendationSentence(rec) + "\n";
}

// "26.3% to 31.9%"; an end that never caught up reads "never".
std::string IntervalText(double lo, double hi) {
  auto end = [](double v) { return std::isfinite(v) ? FormatPercent(v) : std::string("never"); };
  return end(lo) + " to " + end(hi);
}

// A keep ladder's trend of the best fraction and its recommendation at --at-flops (else at the
// largest rung's compute).
void RecommendKeep(const LadderRequest& r, LadderJob& job) {
  std::vector<trial::KeepRungPoint> points;
  for (const LadderRungOutcome& rung : job.rungs) {
    const auto& regime = rung.trial.outcome.regime;
    points.push_back({rung.flops, rung.keep->best.keep, rung.keep->best.log10_sd,
                      regime ? std::optional<bool>(regime->informative) : std::nullopt});
  }
  std::vector<double> grid = r.base.keeps;
  grid.push_back(1);
  job.keep_trend = trial::FitKeepTrend(points, grid);
  job.recommendation =
      trial::RecommendKeep(*job.keep_trend, r.at_flops ? *r.at_flops : job.rungs.back().flops);
}

}  // namespace

Result<std::vector<RungSpec>> ParseRungs(const std::string& text) {
  std::vector<RungSpec> rungs;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0) {
      return Status::InvalidArgument("--rungs: '" + item +
                                     "' is not MODEL:STEPS (e.g. tiny:150,tiny:300,tiny:600)");
    }
    PF_ASSIGN_OR_RETURN(int64_t steps, ParseSteps(item.substr(colon + 1), item));
    rungs.push_back({item.substr(0, colon), steps});
    start = comma + 1;
  }
  return rungs;
}

Result<std::vector<double>> ParseKeeps(const std::string& text) {
  std::vector<double> keeps;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    // As the one-number flag read it (strtold, then double), so one value keeps its bits.
    char* end = nullptr;
    const double v = item.empty() ? 0 : static_cast<double>(std::strtold(item.c_str(), &end));
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(v) ||
        !(v > 0 && v <= 1)) {
      return Status::InvalidArgument("--keep: '" + item +
                                     "' is not a fraction in (0, 1] (e.g. 0.25, or a list "
                                     "0.05,0.1,0.25,0.5)");
    }
    keeps.push_back(v);
    start = comma + 1;
  }
  if (keeps.size() == 1) return keeps;
  std::sort(keeps.begin(), keeps.end());
  for (size_t i = 0; i < keeps.size(); ++i) {
    if (keeps[i] >= 1) {
      return Status::InvalidArgument(
          "--keep: 1 is not a fraction to list: every rung's baseline already trains on the "
          "whole pool");
    }
    if (i > 0 && keeps[i] == keeps[i - 1]) {
      return Status::InvalidArgument(fmt::format("--keep: {} is given twice", keeps[i]));
    }
  }
  return keeps;
}

void SetKeeps(const std::vector<double>& keeps, trial::TrialConfig& base) {
  if (keeps.size() == 1) {
    base.keep = keeps[0];
    base.keeps.clear();
    return;
  }
  base.keeps = keeps;
  base.keep = 1;
}

double RungFlops(const LadderRung& rung) {
  return engine::FlopsPerToken(rung.model) * rung.model.batch * rung.model.context *
         static_cast<double>(rung.steps);
}

Status CheckRungs(const std::vector<LadderRung>& rungs) {
  if (rungs.size() < 3) {
    return Status::InvalidArgument(fmt::format(
        "--rungs: a ladder needs at least 3 rungs to show a trend, got {}", rungs.size()));
  }
  for (size_t i = 1; i < rungs.size(); ++i) {
    if (!(RungFlops(rungs[i]) > RungFlops(rungs[i - 1]))) {
      return Status::InvalidArgument(fmt::format(
          "--rungs: rung {} ({}:{}, {} per run) is not more compute than rung {} ({}:{}, {}); "
          "give the rungs in increasing compute",
          i + 1, rungs[i].model_name, rungs[i].steps, FormatFlops(RungFlops(rungs[i])), i,
          rungs[i - 1].model_name, rungs[i - 1].steps, FormatFlops(RungFlops(rungs[i - 1]))));
    }
  }
  return Status::Ok();
}

trial::TrialConfig RungConfig(const LadderRequest& r, size_t i) {
  trial::TrialConfig config = r.base;
  config.model_name = r.rungs[i].model_name;
  config.model = r.rungs[i].model;
  config.steps = r.rungs[i].steps;
  config.out_dir = JoinPath(r.out_dir, RungFolderName(i, r.rungs[i]));
  return config;
}

std::string RungFolderName(size_t index, const LadderRung& rung) {
  return fmt::format("rung-{}-{}-{}", index + 1, rung.model_name, rung.steps);
}

Result<LadderJob> RunLadderJob(const LadderRequest& r, const TrialObserver& observer) {
  PF_RETURN_IF_ERROR(CheckRungs(r.rungs));
  if (r.out_dir.empty()) return Status::InvalidArgument("--out is required");
  if (r.project_to && !(*r.project_to > 0)) {
    return Status::InvalidArgument("--project-to must be a positive number of FLOPs");
  }
  if (r.at_flops && !(*r.at_flops > 0)) {
    return Status::InvalidArgument("--at-flops must be a positive number of FLOPs");
  }
  if (r.at_flops && !r.base.IsKeepTrial()) {
    return Status::InvalidArgument(
        "--at-flops recommends a fraction to keep: give --keep two or more fractions");
  }
  PF_RETURN_IF_ERROR(ledger::CheckAppendable(r.ledger_path));
  // The inputs and the first rung's folder, inside --out (the same probe), before any write;
  // what it read goes on to rung 1's trial.
  trial::CheckedInputs first;
  PF_RETURN_IF_ERROR(trial::CheckTrial(RungConfig(r, 0), &first, observer.progress));
  PF_RETURN_IF_ERROR(MakeDirectories(r.out_dir));
  LadderJob job;
  std::vector<trial::LadderPoint> points;
  for (size_t i = 0; i < r.rungs.size(); ++i) {
    PF_ASSIGN_OR_RETURN(LadderRungOutcome rung, RunRung(r, i, observer, i == 0 ? &first : nullptr));
    job.core_seconds += rung.trial.outcome.core_seconds;
    job.flops += rung.trial.outcome.flops;
    points.push_back(rung.point);
    job.rungs.push_back(std::move(rung));
  }
  job.trend = trial::FitLadderTrend(points);
  if (r.project_to) {
    job.projection =
        trial::ProjectSaving(job.trend, *r.project_to, CuratedBytes(job.rungs.front()));
  }
  if (r.base.IsKeepTrial()) RecommendKeep(r, job);
  job.page_path = JoinPath(r.out_dir, "ladder.html");
  const std::string title = r.base.target_name.empty()
                                ? r.base.selector + " on " + BaseName(r.base.target_select)
                                : r.base.selector + " on " + r.base.target_name;
  PF_RETURN_IF_ERROR(
      WriteFileAtomically(job.page_path, report::RenderLadderPage(PageData(job, title))));
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kLadder;
  receipt.inputs = job.rungs.front().trial.outcome.inputs;
  receipt.config = ReceiptConfig(r);
  receipt.result = LadderResultJson(job);
  receipt.core_seconds = job.core_seconds;
  receipt.flops = job.flops;
  PF_ASSIGN_OR_RETURN(job.receipt_hash, ledger::AppendReceipt(r.ledger_path, receipt));
  PF_RETURN_IF_ERROR(
      WriteFileAtomically(JoinPath(r.out_dir, "ladder.json"), LadderJson(job).dump(2) + "\n"));
  return job;
}

json LadderResultJson(const LadderJob& job) {
  json rungs = json::array();
  for (const LadderRungOutcome& r : job.rungs) {
    const json result = TrialResultJson(r.trial);
    // The compared arm's comparison (the primary one, unless a keep ladder's).
    const json& saved = result["comparisons"][SavingIndex(r)];
    json rung = {{"model", r.rung.model_name},
                 {"steps", r.rung.steps},
                 {"flops", r.flops},
                 {"params", r.trial.outcome.params},
                 {"compute_saved",
                  {{"gross", saved["compute_saved"]["gross"]},
                   {"net", saved["compute_saved"]["net"]},
                   {"ci95", saved["compute_saved"]["ci95"]}}},
                 {"caught_up", saved["caught_up"]},
                 {"regime", result["regime"]},
                 {"trial_receipt", r.trial.receipt_hash},
                 {"out_dir", r.out_dir},
                 {"reused", r.reused}};
    if (!r.point.caught_up) {
      rung["net_bound"] = std::isfinite(r.point.net) ? json(r.point.net) : json(nullptr);
    }
    if (r.keep) rung.update(KeepRungJson(*r.keep));
    rungs.push_back(rung);
  }
  json doc = {{"rungs", rungs},
              {"trend", trial::LadderTrendToJson(job.trend)},
              {"projection",
               job.projection ? trial::LadderProjectionToJson(*job.projection) : json(nullptr)},
              {"page", job.page_path},
              {"cost", {{"core_seconds", job.core_seconds}, {"flops", job.flops}}}};
  if (job.keep_trend) doc["keep_trend"] = trial::KeepTrendToJson(*job.keep_trend);
  if (job.recommendation) {
    doc["recommendation"] = trial::KeepRecommendationToJson(*job.recommendation);
  }
  return doc;
}

json LadderJson(const LadderJob& job) {
  json doc = LadderResultJson(job);
  doc["receipt"] = job.receipt_hash;
  return doc;
}

std::string LadderText(const LadderJob& job) {
  std::string out =
      job.keep_trend ? "(each rung's row: its fraction of lowest end loss against the whole pool; "
                       "every fraction below it)\n"
                     : "";
  out += fmt::format("{:<4} {:<8} {:>7} {:>12} {:>8} {:>8}  {:<22} {}\n", "rung", "model", "steps",
                     "FLOPs/run", "gross", "net", "net 95% interval", "regime");
  for (size_t i = 0; i < job.rungs.size(); ++i) {
    const LadderRungOutcome& r = job.rungs[i];
    const trial::Comparison& c = r.trial.outcome.trial.comparisons.at(SavingIndex(r));
    const std::string net =
        fmt::format("{}{}", r.point.caught_up ? "" : "<= ", FormatPercent(r.point.net));
    const auto& regime = r.trial.outcome.regime;
    out += fmt::format(
        "{:<4} {:<8} {:>7} {:>12} {:>8} {:>8}  {:<22} {}\n", i + 1, r.rung.model_name, r.rung.steps,
        FormatFlops(r.flops), r.point.caught_up ? FormatPercent(c.saving.gross) : "never", net,
        IntervalText(c.ci.net.lo, c.ci.net.hi),
        !regime ? "not checked" : (regime->informative ? "informative" : "NOT informative"));
    if (r.keep) out += KeepRungText(*r.keep);
  }
  const trial::LadderTrend& t = job.trend;
  if (t.fitted) {
    out += fmt::format(
        "\ntrend: {}: {:+.1f} points of net saving per decade of compute (95% {:+.1f} to "
        "{:+.1f}), {} rungs fitted\n",
        t.direction, 100 * t.slope_per_decade, 100 * t.lo, 100 * t.hi, t.rungs_fitted);
  } else {
    out += fmt::format("\ntrend: unclear ({} rungs with a saving to fit)\n", t.rungs_fitted);
  }
  for (const std::string& note : t.notes) out += fmt::format("  note: {}\n", note);
  if (job.projection) {
    const trial::LadderProjection& p = *job.projection;
    out += fmt::format(
        "\nPROJECTION (not measured) at {} per run: net saving {} (95% {} to {}), assuming {}\n",
        FormatFlops(p.flops), FormatPercent(p.saving), FormatPercent(p.lo), FormatPercent(p.hi),
        p.assumption);
    if (!p.note.empty()) out += fmt::format("  note: {}\n", p.note);
  }
  if (job.keep_trend) out += KeepTrendText(*job.keep_trend, *job.recommendation);
  out += fmt::format("\npage: {}\nreceipt: {}\n", job.page_path, job.receipt_hash);
  return out;
}

}  // namespace preflight::app
