#include "trial/metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace preflight::trial {
namespace {

// Keeps the eval points at or before `budget`.
Curve Truncate(const Curve& curve, int64_t budget) {
  Curve out;
  for (size_t i = 0; i < curve.steps.size() && curve.steps[i] <= budget; ++i) {
    out.steps.push_back(curve.steps[i]);
    out.bpb.push_back(curve.bpb[i]);
  }
  return out;
}

Saving SavingOf(const PairSaving& p) {
  return {p.target.l_star, p.baseline.step, p.arm.step, p.caught_up, p.saved[0], p.saved[1]};
}

// An arm's runs on the step axis (no compute columns); seeds 1..n when the arm names none.
ArmRuns StepRuns(const std::string& name, const std::vector<Curve>& curves,
                 const std::vector<uint64_t>& seeds) {
  ArmRuns runs{name, {}, seeds};
  for (const Curve& c : curves) runs.runs.push_back({c, {}, {}});
  if (runs.seeds.empty()) {
    for (size_t k = 0; k < curves.size(); ++k) runs.seeds.push_back(k + 1);
  }
  return runs;
}

Status ValidateArm(const Arm& arm, const Curve& schedule, std::set<std::string>* names) {
  const std::string& name = arm.spec.name;
  if (name.empty() || !names->insert(name).second) {
    return Status::InvalidArgument(
        fmt::format("arm names must be unique and non-empty ('{}')", name));
  }
  if (arm.curves.empty()) return Status::InvalidArgument(fmt::format("arm '{}' has no runs", name));
  if (!arm.seeds.empty() && arm.seeds.size() != arm.curves.size()) {
    return Status::InvalidArgument(
        fmt::format("arm '{}': {} seeds for {} curves", name, arm.seeds.size(), arm.curves.size()));
  }
  if (!(std::isfinite(arm.cost_core_seconds) && arm.cost_core_seconds >= 0)) {
    return Status::InvalidArgument(fmt::format("arm '{}': cost must be >= 0", name));
  }
  for (size_t k = 0; k < arm.curves.size(); ++k) {
    PF_RETURN_IF_ERROR(ValidateCurve(arm.curves[k], fmt::format("arm '{}' run {}", name, k)));
    if (arm.curves[k].steps != schedule.steps) {
      return Status::InvalidArgument(fmt::format(
          "arm '{}' run {} was evaluated at different steps from the baseline; every run of a "
          "trial must share one eval schedule",
          name, k));
    }
  }
  return Status::Ok();
}

// Checks the inputs and returns the step budget S as used.
Result<int64_t> ValidateInputs(const TrialInputs& in) {
  if (in.arms.size() < 2) {
    return Status::InvalidArgument("a trial needs a baseline arm and at least one other arm");
  }
  if (in.baseline >= in.arms.size()) {
    return Status::InvalidArgument(
        fmt::format("baseline index {} but only {} arms", in.baseline, in.arms.size()));
  }
  if (!(std::isfinite(in.core_seconds_per_step) && in.core_seconds_per_step > 0)) {
    return Status::InvalidArgument(
        "core-seconds per training step must be measured and > 0 to charge selection cost");
  }
  if (!(std::isfinite(in.flops_per_step) && in.flops_per_step >= 0)) {
    return Status::InvalidArgument("FLOPs per step must be a finite number >= 0");
  }
  if (!(std::isfinite(in.prices.step_second) && in.prices.step_second > 0 &&
        std::isfinite(in.prices.core_second) && in.prices.core_second > 0)) {
    return Status::InvalidArgument("the net's prices must be finite numbers > 0");
  }
  if (in.arms[in.baseline].curves.empty()) {
    return Status::InvalidArgument(
        fmt::format("baseline arm '{}' has no runs", in.arms[in.baseline].spec.name));
  }
  const Curve& schedule = in.arms[in.baseline].curves[0];
  std::set<std::string> names;
  for (const Arm& arm : in.arms) PF_RETURN_IF_ERROR(ValidateArm(arm, schedule, &names));
  const int64_t last = schedule.steps.back();
  const int64_t budget = in.budget_steps == 0 ? last : in.budget_steps;
  if (budget < 0 || budget > last) {
    return Status::InvalidArgument(fmt::format(
        "the step budget S = {} lies beyond the last eval step {}: whether the arm catches up "
        "after step {} is unknown; evaluate at step S",
        budget, last, last));
  }
  if (schedule.steps.front() > budget) {
    return Status::InvalidArgument(
        fmt::format("no eval point at or before the step budget S = {}", budget));
  }
  return budget;
}

}  // namespace

