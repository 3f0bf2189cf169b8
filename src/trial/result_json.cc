#include "trial/result_json.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "engine/config.h"

namespace preflight::trial {
namespace {

using nlohmann::json;

json Num(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

// compute_saved's keys both kinds of trial share.
json ComputeSaved(double gross, double net, const BootstrapResult& ci, json per_seed) {
  return {{"gross", Num(gross)},
          {"net", Num(net)},
          {"ci95", {Num(ci.net.lo), Num(ci.net.hi)}},
          {"ci95_gross", {Num(ci.gross.lo), Num(ci.gross.hi)}},
          {"per_seed", std::move(per_seed)},
          {"bootstrap",
           {{"resamples", ci.resamples},
            {"never_caught_up", ci.never_caught_up},
            {"undefined", ci.undefined}}}};
}

// The keys of a comparison both kinds of trial share.
json ComparisonCore(const std::string& arm, const std::string& baseline, double l_star,
                    double t_baseline, double t_arm, bool caught_up, json compute_saved) {
  return {{"arm", arm},
          {"baseline", baseline},
          {"l_star", l_star},
          {"t_baseline", t_baseline},
          {"t_arm", Num(t_arm)},
          {"caught_up", caught_up},
          {"compute_saved", std::move(compute_saved)}};
}

// arms[{name, data_kind, schedule, mean_curve{steps, bpb[, flops]}[, keep]}].
json ArmsJson(const std::vector<ArmSpec>& arms, const std::vector<Curve>& mean_curves,
              const std::vector<std::vector<double>>* mean_flops) {
  json out = json::array();
  for (size_t a = 0; a < arms.size(); ++a) {
    json curve = {{"steps", mean_curves[a].steps}, {"bpb", mean_curves[a].bpb}};
    if (mean_flops != nullptr) curve["flops"] = (*mean_flops)[a];
    out.push_back({{"name", arms[a].name},
                   {"data_kind", arms[a].data_kind},
                   {"schedule", arms[a].schedule},
                   {"mean_curve", curve}});
    if (arms[a].keep > 0) out.back()["keep"] = arms[a].keep;  // a keep trial's arms
  }
  return out;
}

// The keys every trial result has.
json ResultCore(const std::vector<ArmSpec>& arms, size_t baseline, int64_t budget_steps,
                double flops_per_step, const BootstrapOptions& bootstrap, json arms_json,
                json comparisons) {
  return {{"arms", std::move(arms_json)},    {"baseline", arms[baseline].name},
          {"budget_steps", budget_steps},    {"flops_per_step", flops_per_step},
          {"bootstrap", bootstrap.ToJson()}, {"comparisons", std::move(comparisons)}};
}

}  // namespace

json SavingToJson(const Saving& s) {
  return {{"l_star", s.l_star},       {"t_baseline", s.t_baseline}, {"t_arm", Num(s.t_arm)},
          {"caught_up", s.caught_up}, {"gross", Num(s.gross)},      {"net", Num(s.net)}};
}

json ComparisonToJson(const Comparison& c, const NetPrices& prices) {
  json per_seed = json::array();
  for (const SeedSaving& p : c.per_seed) {
    json j = SavingToJson(p.saving);
    j["seed"] = p.seed;
    per_seed.push_back(j);
  }
  json out = ComparisonCore(c.arm, c.baseline, c.saving.l_star, c.saving.t_baseline, c.saving.t_arm,
                            c.saving.caught_up,
                            ComputeSaved(c.saving.gross, c.saving.net, c.ci, per_seed));
  out["cost"] = {{"arm_core_seconds", c.arm_cost_core_seconds},
                 {"baseline_core_seconds", c.baseline_cost_core_seconds}};
  if (prices.unit == "USD") {  // a launched trainer's net: the arms' costs in dollars too
    out["cost"]["arm_usd"] = c.arm_cost_core_seconds * prices.core_second;
    out["cost"]["baseline_usd"] = c.baseline_cost_core_seconds * prices.core_second;
  }
  out["flops"] = {{"to_baseline", Num(c.flops_to_baseline)}, {"to_arm", Num(c.flops_to_arm)}};
  return out;
}

json TrialResultToJson(const TrialResult& r) {
  json comparisons = json::array();
  for (const Comparison& c : r.comparisons) comparisons.push_back(ComparisonToJson(c, r.prices));
  json out = ResultCore(r.arms, r.baseline, r.budget_steps, r.flops_per_step, r.bootstrap,
                        ArmsJson(r.arms, r.mean_curves, nullptr), comparisons);
  out["core_seconds_per_step"] = r.core_seconds_per_step;
  if (!r.comparisons.empty()) {
    const json& primary = comparisons[0];
    out["compute_saved"] = primary["compute_saved"];
    out["caught_up"] = primary["caught_up"];
    out["l_star"] = primary["l_star"];
    out["t_random"] = primary["t_baseline"];
    out["t_curated"] = primary["t_arm"];
  }
  return out;
}

json ScheduleComparisonToJson(const ScheduleComparison& c) {
  json per_seed = json::array();
  for (const ScheduleSeed& s : c.per_seed) {
    per_seed.push_back({{"seed", s.seed},
                        {"caught_up", s.caught_up},
                        {"gross", Num(s.gross)},
                        {"net", Num(s.net)},
                        {"loss_at_equal_compute", s.loss_at_equal_compute},
                        {"frozen_at", s.frozen_at},
                        {"steps", s.steps}});
  }
  json saved = ComputeSaved(c.gross, c.net, c.ci, per_seed);
  saved["core_seconds"] = Num(c.net_core_seconds);
  saved["wall"] = Num(c.net_wall);
  saved["axis"] = "cumulative training FLOPs";
  json out = ComparisonCore(c.arm, c.baseline, c.l_star, c.t_baseline, c.t_arm, c.caught_up, saved);
  out["schedule"] = c.schedule;
  out["kind"] = c.kind;
  out["flops"] = {{"to_baseline", Num(c.flops_baseline)},
                  {"to_arm", Num(c.flops_arm)},
                  {"total_baseline", c.total_flops_baseline},
                  {"total_arm", c.total_flops_arm}};
  out["core_seconds"] = {{"to_baseline", Num(c.core_baseline)}, {"to_arm", Num(c.core_arm)}};
  out["train_seconds"] = {{"to_baseline", Num(c.wall_baseline)}, {"to_arm", Num(c.wall_arm)}};
  out["trigger"] = {{"flops", c.trigger_flops},
                    {"core_seconds", c.trigger_core_seconds},
                    {"seconds", c.trigger_seconds}};
  out["loss_at_equal_compute"] = c.loss_at_equal_compute;
  out["frozen_at"] = c.frozen_at < 0 ? json(nullptr) : json(c.frozen_at);
  out["frozen_runs"] = c.frozen_runs;
  out["stopped_runs"] = c.stopped_runs;
  return out;
}

json ScheduleTrialResultToJson(const ScheduleTrialResult& r) {
  json comparisons = json::array();
  for (const auto& c : r.comparisons) comparisons.push_back(ScheduleComparisonToJson(c));
  auto name_of = [&](int i) { return i < 0 ? json(nullptr) : json(r.comparisons[i].arm); };
  json out = ResultCore(r.arms, r.baseline, r.budget_steps, r.flops_per_step, r.bootstrap,
                        ArmsJson(r.arms, r.mean_curves, &r.mean_flops), comparisons);
  out["kind"] = "schedule";
  out["verdict"] = {{"best_fixed", name_of(r.verdict.best_fixed)},
                    {"best_adaptive", name_of(r.verdict.best_adaptive)},
                    {"winner", r.verdict.winner},
                    {"text", r.verdict.text}};
  if (!r.comparisons.empty()) {
    out["compute_saved"] = comparisons[0]["compute_saved"];
    out["caught_up"] = comparisons[0]["caught_up"];
    out["l_star"] = comparisons[0]["l_star"];
    out["t_baseline"] = comparisons[0]["t_baseline"];
    out["t_arm"] = comparisons[0]["t_arm"];
  }
  return out;
}

void AddRegimeAndFolder(const std::optional<Regime>& regime, const std::string& out_dir,
                        json& result) {
  result["regime"] = regime ? RegimeToJson(*regime) : json(nullptr);
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(out_dir, ec);
  result["out_dir"] = ec ? out_dir : absolute.lexically_normal().string();
}

namespace {

json ArmDataJson(const ArmRecord& a) {
  return {{"data_kind", a.data_kind},
          {"kept_docs", a.kept_docs},
          {"kept_bytes", a.kept_bytes},
          {"output_sha256", a.output_sha256},
          {"selection_core_seconds", a.selection_core_seconds}};
}

// arm_data: each data arm's record by name (a schedule trial's one file, "data").
json ArmData(const TrialOutcome& o) {
  json arms = json::object();
  for (const MadeArm& made : o.data) {
    const bool shown = o.schedule ? made.name == "data"
                                  : std::any_of(o.arms.begin(), o.arms.end(), [&](const Arm& a) {
                                      return a.spec.name == made.name;
                                    });
    if (shown) arms[made.name] = ArmDataJson(made.record);
  }
  return arms;
}

json ComputeJson(const TrialOutcome& o) {
  json runs = json::array();
  for (const RunRecord& r : o.runs) {
    json run = {{"run", r.arm + "/seed-" + std::to_string(r.seed)},
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

constexpr char kChargedSeconds[] =
    "f = median over runs of charged seconds / steps (a run's charged seconds: the launch's "
    "measured wall seconds, or run.json's train_seconds when smaller)";

// A launched trainer's runs and how they were charged (doc/trainers.md, "What a launched run
// costs"): compute.core_seconds_per_step then holds f in charged seconds per step, and the net
// is in dollars at its prices.
json TrainerJson(const TrialOutcome& o) {
  json runs = json::array();
  for (const RunRecord& r : o.runs) {
    if (!r.launch) continue;
    const trainer::LaunchFacts& l = *r.launch;
    runs.push_back({{"run", RunKey(r.arm, r.seed)},
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
  json j = o.config.trainer.ToJson();
  const NetPrices& p = o.trial.prices;
  j["step_seconds"] = o.core_seconds_per_step;
  j["runs"] = runs;
  j["net_unit"] = p.unit;
  if (p.unit != "USD") {  // a folder written before prices existed: the rule it was made with
    j["net_rule"] =
        std::string(kChargedSeconds) + "; selection core-seconds charged 1:1 against those seconds";
    j["prices"] = nullptr;
    return j;
  }
  j["net_rule"] = std::string(kChargedSeconds) +
                  ", priced at the device's price per hour (step_usd); the arms' selection and "
                  "forecast core-seconds at the CPU core-hour price (cost.arm_usd, "
                  "cost.baseline_usd); net = 1 - (t_C step_usd + arm_usd) / (t_R step_usd + "
                  "baseline_usd)";
  j["prices"] = LaunchPricesToJson(o.config.prices);
  j["step_usd"] = o.core_seconds_per_step * p.step_second;
  return j;
}

}  // namespace

json OutcomeResultJson(const TrialOutcome& o, const ResultWords& words) {
  json res = o.schedule ? ScheduleTrialResultToJson(*o.schedule) : TrialResultToJson(o.trial);
  res["lab_record"] = words.lab_record;
  res["arm_data"] = ArmData(o);
  AddRegimeAndFolder(o.regime, o.out_dir, res);
  res["compute"] = ComputeJson(o);
  res["model"] = engine::ModelToJson(o.config.model_name, o.config.model);
  res["model"]["params"] = o.params;
  if (!o.schedule) res["forecast"] = words.forecast;
  if (!o.config.trainer.IsBuiltin()) res["trainer"] = TrainerJson(o);
  res["warnings"] = o.warnings;  // what the data shares with the targets (arm_overlap.h)
  return res;
}

json OutcomeSummaryJson(const TrialOutcome& o, const json& r, const std::string& report_path,
                        const std::string& receipt) {
  json doc = {{"compute_saved", r["compute_saved"]},
              {"caught_up", r["caught_up"]},
              {"l_star", r["l_star"]},
              {"regime", r["regime"]},
              {"comparisons", r["comparisons"]},
              {"lab_record", r["lab_record"]},
              {"report", report_path},
              {"receipt", receipt},
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
  doc["warnings"] = r.contains("warnings") ? r["warnings"] : json::array();
  return doc;
}

}  // namespace preflight::trial
