#include "trial/schedule_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace preflight::trial {
namespace {

// The run with its curve and compute columns carried flat to the baseline's eval steps (an
// early-stopped run keeps its last loss and spends nothing more).
MeteredCurve Padded(const ScheduleRun& run, const std::vector<int64_t>& steps) {
  MeteredCurve m = MeteredOf(run);
  while (m.curve.steps.size() < steps.size()) {
    m.curve.steps.push_back(steps[m.curve.steps.size()]);
    m.curve.bpb.push_back(m.curve.bpb.back());
    for (std::vector<double>& column : m.columns) column.push_back(column.back());
  }
  return m;
}

Status ValidateRun(const ScheduleRun& run, const std::string& what,
                   const std::vector<int64_t>& steps, bool baseline) {
  PF_RETURN_IF_ERROR(ValidateCurve(run.curve, what));
  const size_t n = run.curve.steps.size();
  if (run.flops.size() != n || run.core_seconds.size() != n || run.train_seconds.size() != n) {
    return Status::InvalidArgument(what + ": the curve lacks cumulative compute columns");
  }
  if (n > steps.size() ||
      !std::equal(run.curve.steps.begin(), run.curve.steps.end(), steps.begin())) {
    return Status::InvalidArgument(
        what +
        ": evaluated at different steps from the baseline; every run of a trial must "
        "share one eval schedule (an early-stopped run a prefix of it)");
  }
  if (baseline && n != steps.size()) {
    return Status::InvalidArgument(what + ": a baseline run must train the whole budget");
  }
  return Status::Ok();
}

// Every arm's runs, padded to the baseline's eval steps, after checking the inputs.
Result<std::vector<ArmRuns>> PaddedArms(const ScheduleTrialInputs& in) {
  if (in.arms.size() < 2) {
    return Status::InvalidArgument("a schedule trial needs a baseline and at least one schedule");
  }
  if (in.baseline >= in.arms.size()) return Status::InvalidArgument("baseline index out of range");
  if (in.bootstrap.resamples < 1 || !(in.bootstrap.level > 0 && in.bootstrap.level < 1)) {
    return Status::InvalidArgument("bootstrap needs >= 1 resample and a level in (0, 1)");
  }
  if (in.arms[in.baseline].runs.empty()) {
    return Status::InvalidArgument("the baseline arm has no runs");
  }
  const std::vector<int64_t> steps = in.arms[in.baseline].runs[0].curve.steps;
  std::set<std::string> names;
  std::vector<ArmRuns> arms;
  for (size_t a = 0; a < in.arms.size(); ++a) {
    const ScheduleArm& arm = in.arms[a];
    if (arm.spec.name.empty() || !names.insert(arm.spec.name).second) {
      return Status::InvalidArgument(
          fmt::format("arm names must be unique and non-empty ('{}')", arm.spec.name));
    }
    if (arm.runs.empty()) {
      return Status::InvalidArgument(fmt::format("arm '{}' has no runs", arm.spec.name));
    }
    ArmRuns runs{arm.spec.name, {}, {}};
    for (const ScheduleRun& run : arm.runs) {
      const std::string what = fmt::format("arm '{}' seed {}", arm.spec.name, run.seed);
      PF_RETURN_IF_ERROR(ValidateRun(run, what, steps, a == in.baseline));
      runs.runs.push_back(Padded(run, steps));
      runs.seeds.push_back(run.seed);
    }
    arms.push_back(std::move(runs));
  }
  if (in.budget_steps != steps.back()) {
    return Status::InvalidArgument(
        fmt::format("the step budget S = {} is not the baseline's last eval step {}",
                    in.budget_steps, steps.back()));
  }
  return arms;
}

// The arm's final loss minus the baseline's at the arm's total FLOPs.
double LossAtEqualCompute(const MeteredCurve& baseline, const MeteredCurve& arm) {
  const double spent = arm.columns[kFlopsColumn].back();
  return arm.curve.bpb.back() - LossAt(baseline, kFlopsColumn, spent);
}

ScheduleComparison ComparisonOf(const ScheduleArm& base, const ScheduleArm& arm,
                                const ArmComparison& c) {
  ScheduleComparison out;
  out.arm = arm.spec.name;
  out.baseline = base.spec.name;
  out.schedule = arm.spec.schedule;
  out.kind = ScheduleKind(arm.spec.schedule);
  const PairSaving& s = c.mean;
  out.l_star = s.target.l_star;
  out.t_baseline = s.baseline.step;
  out.t_arm = s.arm.step;
  out.caught_up = s.caught_up;
  out.flops_baseline = s.baseline.columns[kFlopsColumn];
  out.flops_arm = s.arm.columns[kFlopsColumn];
  out.core_baseline = s.baseline.columns[kCoreSecondsColumn];
  out.core_arm = s.arm.columns[kCoreSecondsColumn];
  out.wall_baseline = s.baseline.columns[kTrainSecondsColumn];
  out.wall_arm = s.arm.columns[kTrainSecondsColumn];
  out.trigger_flops = c.arm_mean.overhead[kFlopsColumn];
  out.trigger_core_seconds = c.arm_mean.overhead[kCoreSecondsColumn];
  out.trigger_seconds = c.arm_mean.overhead[kTrainSecondsColumn];
  out.gross = s.saved[0];
  out.net = s.saved[1];
  out.net_core_seconds = s.saved[2];
  out.net_wall = s.saved[3];
  out.total_flops_arm = c.arm_mean.columns[kFlopsColumn].back();
  out.total_flops_baseline = c.baseline_mean.columns[kFlopsColumn].back();
  out.loss_at_equal_compute = LossAtEqualCompute(c.baseline_mean, c.arm_mean);
  double frozen_sum = 0;
  for (const ScheduleRun& r : arm.runs) {
    if (r.frozen_at >= 0) {
      ++out.frozen_runs;
      frozen_sum += static_cast<double>(r.frozen_at);
    }
    if (r.stopped_early) ++out.stopped_runs;
  }
  out.frozen_at = out.frozen_runs > 0 ? frozen_sum / out.frozen_runs : -1;
  out.ci = c.ci;
  return out;
}

std::vector<ScheduleSeed> PerSeed(const ArmRuns& base, const ArmRuns& arm,
                                  const ScheduleArm& arm_in, const ArmComparison& c) {
  std::vector<ScheduleSeed> out;
  for (const SeedPair& p : c.per_seed) {
    const ScheduleRun& run = arm_in.runs[p.arm_run];
    out.push_back({p.seed, p.saving.caught_up, p.saving.saved[0], p.saving.saved[1],
                   LossAtEqualCompute(base.runs[p.baseline_run], arm.runs[p.arm_run]),
                   run.frozen_at, run.steps});
  }
  return out;
}

// Is comparison a better than b: by net FLOPs saving; among arms that never reached L*, by the
// loss at equal compute (lower is better).
bool Better(const ScheduleComparison& a, const ScheduleComparison& b) {
  if (a.caught_up != b.caught_up) return a.caught_up;
  if (!a.caught_up) return a.loss_at_equal_compute < b.loss_at_equal_compute;
  return !std::isnan(a.net) && (std::isnan(b.net) || a.net > b.net);
}

// The smallest and largest per-seed loss at equal compute.
std::pair<double, double> LossRange(const ScheduleComparison& c) {
  std::pair<double, double> r{kNever, -kNever};
  for (const ScheduleSeed& p : c.per_seed) {
    r.first = std::min(r.first, p.loss_at_equal_compute);
    r.second = std::max(r.second, p.loss_at_equal_compute);
  }
  return r;
}

std::string Winner(const ScheduleComparison& f, const ScheduleComparison& ad) {
  if (f.caught_up != ad.caught_up) return f.caught_up ? "fixed" : "adaptive";
  if (f.caught_up) return f.net == ad.net ? "tie" : (f.net > ad.net ? "fixed" : "adaptive");
  const auto rf = LossRange(f), ra = LossRange(ad);
  const bool overlap = rf.first <= ra.second && ra.first <= rf.second;
  if (overlap || f.loss_at_equal_compute == ad.loss_at_equal_compute) return "tie";
  return f.loss_at_equal_compute < ad.loss_at_equal_compute ? "fixed" : "adaptive";
}

// The best fixed step beside the best adaptive trigger (text left to narrate/).
ScheduleVerdict Verdict(const std::vector<ScheduleComparison>& comparisons) {
  ScheduleVerdict v;
  for (size_t i = 0; i < comparisons.size(); ++i) {
    const int index = static_cast<int>(i);
    const std::string& kind = comparisons[i].kind;
    if (kind == "fixed") {
      ++v.fixed_count;
      if (v.best_fixed < 0 || Better(comparisons[i], comparisons[v.best_fixed]))
        v.best_fixed = index;
    } else if (kind == "adaptive" &&
               (v.best_adaptive < 0 || Better(comparisons[i], comparisons[v.best_adaptive]))) {
      v.best_adaptive = index;
    }
  }
  if (v.best_fixed >= 0 && v.best_adaptive >= 0) {
    v.winner = Winner(comparisons[v.best_fixed], comparisons[v.best_adaptive]);
  }
  return v;
}

}  // namespace

