#include "app/battery_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/file.h"
#include "forecast/evaluation.h"
#include "ledger/ledger.h"
#include "ledger/receipt.h"
#include "ledger/writable.h"
#include "narrate/regime_text.h"

namespace preflight::app {
namespace {

Result<std::vector<BatteryTarget>> ChosenTargets(const BatterySpec& spec,
                                                 const std::vector<std::string>& only) {
  std::set<std::string> wanted(only.begin(), only.end());
  std::vector<BatteryTarget> targets;
  for (const BatteryTarget& t : spec.targets) {
    if (!wanted.empty() && !wanted.count(t.name)) continue;
    for (const std::string& path : {t.pool, t.target_select, t.target_eval}) {
      if (!PathExists(path)) {
        return Status::NotFound(spec.path + ": target " + t.name + ": " + path + ": no such file");
      }
    }
    targets.push_back(t);
  }
  if (targets.empty()) return Status::InvalidArgument("no targets to run (check --targets)");
  return targets;
}

trial::TrialConfig TrialFor(const BatteryRequest& r, const BatterySpec& spec,
                            const BatteryTarget& t) {
  trial::TrialConfig c = r.base;
  c.pool = {t.pool};
  c.target_select = t.target_select;
  c.target_eval = t.target_eval;
  c.target_name = spec.name + ":" + t.name + (t.label.empty() ? "" : " (" + t.label + ")");
  c.out_dir = JoinPath(r.out_dir, t.name);
  if (!t.text_field.empty()) c.text_field = t.text_field;
  if (!t.id_field.empty()) c.id_field = t.id_field;
  if (!t.target_text_field.empty()) c.target_text_field = t.target_text_field;
  if (!t.target_id_field.empty()) c.target_id_field = t.target_id_field;
  return c;
}

// The row's forecast and outcome, for EvaluateForecasts.
forecast::BatteryOutcome OutcomeOf(const BatteryRow& row) {
  const TrialJob& job = row.trial;
  const trial::Comparison& cmp = job.outcome.trial.comparisons.front();
  forecast::BatteryOutcome o;
  o.example.name = row.target.name;
  o.example.group = row.target.corpus;
  o.example.forecast_cost = job.forecast->outcome.fraction_of_trial;
  o.example.seeds = job.outcome.config.seeds;
  o.example.scale = {job.outcome.config.model_name, job.outcome.config.steps, 0, 1,
                     job.outcome.regime && job.outcome.regime->informative ? 1 : 0};
  for (auto& [signal, value] : job.forecast->outcome.signals.items()) {
    if (auto x = forecast::SignalFromJson(value)) o.example.signals[signal] = *x;
  }
  if (cmp.saving.caught_up) o.example.net = cmp.saving.net;
  o.forecast = job.forecast->outcome.prediction;
  o.forecast_core_seconds = job.forecast->outcome.core_seconds;
  forecast::TrialCosts costs;
  costs.core_seconds_per_step = job.outcome.core_seconds_per_step;
  for (const trial::MadeArm& arm : job.outcome.data) {
    if (arm.name == "random") costs.selection_random = arm.record.selection_core_seconds;
    if (arm.name == "curated") costs.selection_curated = arm.record.selection_core_seconds;
  }
  costs.t_random = cmp.saving.t_baseline;
  costs.t_curated = cmp.saving.t_arm;
  costs.budget_steps = static_cast<double>(job.outcome.trial.budget_steps);
  forecast::FillCosts(costs, &o);
  return o;
}

Status AppendBatteryReceipt(const BatteryRequest& r, BatteryJob& job) {
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kBattery;
  receipt.inputs = {{"spec", job.spec.path, job.spec.sha256, job.rows.size(), job.spec.bytes}};
  receipt.config = {{"selector", r.base.selector}, {"model", r.base.model_name},
                    {"steps", r.base.steps},       {"seeds", r.base.seeds},
                    {"keep", r.base.keep},         {"targets", job.rows.size()}};
  const nlohmann::json doc = BatteryJson(job);
  std::vector<std::string> receipts;
  for (const BatteryRow& row : job.rows) receipts.push_back(row.trial.receipt_hash);
  receipt.result = {
      {"rows", doc["rows"]}, {"evaluation", job.evaluation}, {"trial_receipts", receipts}};
  receipt.core_seconds = job.core_seconds;
  receipt.flops = job.flops;
  PF_ASSIGN_OR_RETURN(job.receipt_hash, ledger::AppendReceipt(r.ledger_path, receipt));
  return Status::Ok();
}

// The chance that curating pays, as the forecast the trial tested said; null when unknown.
nlohmann::json ForecastProbability(const TrialJob& trial) {
  if (trial.forecast) return trial.forecast->outcome.prediction.probability;
  const nlohmann::json& recorded = trial.recorded_forecast;
  if (recorded.is_object() && recorded.contains("probability")) return recorded["probability"];
  return nullptr;
}

}  // namespace

Result<BatteryJob> RunBatteryJob(const BatteryRequest& r, const TrialObserver& observer) {
  BatteryJob job;
  job.out_dir = r.out_dir;
  PF_ASSIGN_OR_RETURN(job.spec, ReadBatterySpec(r.spec_path));
  PF_ASSIGN_OR_RETURN(std::vector<BatteryTarget> targets, ChosenTargets(job.spec, r.only));
  PF_RETURN_IF_ERROR(ledger::CheckAppendable(r.ledger_path));
  PF_RETURN_IF_ERROR(ledger::CheckWritableFolder(r.out_dir, "--out"));
  PF_RETURN_IF_ERROR(MakeDirectories(r.out_dir));
  std::vector<forecast::BatteryOutcome> outcomes;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (observer.note && IsLeaderProcess()) {
      observer.note(
          fmt::format("battery: target {} of {}: {}", i + 1, targets.size(), targets[i].name));
    }
    TrialRequest request{TrialFor(r, job.spec, targets[i]), r.ledger_path, true, targets[i].corpus};
    auto trial = RunTrialJob(request, observer);
    if (!trial.ok()) {
      return Status::InvalidArgument("target " + targets[i].name + ": " + trial.status().message());
    }
    if (!trial->outcome.leader) {
      job.leader = false;  // an MPI rank other than 0: rank 0 reports
      continue;
    }
    BatteryRow row{targets[i], std::move(trial).value()};
    job.core_seconds += row.trial.outcome.core_seconds + row.trial.forecast->outcome.core_seconds;
    job.flops += row.trial.outcome.flops;
    outcomes.push_back(OutcomeOf(row));
    job.rows.push_back(std::move(row));
  }
  if (!job.leader) return job;
  job.evaluation = forecast::EvaluateForecasts(outcomes);
  PF_RETURN_IF_ERROR(AppendBatteryReceipt(r, job));
  return job;
}

