#pragma once
// A data trial's numbers, exactly as doc/design.md, "The metrics, exactly", defines
// them: mean eval curves, L*, t_R, the interpolated catch-up step t_C, compute saved gross and
// net of the cost of producing each arm, per-seed-pair savings and a seeded bootstrap interval.
// A data trial is the comparison of comparison.h on the step axis, where every step costs the
// same: gross prices a step at 1, net at the measured core-seconds per step f plus each arm's
// production cost. The JSON is in result_json.h, the lab record in narrate/lab_record.h.
//
// Pure functions over numbers: nothing here trains, reads files or looks at the clock, so the
// same inputs give bit-identical outputs. Every function is thread-safe.
//
// "Never caught up" is represented as t_C = +inf and a saving of -inf (1 - inf/t_R): it sorts
// below every finite saving (that is how it enters bootstrap percentiles) and is printed as
// JSON null beside caught_up = false. For decisions it counts as a saving <= 0.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "trial/bootstrap.h"
#include "trial/comparison.h"
#include "trial/compute_check.h"
#include "trial/curve.h"

namespace preflight::trial {

// What makes an arm an arm: its data and its training schedule. Declarative; the trial runner
// turns it into a selection and a training run. Two arms of one trial differ in data_kind,
// schedule or both; everything else (model, optimizer, steps, batch, context) is shared.
struct ArmSpec {
  std::string name;       // unique within a trial, e.g. "curated", "random", "first"
  std::string data_kind;  // a selector name ("dsir", "classifier"), "random" or "first"
  std::string schedule;   // "" for plain training; later e.g. "freeze:blocks=0-1@0.7"
  // The fraction of the pool's bytes this arm's selection keeps; 0: the trial's one --keep.
  // Set only in a keep trial (trial/runner.h, TrialConfig::keeps), where arms keep different
  // fractions.
  double keep = 0;
};

// An arm's measured results: one curve per seed, all on the same eval schedule.
struct Arm {
  ArmSpec spec;
  std::vector<uint64_t> seeds;  // seeds[i] produced curves[i]; pairs across arms match by seed
  std::vector<Curve> curves;
  double cost_core_seconds = 0;  // c_arm: producing the arm's data (selection, forecast)
};

// What the net charges for a second of f and for a core-second of an arm's cost. The builtin
// engine's net is in core-seconds (both 1: its f is core-seconds per step too); a launched
// trainer's is in dollars (doc/trainers.md, "What a launched run costs"): f's charged seconds at
// the device's price, the arms' core-seconds at a CPU core's. Multiplying by 1 is exact, so a
// net in core-seconds is what it was before prices existed.
struct NetPrices {
  double step_second = 1;             // per second of f
  double core_second = 1;             // per core-second of c_arm, c_baseline
  std::string unit = "core-seconds";  // the net's unit: "core-seconds" or "USD"
};

struct TrialInputs {
  std::vector<Arm> arms;
  size_t baseline = 0;               // index into arms of the arm that sets L* (the random arm)
  double core_seconds_per_step = 0;  // f, measured on this machine (> 0)
  NetPrices prices;                  // net = 1 - (t_C f p_f + c_C p_c) / (t_R f p_f + c_R p_c)
  double flops_per_step = 0;         // FLOPs of one training step, the same for every run (>= 0)
  int64_t budget_steps = 0;          // S; 0 = the last eval step. Eval points beyond S are ignored.
  BootstrapOptions bootstrap;
};

// A saving of one arm against the baseline, for mean curves or for one seed pair.
struct Saving {
  double l_star = 0;
  double t_baseline = 0;  // t_R
  double t_arm = kNever;  // t_C, interpolated; kNever when never caught up
  bool caught_up = false;
  double gross = 0;  // 1 - t_C/t_R; -inf when never caught up; NaN if t_R == 0
  double net = 0;    // 1 - (t_C f + c_C)/(t_R f + c_R); -inf / NaN as gross
};

struct SeedSaving {
  uint64_t seed = 0;
  Saving saving;
};

// One non-baseline arm against the baseline.
struct Comparison {
  std::string arm;
  std::string baseline;
  Saving saving;  // on the mean curves: the headline numbers
  std::vector<SeedSaving> per_seed;
  BootstrapResult ci;
  double arm_cost_core_seconds = 0;       // c_C
  double baseline_cost_core_seconds = 0;  // c_R
  double flops_to_baseline = 0;           // t_R * FLOPs/step
  double flops_to_arm = kNever;           // t_C * FLOPs/step; kNever when never caught up
};

struct TrialResult {
  std::vector<ArmSpec> arms;
  size_t baseline = 0;
  std::vector<Curve> mean_curves;  // one per arm, truncated to the budget, in arm order
  int64_t budget_steps = 0;        // S as used
  double core_seconds_per_step = 0;
  NetPrices prices;  // as given: what the nets charged per second of f and per core-second
  double flops_per_step = 0;
  BootstrapOptions bootstrap;
  std::vector<Comparison> comparisons;  // one per non-baseline arm, in arm order
};

// The data trial's two measures on the step axis: gross (a step costs 1) and net (a step costs
// f core-seconds, plus c_arm and c_baseline for producing each arm).
std::vector<Measure> DataTrialMeasures(double f, double c_arm, double c_baseline);

// The saving of `arm` against `baseline` (both already truncated to the budget).
// f = core-seconds per step, c_arm / c_baseline = core-seconds spent producing each arm.
Saving ComputeSaving(const Curve& baseline, const Curve& arm, double f, double c_arm,
                     double c_baseline);

// The percentile bootstrap of ComputeSaving over seeds (see BootstrapOptions and
// doc/design.md, "The metrics, exactly", for the draw order and quantile). Deterministic for
// fixed options.
Result<BootstrapResult> BootstrapSaving(const std::vector<Curve>& baseline_runs,
                                        const std::vector<Curve>& arm_runs,
                                        const std::vector<uint64_t>& baseline_seeds,
                                        const std::vector<uint64_t>& arm_seeds,
                                        const std::string& arm_name, double f, double c_arm,
                                        double c_baseline, const BootstrapOptions& options);

// Everything above for every non-baseline arm. InvalidArgument on malformed inputs, on curves
// of different eval schedules, on a budget beyond the curves, and when the baseline's mean
// curve is best at step 0 (it never learned, so no saving is measurable).
Result<TrialResult> ComputeTrial(const TrialInputs& inputs);

}  // namespace preflight::trial
