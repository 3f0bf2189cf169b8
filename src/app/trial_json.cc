// A trial job's JSON: the receipt's result (also result.json) and the `--json` document.

#include <filesystem>
#include <system_error>

#include "app/trial_job.h"
#include "app/trial_parts.h"
#include "engine/config.h"
#include "trial/regime.h"
#include "trial/result_json.h"

namespace preflight::app {
namespace {

const trial::ArmRecord* FindArm(const trial::TrialOutcome& o, const std::string& name) {
  for (const trial::MadeArm& arm : o.data) {
    if (arm.name == name) return &arm.record;
  }
  return nullptr;
}

nlohmann::json ArmDataJson(const trial::ArmRecord& a) {
  return {{"data_kind", a.data_kind},
          {"kept_docs", a.kept_docs},
          {"kept_bytes", a.kept_bytes},
          {"output_sha256", a.output_sha256},
          {"selection_core_seconds", a.selection_core_seconds}};
}

nlohmann::json ComputeJson(const trial::TrialOutcome& o) {
  nlohmann::json runs = nlohmann::json::array();
  for (const trial::RunRecord& r : o.runs) {
    nlohmann::json run = {{"run", r.arm + "/seed-" + std::to_string(r.seed)},
                          {"flops_per_step", r.flops_per_step},
                          {"steps", r.steps},
                          {"tokens_per_step", r.tokens_per_step}};
    if (o.schedule) {
      run["flops"] = r.flops;
    } else {
      run["tokens"] = r.steps * r.tokens_per_step;
    }
    runs.push_back(run);
  }
  const double flops_per_step = o.runs.empty() ? 0 : o.runs.front().flops_per_step;
  if (o.schedule) {
    return {{"matched", true},
            {"rule", "same model, data and step budget; a schedule may spend less"},
            {"runs", runs},
            {"flops_per_step", flops_per_step}};
  }
  return {{"matched", true},
          {"runs", runs},
          {"core_seconds_per_step", o.core_seconds_per_step},
          {"flops_per_step", o.trial.flops_per_step}};
}

// A launched trainer's runs and how they were charged (doc/trainers.md, "What a launched run
// costs"): compute.core_seconds_per_step then holds f in charged seconds per step.
nlohmann::json TrainerJson(const trial::TrialOutcome& o) {
  const trainer::TrainerSpec& t = o.config.trainer;
  nlohmann::json runs = nlohmann::json::array();
  for (const trial::RunRecord& r : o.runs) {
    if (!r.launch) continue;
    const trainer::LaunchFacts& l = *r.launch;
    runs.push_back({{"run", trial::RunKey(r.arm, r.seed)},
                    {"charged_seconds", l.charged_seconds},
                    {"charged_source", l.charged_source},
                    {"wall_seconds", l.wall_seconds},
                    {"cpu_seconds", l.cpu_seconds},
                    {"attempts", l.attempts},
                    {"params", r.params},
                    {"params_source", l.params_source},
                    {"flops_per_step", r.flops_per_step},
                    {"flops_source", l.flops_source},
                    {"tokens_per_step", r.tokens_per_step},
                    {"tokens_source", l.tokens_source}});
  }
  nlohmann::json j = t.ToJson();
  j["net_rule"] =
      "f = median over runs of charged seconds / steps (a run's charged seconds: the launch's "
      "measured wall seconds, or run.json's train_seconds when smaller); selection core-seconds "
      "charged 1:1 against those seconds";
  j["step_seconds"] = o.core_seconds_per_step;
  j["runs"] = runs;
  return j;
}

}  // namespace

nlohmann::json ForecastUnderTestJson(const TrialJob& job) {
  if (job.forecast) {
    const forecast::Prediction& p = job.forecast->outcome.prediction;
    const trial::Saving& s = job.outcome.trial.comparisons.front().saving;
    return {{"receipt", job.forecast->receipt_hash},
            {"verdict", p.verdict},
            {"predicted_saving", p.saving},
            {"interval", {p.lo, p.hi}},
            {"strength", p.strength},
            {"signals", job.forecast->outcome.signals},
            {"core_seconds", job.forecast->outcome.core_seconds},
            {"fraction_of_trial", job.forecast->outcome.fraction_of_trial},
            {"correct", ForecastCorrect(p.verdict, s.net, s.caught_up)}};
  }
  if (job.recorded_forecast.is_object() && job.recorded_forecast.contains("verdict")) {
    return job.recorded_forecast;  // a loaded trial: as result.json recorded it
  }
  if (!job.outcome.config.forecast_hash.empty()) {
    return {{"receipt", job.outcome.config.forecast_hash}};  // made by the caller, who marks it
  }
  return nullptr;
}

nlohmann::json TrialResultJson(const TrialJob& job) {
  const trial::TrialOutcome& o = job.outcome;
  nlohmann::json res = o.schedule ? trial::ScheduleTrialResultToJson(*o.schedule)
                                  : trial::TrialResultToJson(o.trial);
  res["lab_record"] = job.lab_record;
  nlohmann::json arms = nlohmann::json::object();
  if (o.schedule) {
    if (const trial::ArmRecord* a = FindArm(o, "data")) arms["data"] = ArmDataJson(*a);
  } else {
    for (const trial::Arm& arm : o.arms) {
      if (const trial::ArmRecord* a = FindArm(o, arm.spec.name)) {
        arms[arm.spec.name] = ArmDataJson(*a);
      }
    }
  }
  res["arm_data"] = arms;
  // null for a folder written before the regime check (cost/pilot_saving.h reads that as
  // "not checked" and draws no dollar interval).
  res["regime"] = o.regime ? trial::RegimeToJson(*o.regime) : nlohmann::json(nullptr);
  res["compute"] = ComputeJson(o);
  res["model"] = engine::ModelToJson(o.config.model_name, o.config.model);
  res["model"]["params"] = o.params;
  if (!o.schedule) res["forecast"] = ForecastUnderTestJson(job);
  if (!o.config.trainer.IsBuiltin()) res["trainer"] = TrainerJson(o);
  // The run folder, absolute, so that `ledger report` can link report.html while it exists.
  std::error_code ec;
  const std::filesystem::path out_dir = std::filesystem::absolute(o.out_dir, ec);
  res["out_dir"] = ec ? o.out_dir : out_dir.lexically_normal().string();
  return res;
}

nlohmann::json TrialJson(const TrialJob& job) {
  const trial::TrialOutcome& o = job.outcome;
  const nlohmann::json r = TrialResultJson(job);
  nlohmann::json doc = {{"compute_saved", r["compute_saved"]},
                        {"caught_up", r["caught_up"]},
                        {"l_star", r["l_star"]},
                        {"regime", r["regime"]},
                        {"comparisons", r["comparisons"]},
                        {"lab_record", r["lab_record"]},
                        {"report", job.report_path},
                        {"receipt", job.receipt_hash},
                        {"reused_runs", o.reused_runs},
                        {"cost", {{"core_seconds", o.core_seconds}, {"flops", o.flops}}}};
  if (o.schedule) {
    doc["kind"] = "schedule";
    doc["t_baseline"] = r["t_baseline"];
    doc["t_arm"] = r["t_arm"];
    doc["verdict"] = r["verdict"];
  } else {
    doc["t_random"] = r["t_random"];
    doc["t_curated"] = r["t_curated"];
    doc["forecast"] = r["forecast"];
  }
  if (r.contains("trainer")) doc["trainer"] = r["trainer"];
  return doc;
}

}  // namespace preflight::app
