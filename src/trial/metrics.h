#pragma once
// The trial's numbers, exactly as DESIGN.md "The metrics, exactly" and doc/metrics.md define
// them: mean eval curves, L*, t_R, the interpolated catch-up step t_C, compute saved gross and
// net of the cost of producing each arm, per-seed-pair savings, a seeded bootstrap interval,
// the compute-matching check, and the lab record that goes into the receipt.
//
// Pure functions over numbers: nothing here trains, reads files or looks at the clock, so the
// same inputs give bit-identical outputs. Every function is thread-safe.
//
// "Never caught up" is represented as t_C = +inf and a saving of -inf (1 - inf/t_R): it sorts
// below every finite saving (that is how it enters bootstrap percentiles) and is printed as
// JSON null beside caught_up = false. For decisions it counts as a saving <= 0.

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/format.h"
#include "base/status.h"

namespace preflight::trial {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

// One eval curve of one run: held-out loss in bits per byte at each eval step. Steps are
// strictly increasing and >= 0; bpb values are finite. Both have the same length (>= 1).
struct Curve {
  std::vector<int64_t> steps;
  std::vector<double> bpb;
};

// What makes an arm an arm: its data and its training schedule. Declarative; the trial runner
// turns it into a selection and a training run. Two arms of one trial differ in data_kind,
// schedule or both; everything else (model, optimizer, steps, batch, context) is shared.
struct ArmSpec {
  std::string name;       // unique within a trial, e.g. "curated", "random", "first"
  std::string data_kind;  // a selector name ("dsir", "classifier"), "random" or "first"
  std::string schedule;   // "" for plain training; later e.g. "freeze:blocks=0-1@0.7"
};

// An arm's measured results: one curve per seed, all on the same eval schedule.
struct Arm {
  ArmSpec spec;
  std::vector<uint64_t> seeds;  // seeds[i] produced curves[i]; pairs across arms match by seed
  std::vector<Curve> curves;
  double cost_core_seconds = 0;  // c_arm: producing the arm's data (selection, forecast)
};

// The compute of one training run, as its receipt records it.
struct RunCompute {
  std::string run;  // names the run in messages, e.g. "curated/seed-2"
  double flops_per_step = 0;
  int64_t steps = 0;
  int64_t tokens_per_step = 0;
};

struct BootstrapOptions {
  int resamples = 2000;
  uint64_t seed = 0x7072656631696768ULL;  // fixed: the interval is part of the receipt
  double level = 0.95;
  // false: resample seeds independently within each arm (DESIGN.md). true: resample seed
  // pairs together (needs the same seeds in both arms), which keeps the pairing of shared
  // initialisations and gives a tighter interval.
  bool paired = false;

  nlohmann::json ToJson() const;  // as results record it (with the RNG's name)
};

struct TrialInputs {
  std::vector<Arm> arms;
  size_t baseline = 0;               // index into arms of the arm that sets L* (the random arm)
  double core_seconds_per_step = 0;  // f, measured on this machine (> 0)
  double flops_per_step = 0;         // FLOPs of one training step, the same for every run (>= 0)
  int64_t budget_steps = 0;          // S; 0 = the last eval step. Eval points beyond S are ignored.
  BootstrapOptions bootstrap;
};

// L* and where the baseline first reaches it.
struct Target {
  double l_star = 0;
  int64_t t_baseline = 0;  // t_R: the first eval step whose value equals the minimum
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

struct Interval {
  double lo = 0;  // may be -inf: never caught up in at least (1-level)/2 of the resamples
  double hi = 0;  // may be -inf likewise
};

struct BootstrapResult {
  Interval gross;
  Interval net;
  int resamples = 0;        // drawn
  int never_caught_up = 0;  // resamples where the arm's mean never reached L*
  int undefined = 0;        // resamples whose baseline mean was best at step 0 (excluded)
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
  double flops_per_step = 0;
  BootstrapOptions bootstrap;
  std::vector<Comparison> comparisons;  // one per non-baseline arm, in arm order
};

// InvalidArgument naming `what` when the curve breaks the invariants stated on Curve.
Status ValidateCurve(const Curve& curve, const std::string& what);

// Pointwise mean over runs (in the order given, so rounding is reproducible). Every curve
// must have the same steps.
Result<Curve> MeanCurve(const std::vector<Curve>& runs);

// L* = min over eval points; t_R = the first step holding it (exact ties go to the earliest).
Target FindTarget(const Curve& baseline);

// The first step at which `curve` is <= l_star, linearly interpolated between the last eval
// point above l_star and the first at or below it. At the first eval point there is nothing
// earlier to interpolate from, so a curve already <= l_star there returns that step (an upper
// bound on the true crossing, so the saving is not overstated). kNever when no point is.
double CatchUpStep(const Curve& curve, double l_star);

// The saving of `arm` against `baseline` (both already truncated to the budget).
// f = core-seconds per step, c_arm / c_baseline = core-seconds spent producing each arm.
Saving ComputeSaving(const Curve& baseline, const Curve& arm, double f, double c_arm,
                     double c_baseline);

// The percentile bootstrap of ComputeSaving over seeds (see BootstrapOptions and
// doc/metrics.md for the exact draw order and quantile). Deterministic for fixed options.
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

// Refuses (InvalidArgument naming the runs that differ) unless every run has the same FLOPs
// per step (relative tolerance 1e-9), steps and tokens per step. Called before any saving is
// reported: a saving between runs of different compute means nothing.
Status CheckComputeMatched(const std::vector<RunCompute>& runs);

// JSON of the results. Non-finite numbers (never caught up, undefined) are written as null.
// TrialResultToJson carries the DESIGN.md keys (compute_saved{gross,net,ci95,...}, caught_up,
// l_star, t_random, t_curated) for the primary comparison (the first non-baseline arm) and
// every comparison under "comparisons".
nlohmann::json SavingToJson(const Saving& saving);
nlohmann::json ComparisonToJson(const Comparison& comparison);
nlohmann::json TrialResultToJson(const TrialResult& result);

// What the trial asks, known before training. The falsifier is built from this alone.
struct LabQuestion {
  std::string target;    // the target's name, e.g. "brown:news"
  std::string pool;      // the pool, e.g. "bundled pool (12.3 MB)"
  std::string selector;  // e.g. "dsir"
  double keep = 0.25;    // keep fraction of the pool's bytes
  std::string model;     // model name, e.g. "tiny"
  int64_t model_params = 0;
  int64_t steps = 0;  // S
  int seeds = 0;      // per arm
  int64_t pool_bytes = 0;
  int64_t eval_bytes = 0;  // bytes of the held-out T_eval
};

// "The curated arm does not reach L* within S steps", with S filled in; fixed before training.
std::string Falsifier(const LabQuestion& question);

// The receipt's lab record: {summary, question, falsifier, finding, does_not_show[...]},
// all in plain language, for the primary comparison of `result`.
nlohmann::json BuildLabRecord(const LabQuestion& question, const TrialResult& result);

// The lab record as text, summary first, wrapped at 100 columns.
std::string LabRecordText(const nlohmann::json& record);

}  // namespace preflight::trial