std::vector<Measure> DataTrialMeasures(double f, double c_arm, double c_baseline) {
  Measure gross;
  Measure net;
  net.rate = f;
  net.arm_fixed = c_arm;
  net.baseline_fixed = c_baseline;
  return {gross, net};
}

Saving ComputeSaving(const Curve& baseline, const Curve& arm, double f, double c_arm,
                     double c_baseline) {
  return SavingOf(
      ComparePair({baseline, {}, {}}, {arm, {}, {}}, DataTrialMeasures(f, c_arm, c_baseline)));
}

Result<BootstrapResult> BootstrapSaving(const std::vector<Curve>& baseline_runs,
                                        const std::vector<Curve>& arm_runs,
                                        const std::vector<uint64_t>& baseline_seeds,
                                        const std::vector<uint64_t>& arm_seeds,
                                        const std::string& arm_name, double f, double c_arm,
                                        double c_baseline, const BootstrapOptions& options) {
  PF_RETURN_IF_ERROR(MeanCurve(baseline_runs).status());
  PF_RETURN_IF_ERROR(MeanCurve(arm_runs).status());
  if (baseline_runs[0].steps != arm_runs[0].steps) {
    return Status::InvalidArgument("bootstrap: the arms were evaluated at different steps");
  }
  PF_ASSIGN_OR_RETURN(ArmComparison c,
                      CompareArms(StepRuns("baseline", baseline_runs, baseline_seeds),
                                  StepRuns(arm_name, arm_runs, arm_seeds),
                                  DataTrialMeasures(f, c_arm, c_baseline), options));
  return c.ci;
}

Result<TrialResult> ComputeTrial(const TrialInputs& in) {
  PF_ASSIGN_OR_RETURN(const int64_t budget, ValidateInputs(in));
  TrialResult result;
  result.baseline = in.baseline;
  result.budget_steps = budget;
  result.core_seconds_per_step = in.core_seconds_per_step;
  result.prices = in.prices;
  result.flops_per_step = in.flops_per_step;
  result.bootstrap = in.bootstrap;
  std::vector<ArmRuns> runs;
  for (const Arm& arm : in.arms) {
    result.arms.push_back(arm.spec);
    std::vector<Curve> truncated;
    for (const Curve& c : arm.curves) truncated.push_back(Truncate(c, budget));
    PF_ASSIGN_OR_RETURN(Curve mean, MeanCurve(truncated));
    result.mean_curves.push_back(std::move(mean));
    runs.push_back(StepRuns(arm.spec.name, truncated, arm.seeds));
  }
  const Target target = FindTarget(result.mean_curves[in.baseline]);
  if (target.t_baseline == 0) {
    return Status::InvalidArgument(fmt::format(
        "baseline arm '{}' is at its best ({:.4f} bits per byte) at step 0: it never improved "
        "on the untrained model, so no compute saving can be measured; check the learning rate "
        "and the eval data",
        in.arms[in.baseline].spec.name, target.l_star));
  }
  const Arm& base = in.arms[in.baseline];
  for (size_t a = 0; a < in.arms.size(); ++a) {
    if (a == in.baseline) continue;
    const Arm& arm = in.arms[a];
    const NetPrices& p = in.prices;
    PF_ASSIGN_OR_RETURN(ArmComparison c,
                        CompareArms(runs[in.baseline], runs[a],
                                    DataTrialMeasures(in.core_seconds_per_step * p.step_second,
                                                      arm.cost_core_seconds * p.core_second,
                                                      base.cost_core_seconds * p.core_second),
                                    in.bootstrap));
    Comparison cmp;
    cmp.arm = arm.spec.name;
    cmp.baseline = base.spec.name;
    cmp.arm_cost_core_seconds = arm.cost_core_seconds;
    cmp.baseline_cost_core_seconds = base.cost_core_seconds;
    cmp.saving = SavingOf(c.mean);
    cmp.flops_to_baseline = cmp.saving.t_baseline * in.flops_per_step;
    cmp.flops_to_arm = cmp.saving.caught_up ? cmp.saving.t_arm * in.flops_per_step : kNever;
    for (const SeedPair& p : c.per_seed) cmp.per_seed.push_back({p.seed, SavingOf(p.saving)});
    cmp.ci = c.ci;
    result.comparisons.push_back(std::move(cmp));
  }
  return result;
}

}  // namespace preflight::trial
