#pragma once
// How much to keep (doc/ladder.md, "How much to keep"; doc/design.md, "The metrics, exactly",
// Keep fraction): at each rung of a keep ladder, which fraction reached the lowest held-out loss
// at the end of the budget and how sure that is; across rungs, a trend of the best fraction
// against log compute; at a compute asked about, the fraction to keep with its interval, or a
// refusal saying why.
//
// Definitions, exactly:
//   end loss     = a run's held-out loss (bits per byte) at its last eval point within the budget
//                  S; an arm's = the mean over its seeds (the spread: their sample sd).
//   best         = the arm of lowest mean end loss (the baseline, the whole pool, counts as
//                  keep 1; ties: the first in arm order).
//   how sure     = the share of bootstrap resamples in which it is best: each resample draws n
//                  seed indices with replacement, the same for every arm (the seeds are paired:
//                  one initialisation and data order per seed), and takes each arm's mean end
//                  loss over the draw. Generator splitmix64 from seed XOR FNV-1a-64("best-keep"),
//                  draws as trial/bootstrap.h's. Also: the seeds whose own end losses put it first.
//   log10 sd     = the sd of log10(best keep) over the resamples.
//   trend        = weighted least squares of y = log10(best keep) on x = log10(one run's FLOPs)
//                  (trial/ladder_trend.h's fit: the slope's interval inflated by the reduced
//                  chi-square when above 1 and more than two rungs), each rung's sd the larger of
//                  its log10 sd and the grid's resolution: the smallest gap between neighbouring
//                  log10 fractions tried (1 included) / sqrt(12), the sd of a value known only to
//                  the nearest grid point.
//   recommendation at X FLOPs: 10^(a + b (log10 X - xm)) with the 95% interval
//                  10^(y +- 1.96 sqrt(var_level + dx^2 var_slope)), at most 1; extrapolated when
//                  X lies outside the rungs' compute. Refused (keep null, with the reason) when
//                  every rung with a regime check is uninformative, when fewer than two rungs
//                  can be fitted, or when the trend is unclear: its interval at X excludes none
//                  of the fractions tried (it reaches from at most the smallest to 1).
// Pure functions over numbers: same inputs, same bits; thread-safe.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "trial/bootstrap.h"
#include "trial/ladder_trend.h"

namespace preflight::trial {

// One arm of a keep rung: its fraction (1 for the baseline) and each seed's end loss, the seeds
// in the same order in every arm.
struct KeepArmLosses {
  double keep = 0;
  std::vector<uint64_t> seeds;
  std::vector<double> end_loss;
};

struct BestKeep {
  size_t index = 0;  // into the arms given
  double keep = 0;
  double share = 0;  // of the resamples in which it is best
  int resamples = 0;
  int seeds_best = 0, seeds = 0;  // seeds whose own end losses put it first
  double log10_sd = 0;            // sd of log10(best keep) over the resamples
};

// Mean and sample sd (0 for one value) of `values`.
double MeanOf(const std::vector<double>& values);
double SampleSd(const std::vector<double>& values);

// The best of `arms` (two or more, the same seeds in the same order, finite losses); else
// InvalidArgument naming what is wrong.
Result<BestKeep> ChooseBestKeep(const std::vector<KeepArmLosses>& arms,
                                const BootstrapOptions& options = {});

// One rung of the trend: its compute, its best fraction, and its regime check (absent: not
// checked).
struct KeepRungPoint {
  double flops = 0;
  double best_keep = 0;
  double log10_sd = 0;
  std::optional<bool> informative;
};

struct KeepTrend {
  LadderTrend fit;      // y = log10(best keep); "grows": keep more with compute
  double sd_floor = 0;  // the grid's resolution in log10 units
  double min_flops = 0, max_flops = 0;
  double min_keep = 0;  // the smallest fraction tried
  int informative_rungs = 0, checked_rungs = 0;
  std::vector<std::string> notes;  // rungs whose best lies at an end of the grid
};

// `grid`: every fraction tried, 1 (the baseline) included.
KeepTrend FitKeepTrend(const std::vector<KeepRungPoint>& rungs, const std::vector<double>& grid);

struct KeepRecommendation {
  double flops = 0;
  std::optional<double> keep;  // absent: refused (see reason)
  double lo = 0, hi = 0;       // its 95% interval
  bool extrapolated = false;   // flops outside the rungs' compute
  std::string reason;          // why refused; else what it rests on
};

KeepRecommendation RecommendKeep(const KeepTrend& trend, double flops);

// {"slope_per_decade","interval","direction","rungs_fitted","method","notes"} (slope and
// interval null when not fitted).
nlohmann::json KeepTrendToJson(const KeepTrend& trend);
// {"flops","keep","interval","extrapolated","reason"} (keep and interval null when refused).
nlohmann::json KeepRecommendationToJson(const KeepRecommendation& r);

}  // namespace preflight::trial
