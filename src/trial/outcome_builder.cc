#include "trial/outcome_builder.h"

#include <algorithm>
#include <map>
#include <optional>

#include "corpus/scanner.h"
#include "trial/arm_specs.h"
#include "engine/config.h"

namespace preflight::trial {
namespace {

Curve CurveOf(const RunRecord& run) {
  Curve c;
  for (const RunPoint& p : run.curve) {
    c.steps.push_back(p.step);
    c.bpb.push_back(p.eval_bpb);
  }
  return c;
}

// The runs of every arm, arm by arm, seed by seed.
Result<std::vector<std::vector<RunRecord>>> CollectRuns(const TrialConfig& c,
                                                        const std::vector<ArmSpec>& specs,
                                                        const RunFolder& folder) {
  std::vector<std::vector<RunRecord>> runs(specs.size());
  for (size_t a = 0; a < specs.size(); ++a) {
    for (int seed = 1; seed <= c.seeds; ++seed) {
      auto it = folder.manifest().runs.find(RunKey(specs[a].name, seed));
      if (it == folder.manifest().runs.end()) {
        return Status::InvalidArgument(folder.manifest_path() + ": run " +
                                       RunKey(specs[a].name, seed) + " is missing");
      }
      runs[a].push_back(it->second);
    }
  }
  return runs;
}

// f: measured core-seconds per training step, the median over the trial's runs (robust to a run
// slowed by other work on the machine); periodic evaluations are included: a run stopped at t_R
// would have made them too. A launched run (torch, cmd) is charged its charged seconds instead
// (doc/trainers.md, "What a launched run costs"), priced at the device's price per hour while
// the arms' core-seconds are priced at a CPU core-hour's (NetPricesOf).
double MedianCoreSecondsPerStep(const std::vector<std::vector<RunRecord>>& runs) {
  std::vector<double> per_step;
  for (const auto& arm : runs) {
    for (const RunRecord& r : arm) {
      const double seconds = r.launch ? r.launch->charged_seconds : r.core_seconds;
      per_step.push_back(seconds / static_cast<double>(std::max<int64_t>(1, r.steps)));
    }
  }
  std::sort(per_step.begin(), per_step.end());
  const size_t mid = per_step.size() / 2;
  return per_step.size() % 2 ? per_step[mid] : 0.5 * (per_step[mid - 1] + per_step[mid]);
}

Status ComputeDataTrial(const TrialConfig& c, const RunFolder& folder,
                        const std::vector<std::vector<RunRecord>>& runs, TrialOutcome& out) {
  std::vector<RunCompute> compute;
  std::vector<RunEvalSteps> evals;
  for (const auto& arm : runs) {
    for (const RunRecord& r : arm) {
      const std::string name = r.arm + "/seed-" + std::to_string(r.seed);
      compute.push_back({name, r.flops_per_step, r.steps, r.tokens_per_step});
      evals.push_back({name, {}});
      for (const RunPoint& p : r.curve) evals.back().steps.push_back(p.step);
    }
  }
  PF_RETURN_IF_ERROR(CheckSameEvalSteps(evals));
  PF_RETURN_IF_ERROR(CheckComputeMatched(compute));
  TrialInputs in;
  in.arms = out.arms;
  for (Arm& arm : in.arms) {
    arm.cost_core_seconds = folder.manifest().arms.at(arm.spec.name).selection_core_seconds;
    if (arm.spec.name == "curated") arm.cost_core_seconds += c.forecast_core_seconds;
  }
  in.baseline = 0;  // random
  in.core_seconds_per_step = MedianCoreSecondsPerStep(runs);
  if (!c.trainer.IsBuiltin()) in.prices = NetPricesOf(c.prices);  // the net in dollars
  in.flops_per_step = compute.front().flops_per_step;
  in.budget_steps = c.steps;
  PF_ASSIGN_OR_RETURN(out.trial, ComputeTrial(in));
  out.arms = in.arms;
  out.core_seconds_per_step = in.core_seconds_per_step;
  return Status::Ok();
}

ScheduleRun ScheduleRunOf(const RunRecord& r) {
  ScheduleRun s;
  s.seed = static_cast<uint64_t>(r.seed);
  s.curve = CurveOf(r);
  for (const RunPoint& p : r.curve) {
    s.flops.push_back(p.flops);
    s.core_seconds.push_back(p.core_seconds);
    s.train_seconds.push_back(p.train_seconds);
  }
  s.steps = r.steps;
  s.frozen_at = r.frozen_at;
  s.stopped_early = r.stopped_early;
  s.trigger_flops = r.trigger_flops;
  s.trigger_core_seconds = r.trigger_core_seconds;
  s.trigger_seconds = r.trigger_seconds;
  return s;
}

Status ComputeScheduleTrialNumbers(const TrialConfig& c, const std::vector<ArmSpec>& specs,
                                   const std::vector<std::vector<RunRecord>>& runs,
                                   TrialOutcome& out) {
  std::vector<ScheduleRunCompute> compute;
  ScheduleTrialInputs in;
  for (size_t a = 0; a < specs.size(); ++a) {
    ScheduleArm arm;
    arm.spec = specs[a];
    for (const RunRecord& r : runs[a]) {
      compute.push_back({r.arm + "/seed-" + std::to_string(r.seed), a == 0, r.flops_per_step,
                         r.tokens_per_step, r.steps, r.flops});
      arm.runs.push_back(ScheduleRunOf(r));
    }
    in.arms.push_back(std::move(arm));
  }
  in.baseline = 0;
  in.budget_steps = c.steps;
  PF_RETURN_IF_ERROR(CheckScheduleCompute(compute, c.steps));
  PF_ASSIGN_OR_RETURN(ScheduleTrialResult result, ComputeScheduleTrial(in));
  out.trial = ScheduleTrialAsTrialResult(result);
  out.schedule = std::move(result);
  return Status::Ok();
}

// The regime check from the arms' stored n-gram scores and the baseline arm's L*; nothing when
// an arm has no scores (a folder from before the check).
std::optional<Regime> RegimeOf(const TrialConfig& c, const std::vector<ArmSpec>& specs,
                               const RunFolder& folder, const TrialResult& trial) {
  std::map<std::string, NgramScores> arms;
  for (const ArmSpec& spec : specs) {
    // A schedule trial's arms all train on its one data file.
    auto it = folder.manifest().arms.find(c.IsScheduleTrial() ? "data" : spec.name);
    if (it == folder.manifest().arms.end() || !it->second.ngram) return std::nullopt;
    arms[spec.name] = *it->second.ngram;
  }
  // L* as the comparisons report it (the same for every comparison), else the baseline's best.
  const Curve& baseline = trial.mean_curves.at(trial.baseline);
  const double l_star = trial.comparisons.empty()
                            ? *std::min_element(baseline.bpb.begin(), baseline.bpb.end())
                            : trial.comparisons.front().saving.l_star;
  const std::string& baseline_arm = specs.at(trial.baseline).name;
  const NgramScores scores = arms.at(baseline_arm);
  Regime regime = MakeRegime(scores, std::move(arms), l_star);
  regime.baseline_arm = baseline_arm;
  return regime;
}

}  // namespace

Result<ledger::InputRecord> DescribeInput(const std::string& path, const std::string& role,
                                          const corpus::ReadOptions& read) {
  PF_ASSIGN_OR_RETURN(
      corpus::ScanSummary s,
      corpus::ScanDocuments({path}, read, [](int, const corpus::Record&, std::string_view) {}));
  if (s.docs == 0) return Status::InvalidArgument(path + ": no documents");
  return ledger::InputRecord{role, path, s.inputs[0].sha256, s.docs, s.text_bytes};
}

Result<TrialOutcome> BuildOutcome(const TrialConfig& c, const RunFolder& folder,
                                  const ledger::InputRecord* target_eval) {
  const std::vector<ArmSpec> specs = TrialArmSpecs(c);
  PF_ASSIGN_OR_RETURN(auto runs, CollectRuns(c, specs, folder));
  TrialOutcome out;
  out.config = c;
  out.out_dir = c.out_dir;
  // A launched trainer states what it trained (run.json); the builtin trains the config's model.
  out.params = c.trainer.IsBuiltin() || runs.empty() || runs[0].empty()
                   ? engine::ParamCount(c.model)
                   : runs[0][0].params;
  for (const auto& [name, record] : folder.manifest().arms) {
    out.data.push_back({name, "", record});
    out.core_seconds += record.selection_core_seconds;
  }
  for (size_t a = 0; a < specs.size(); ++a) {
    Arm arm;
    arm.spec = specs[a];
    for (const RunRecord& r : runs[a]) {
      arm.seeds.push_back(static_cast<uint64_t>(r.seed));
      arm.curves.push_back(CurveOf(r));
      out.runs.push_back(r);
      out.core_seconds += r.core_seconds;
      out.flops += c.IsScheduleTrial() ? r.flops : r.flops_per_step * static_cast<double>(r.steps);
    }
    out.arms.push_back(std::move(arm));
  }
  if (c.IsScheduleTrial()) {
    PF_RETURN_IF_ERROR(ComputeScheduleTrialNumbers(c, specs, runs, out));
  } else {
    PF_RETURN_IF_ERROR(ComputeDataTrial(c, folder, runs, out));
  }
  out.regime = RegimeOf(c, specs, folder, out.trial);
  // The selector's arm names the inputs: "curated", a keep trial's first fraction, or "data".
  const std::string source_arm = c.IsScheduleTrial() ? "data" : specs.at(1).name;
  out.inputs = folder.manifest().arms.at(source_arm).inputs;
  if (target_eval) {
    out.inputs.push_back(*target_eval);
  } else {
    PF_ASSIGN_OR_RETURN(ledger::InputRecord eval,
                        DescribeInput(c.target_eval, "target_eval", TargetReadOptions(c)));
    out.inputs.push_back(eval);
  }
  return out;
}

}  // namespace preflight::trial
