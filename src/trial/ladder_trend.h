#pragma once
// A ladder's arithmetic (doc/design.md, "The metrics, exactly"; `preflight ladder`): the net saving
// of each rung against log10 of the rung's training compute, a fitted trend with a 95% interval,
// its direction, and a projection to another compute, labelled as one.
//
// The fit, exactly:
//   x_i = log10(FLOPs of one training run at rung i)   (one arm, one seed: S steps of the model)
//   y_i = the rung's net saving; a rung that never caught up enters at its net bound
//         1 - (S f + c_C)/(t_R f + c_R): its saving is at most that (t_C > S), so a ladder whose
//         small rungs never caught up understates growth rather than inventing it.
//   sd_i = the half-width of the rung's 95% bootstrap interval / 1.96 when both ends are finite;
//         a rung without a finite interval (never caught up in many resamples) takes the largest
//         sd of the other rungs (kFallbackSd when none has one); every sd is at least kMinSd.
//   Weighted least squares with weights 1/sd_i^2. The slope's variance is 1/Sxx (Sxx the
//   weighted sum of squared x deviations), inflated by the reduced chi-square of the residuals
//   when it exceeds 1 and there are more than two rungs (the Birge ratio: rungs that scatter
//   more than their own intervals say widen the interval). Interval: slope +- 1.96 sd.
//   direction: "grows" when the interval lies above 0, "shrinks" below 0, "holds" when it lies
//   within +-kHoldsPerDecade, else "unclear" (and "unclear" with fewer than two fitted rungs).
// Pure functions over numbers: same inputs, same bits; thread-safe.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace preflight::trial {

inline constexpr double kHoldsPerDecade = 0.05;  // |saving change| per decade of compute
inline constexpr double kMinSd = 0.005;
inline constexpr double kFallbackSd = 0.1;
inline constexpr double kZ95 = 1.96;
// Chinchilla's compute-optimal tokens per parameter (Hoffmann et al. 2022) and the epochs of
// repeated data that still cost little (Muennighoff et al. 2023).
inline constexpr double kTokensPerParam = 20;
inline constexpr double kCheapEpochs = 4;

struct LadderPoint {
  double flops = 0;             // one training run's FLOPs at this rung (> 0)
  double net = 0;               // the net saving, or the net bound when never caught up
  double ci_lo = 0, ci_hi = 0;  // the rung's 95% interval on the net saving (may be -inf)
  bool caught_up = true;
};

struct LadderTrend {
  bool fitted = false;  // at least two rungs with finite points at distinct compute
  int rungs_fitted = 0;
  double slope_per_decade = 0, lo = 0, hi = 0;
  double x_mean = 0;                    // weighted mean of log10 FLOPs
  double level_at_mean = 0;             // the fitted saving there
  double var_level = 0, var_slope = 0;  // Birge-inflated
  double birge = 1;                     // the inflation applied to the variances (>= 1)
  std::string direction = "unclear";
  std::vector<std::string> notes;  // rungs entered at a bound or left out, and why
};

// 1 - (S f + c_C)/(t_R f + c_R): the most a rung that never caught up within S steps saved.
double NeverCaughtUpNetBound(double budget_steps, double t_baseline, double f, double c_arm,
                             double c_baseline);

// "grows" | "shrinks" | "holds" | "unclear" for an interval on the slope per decade.
std::string TrendDirection(double lo, double hi);

// The fit above. Rungs with a non-finite point or non-positive FLOPs are left out with a note.
LadderTrend FitLadderTrend(const std::vector<LadderPoint>& points);

struct LadderProjection {
  double flops = 0;
  double saving = 0, lo = 0, hi = 0;  // clipped to [-1, 1]
  std::string assumption;
  // A compute-optimal run at that compute (C = 6 N D, D = 20 N): its tokens, and how many
  // times they would pass over the curated arm's bytes (one token per byte).
  double tokens = 0;
  double epochs_of_curated = 0;
  bool repeats = false;  // epochs_of_curated > kCheapEpochs: the interval is widened down to -1
  std::string note;
};

// The trend extrapolated to `flops` (needs trend.fitted and flops > 0); curated_bytes > 0 sizes
// the repetition check (0: not checked).
std::optional<LadderProjection> ProjectSaving(const LadderTrend& trend, double flops,
                                              double curated_bytes);

// {"slope_per_decade","interval":[lo,hi],"direction","rungs_fitted","method","notes"}
// (slope and interval null when not fitted).
nlohmann::json LadderTrendToJson(const LadderTrend& trend);
// {"flops","saving","interval","assumption","label":"projection","tokens","epochs_of_curated",
//  "repeats","note"}
nlohmann::json LadderProjectionToJson(const LadderProjection& projection);

}  // namespace preflight::trial
