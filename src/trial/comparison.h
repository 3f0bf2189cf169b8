#pragma once
// One arm against the baseline, for data and schedule trials alike: L* and t_R from the
// baseline's mean curve, where the arm first reaches L* (curve.h), the fraction of compute saved
// on each axis a trial prices, per seed pair, and the bootstrap interval over seeds
// (bootstrap.h). A data trial prices on the step axis, where every step costs the same; a
// schedule trial on cumulative FLOPs, core-seconds and wall seconds. See doc/design.md ("The
// metrics, exactly") and doc/schedules.md for the formulas. Pure functions; deterministic and
// thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "trial/bootstrap.h"
#include "trial/curve.h"

namespace preflight::trial {

inline constexpr int kStepAxis = -1;

// How one saving is priced: 1 - (x_C * rate + arm_fixed [+ the arm's overhead]) /
// (x_R * rate + baseline_fixed), where x_C and x_R are where the arm and the baseline reach L*
// on the axis (the step, or a MeteredCurve column).
struct Measure {
  int column = kStepAxis;
  double rate = 1;  // e.g. core-seconds per step, to turn steps into core-seconds
  double arm_fixed = 0, baseline_fixed = 0;  // c_C, c_R: producing each arm's data
  bool charge_overhead = false;              // add the arm's MeteredCurve::overhead[column]
  bool needs_positive_baseline = false;      // undefined (NaN) when x_R <= 0 (measured axes)
};

// The saving of one arm's curve against one baseline curve.
struct PairSaving {
  Target target;      // L* and t_R of the baseline curve
  Crossing baseline;  // where the baseline reaches L* (at t_R; every column there)
  Crossing arm;       // where the arm first reaches L*; kNever when never
  bool caught_up = false;
  // One per Measure: -inf when never caught up (it sorts below every finite saving); NaN when
  // t_R == 0 (the baseline was best before training: no fraction of nothing is defined).
  std::vector<double> saved;
};

PairSaving ComparePair(const MeteredCurve& baseline, const MeteredCurve& arm,
                       const std::vector<Measure>& measures);

// One arm's runs: curves on a shared eval schedule, and the seed of each.
struct ArmRuns {
  std::string name;
  std::vector<MeteredCurve> runs;
  std::vector<uint64_t> seeds;  // seeds[i] produced runs[i]
};

struct SeedPair {
  uint64_t seed = 0;
  size_t baseline_run = 0, arm_run = 0;
  PairSaving saving;
};

struct ArmComparison {
  MeteredCurve baseline_mean, arm_mean;
  PairSaving mean;  // on the mean curves: the headline numbers
  std::vector<SeedPair> per_seed;
  BootstrapResult ci;  // of measures[0] (gross) and measures[1] (net)
};

// The mean curves, their saving, the saving of every seed pair (paired by seed value, a seed of
// one arm only left out) and the bootstrap of measures[0] and measures[1] (at least two). The
// runs of both arms share one eval schedule and column count (the caller checked).
Result<ArmComparison> CompareArms(const ArmRuns& baseline, const ArmRuns& arm,
                                  const std::vector<Measure>& measures,
                                  const BootstrapOptions& options);

}  // namespace preflight::trial
