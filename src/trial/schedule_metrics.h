#pragma once
// The numbers of a schedule trial (doc/schedules.md): a baseline arm trained plainly and one or
// more schedule arms (freeze, adaptive freeze, early stop) trained on the SAME data with the same
// seeds, model, optimizer and step budget. Unlike a data trial, the arms' steps cost different
// amounts once a schedule freezes part of the model, so the compute axis is the cumulative FLOPs
// (and measured core-seconds and wall seconds) each run records at every eval point, not the step:
// the comparison of comparison.h on those columns.
//
//   L*   = min over eval points of the baseline's mean curve, first reached at step t_R;
//   F_R  = the baseline's mean cumulative FLOPs at t_R;
//   F_C  = the arm's mean cumulative FLOPs where its mean curve first reaches L*, linearly
//          interpolated between the eval points around the crossing (kNever if it never does);
//   gross = 1 - F_C / F_R;  net = 1 - (F_C + trigger FLOPs) / F_R, the trigger being the
//          adaptive schedule's own measurement (0 for fixed schedules);
//   the same on core-seconds and on wall seconds of the training steps (measured, noisy), with the
//   trigger's measured core-seconds and wall seconds charged;
//   loss at equal compute: the arm's final mean loss minus the baseline's mean loss interpolated at
//   the arm's total mean FLOPs (< 0: the schedule is better for what it spent).
// Both arms train on the same data, so its cost is the same for both and is not charged.
// A run that stopped early keeps its last loss and spends nothing more after it stopped (its curve
// is carried flat to S, so that every run shares the baseline's eval steps).
// The JSON is in result_json.h; the verdict's sentence and the lab record in
// narrate/schedule_record.h. Pure functions: deterministic, thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "trial/metrics.h"

namespace preflight::trial {

// The compute columns of a schedule run's MeteredCurve, in this order.
inline constexpr int kFlopsColumn = 0;
inline constexpr int kCoreSecondsColumn = 1;
inline constexpr int kTrainSecondsColumn = 2;

// One training run of a schedule trial, as the runner recorded it.
struct ScheduleRun {
  uint64_t seed = 0;
  Curve curve;  // eval steps and bpb
  // Cumulative training compute at each eval point (same length as curve.steps).
  std::vector<double> flops, core_seconds, train_seconds;
  int64_t steps = 0;       // steps actually trained (< S when stopped early)
  int64_t frozen_at = -1;  // -1: never frozen
  bool stopped_early = false;
  double trigger_flops = 0, trigger_core_seconds = 0, trigger_seconds = 0;
};

// The run as a MeteredCurve: columns FLOPs, core-seconds, wall seconds; the trigger as overhead.
MeteredCurve MeteredOf(const ScheduleRun& run);

struct ScheduleArm {
  ArmSpec spec;  // spec.schedule "" for the baseline
  std::vector<ScheduleRun> runs;
};

struct ScheduleTrialInputs {
  std::vector<ScheduleArm> arms;
  size_t baseline = 0;
  int64_t budget_steps = 0;  // S: the baseline's runs trained exactly S steps
  BootstrapOptions bootstrap = PairedBootstrap();
  static BootstrapOptions PairedBootstrap() {
    BootstrapOptions b;
    b.paired = true;  // same data and seeds in both arms: the pairs are the natural unit
    return b;
  }
};

struct ScheduleSeed {
  uint64_t seed = 0;
  bool caught_up = false;
  double gross = 0, net = 0;  // on FLOPs, as above, for this seed pair
  double loss_at_equal_compute = 0;
  int64_t frozen_at = -1;
  int64_t steps = 0;
};

struct ScheduleComparison {
  std::string arm, baseline, schedule;
  std::string kind;  // "fixed", "adaptive", "earlystop"
  double l_star = 0;
  double t_baseline = 0, t_arm = kNever;  // steps (t_arm interpolated)
  bool caught_up = false;
  double flops_baseline = 0, flops_arm = kNever;  // F_R, F_C
  double core_baseline = 0, core_arm = kNever;    // core-seconds of training to L*
  double wall_baseline = 0, wall_arm = kNever;    // wall seconds of training steps to L*
  double trigger_flops = 0, trigger_core_seconds = 0, trigger_seconds = 0;  // mean per run
  double gross = 0, net = 0;                                                // FLOPs
  double net_core_seconds = 0, net_wall = 0;                                // measured
  double total_flops_arm = 0, total_flops_baseline = 0;  // mean per run, whole budget
  double loss_at_equal_compute = 0;  // arm final - baseline at the arm's total FLOPs
  double frozen_at = -1;             // mean over seeds of the step frozen from (-1: never)
  int frozen_runs = 0, stopped_runs = 0;
  std::vector<ScheduleSeed> per_seed;
  BootstrapResult ci;  // gross and net on FLOPs
};

// The fixed sweep beside the adaptive trigger.
struct ScheduleVerdict {
  int best_fixed = -1;  // index into comparisons of the best fixed freeze by net FLOPs saving
  int best_adaptive = -1;
  int fixed_count = 0;  // fixed freezes tried
  // "fixed", "adaptive", "tie" or "" (not both present). When neither reaches L*, the loss at
  // equal compute decides, and overlapping per-seed ranges of it are a tie.
  std::string winner;
  // One plain sentence: narrate::ScheduleVerdictText(result), which the caller fills in before
  // writing the result ("" from ComputeScheduleTrial).
  std::string text;
};

struct ScheduleTrialResult {
  std::vector<ArmSpec> arms;
  size_t baseline = 0;
  int64_t budget_steps = 0;
  std::vector<Curve> mean_curves;               // per arm, on the baseline's eval steps
  std::vector<std::vector<double>> mean_flops;  // per arm, cumulative at each eval point
  std::vector<ScheduleComparison> comparisons;  // per non-baseline arm, in arm order
  ScheduleVerdict verdict;
  BootstrapOptions bootstrap;
  double flops_per_step = 0;  // a full (unfrozen) step, from the inputs' first run
};

// "fixed", "adaptive" or "earlystop" for a schedule string (engine/schedule.h syntax).
std::string ScheduleKind(const std::string& schedule);

// The schedule trial's four measures on the columns: gross and net FLOPs (trigger charged), net
// core-seconds and net wall seconds (trigger charged; undefined when the baseline spent none).
std::vector<Measure> ScheduleTrialMeasures();

// Everything above but verdict.text. InvalidArgument on malformed inputs: fewer than two arms,
// runs without compute columns, eval steps that differ from the baseline's, a baseline run that
// did not train S steps, a baseline best at step 0.
Result<ScheduleTrialResult> ComputeScheduleTrial(const ScheduleTrialInputs& inputs);

// A TrialResult view for the report (report/trial_report.h): mean curves on the step axis,
// comparisons whose gross/net are the FLOPs savings and whose t_arm is the crossing step.
TrialResult ScheduleTrialAsTrialResult(const ScheduleTrialResult& result);

}  // namespace preflight::trial