nlohmann::json BatteryJson(const BatteryJob& job) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BatteryRow& row : job.rows) {
    const nlohmann::json s = TrialJson(row.trial);
    nlohmann::json forecast = s["forecast"];
    const nlohmann::json probability = ForecastProbability(row.trial);
    if (forecast.is_object()) forecast["probability"] = probability;
    rows.push_back({{"target", row.target.name},
                    {"forecast", forecast},
                    {"probability", probability},
                    {"absent", row.target.absent},
                    {"compute_saved", s["compute_saved"]},
                    {"caught_up", s["caught_up"]},
                    {"l_star", s["l_star"]},
                    {"t_random", s["t_random"]},
                    {"t_curated", s["t_curated"]},
                    {"regime", s["regime"]},
                    {"report", s["report"]},
                    {"receipt", s["receipt"]}});
  }
  return {{"rows", rows},
          {"evaluation", job.evaluation},
          {"receipt", job.receipt_hash},
          {"cost", {{"core_seconds", job.core_seconds}, {"flops", job.flops}}}};
}

namespace {

std::string Pct(const nlohmann::json& v) {
  return v.is_null() ? "never" : fmt::format("{:.1f}%", 100 * v.get<double>());
}

// The regime column: the margin over the best byte n-gram model and whether it is informative
// ("+0.210 yes", "-0.350 NO"; "-" for a folder from before the check).
std::string RegimeCell(const nlohmann::json& regime) {
  if (!regime.is_object()) return "-";
  return fmt::format("{:+.3f} {}", regime["margin"].get<double>(),
                     regime["informative"].get<bool>() ? "yes" : "NO");
}

}  // namespace

std::string BatteryText(const BatteryJob& job) {
  const nlohmann::json doc = BatteryJson(job);  // kept alive: the loop reads into it
  size_t width = 11;                            // the target column: as wide as the longest name
  for (const nlohmann::json& r : doc["rows"]) {
    width = std::max(width, r["target"].get<std::string>().size());
  }
  std::string out =
      fmt::format("{:<{}} {:<9} {:>7} {:>9} {:>9}  {:<6} {:>9} {:>21}  {:<9}  {}\n", "target",
                  width, "forecast", "p(pays)", "predicted", "net", "right?", "gross",
                  "net 95% interval", "caught up", "regime (margin, informative?)");
  bool uninformative = false;
  for (const nlohmann::json& r : doc["rows"]) {
    uninformative |= r["regime"].is_object() && !r["regime"]["informative"].get<bool>();
    const nlohmann::json& cs = r["compute_saved"];
    const nlohmann::json& f = r["forecast"];
    const std::string right =
        f["correct"].is_null() ? "-" : (f["correct"].get<bool>() ? "right" : "WRONG");
    const std::string p = r["probability"].is_number()
                              ? fmt::format("{:.0f}%", 100 * r["probability"].get<double>())
                              : "-";
    out += fmt::format("{:<{}} {:<9} {:>7} {:>9} {:>9}  {:<6} {:>9} {:>21}  {:<9}  {}\n",
                       r["target"].get<std::string>(), width, f["verdict"].get<std::string>(), p,
                       Pct(f["predicted_saving"]), Pct(cs["net"]), right, Pct(cs["gross"]),
                       Pct(cs["ci95"][0]) + " .. " + Pct(cs["ci95"][1]),
                       r["caught_up"].get<bool>() ? "yes" : "NO", RegimeCell(r["regime"]));
  }
  if (uninformative) {
    out +=
        fmt::format("regime NO: L* did not beat the best byte n-gram model by the threshold: {}.\n",
                    narrate::kUninformativeWarning);
  }
  out += "\n" + forecast::FormatEvaluation(job.evaluation);
  out += fmt::format("\nreceipt {}; reports in {}/<target>/report.html\n",
                     job.receipt_hash.substr(0, 16), job.out_dir);
  return out;
}

}  // namespace preflight::app