MeteredCurve MeteredOf(const ScheduleRun& run) {
  return {run.curve,
          {run.flops, run.core_seconds, run.train_seconds},
          {run.trigger_flops, run.trigger_core_seconds, run.trigger_seconds}};
}

std::string ScheduleKind(const std::string& schedule) {
  if (schedule.rfind("earlystop", 0) == 0) return "earlystop";
  if (schedule.find("@adaptive") != std::string::npos) return "adaptive";
  return "fixed";
}

std::vector<Measure> ScheduleTrialMeasures() {
  auto on = [](int column, bool charge, bool measured) {
    Measure m;
    m.column = column;
    m.charge_overhead = charge;
    m.needs_positive_baseline = measured;
    return m;
  };
  return {on(kFlopsColumn, false, false), on(kFlopsColumn, true, false),
          on(kCoreSecondsColumn, true, true), on(kTrainSecondsColumn, true, true)};
}

Result<ScheduleTrialResult> ComputeScheduleTrial(const ScheduleTrialInputs& in) {
  PF_ASSIGN_OR_RETURN(const std::vector<ArmRuns> runs, PaddedArms(in));
  ScheduleTrialResult result;
  result.baseline = in.baseline;
  result.budget_steps = in.budget_steps;
  result.bootstrap = in.bootstrap;
  const ScheduleRun& first = in.arms[in.baseline].runs[0];
  result.flops_per_step =
      first.steps > 0 ? first.flops.back() / static_cast<double>(first.steps) : 0.0;
  for (size_t a = 0; a < in.arms.size(); ++a) {
    result.arms.push_back(in.arms[a].spec);
    const MeteredCurve mean = MeanOfAll(runs[a].runs);
    result.mean_curves.push_back(mean.curve);
    result.mean_flops.push_back(mean.columns[kFlopsColumn]);
  }
  const Target target = FindTarget(result.mean_curves[in.baseline]);
  if (target.t_baseline == 0) {
    return Status::InvalidArgument(fmt::format(
        "the baseline is at its best ({:.4f} bits per byte) at step 0: it never improved, so no "
        "saving can be measured; check the learning rate and the eval data",
        target.l_star));
  }
  const ScheduleArm& base = in.arms[in.baseline];
  for (size_t a = 0; a < in.arms.size(); ++a) {
    if (a == in.baseline) continue;
    PF_ASSIGN_OR_RETURN(ArmComparison c, CompareArms(runs[in.baseline], runs[a],
                                                     ScheduleTrialMeasures(), in.bootstrap));
    ScheduleComparison cmp = ComparisonOf(base, in.arms[a], c);
    cmp.per_seed = PerSeed(runs[in.baseline], runs[a], in.arms[a], c);
    result.comparisons.push_back(std::move(cmp));
  }
  result.verdict = Verdict(result.comparisons);
  return result;
}

TrialResult ScheduleTrialAsTrialResult(const ScheduleTrialResult& r) {
  TrialResult t;
  t.arms = r.arms;
  t.baseline = r.baseline;
  t.mean_curves = r.mean_curves;
  t.budget_steps = r.budget_steps;
  t.bootstrap = r.bootstrap;
  t.flops_per_step = 0;  // steps cost different FLOPs per arm: no single FLOPs axis
  for (const ScheduleComparison& c : r.comparisons) {
    Comparison k;
    k.arm = c.arm;
    k.baseline = c.baseline;
    k.saving = {c.l_star, c.t_baseline, c.t_arm, c.caught_up, c.gross, c.net};
    for (const ScheduleSeed& s : c.per_seed) {
      k.per_seed.push_back({s.seed, {c.l_star, c.t_baseline, kNever, s.caught_up, s.gross, s.net}});
    }
    k.ci = c.ci;
    k.arm_cost_core_seconds = c.trigger_core_seconds;
    k.flops_to_baseline = c.flops_baseline;
    k.flops_to_arm = c.flops_arm;
    t.comparisons.push_back(std::move(k));
  }
  return t;
}

}  // namespace preflight::trial
