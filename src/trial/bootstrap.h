#pragma once
// The one bootstrap of every trial (doc/design.md, "The metrics, exactly"): seeds resampled
// with replacement, within each arm or as seed pairs, by splitmix64 from a fixed seed mixed with
// the arm's name, and a nearest-rank percentile interval. Deterministic for fixed options.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace preflight::trial {

struct BootstrapOptions {
  int resamples = 2000;
  uint64_t seed = 0x7072656631696768ULL;  // fixed: the interval is part of the receipt
  double level = 0.95;
  // false: resample seeds independently within each arm (doc/design.md, the default). true:
  // resample seed pairs together (needs the same seeds in both arms), which keeps the pairing of
  // shared initialisations and gives a tighter interval.
  bool paired = false;

  nlohmann::json ToJson() const;  // as results record it (with the RNG's name)
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

// One resample: indices into the baseline's runs and into the arm's runs.
struct Draw {
  std::vector<size_t> baseline, arm;
};

// What one resample measured: the saving before and after the costs outside training.
struct DrawSaving {
  bool caught_up = false;
  double gross = 0;  // NaN: undefined (left out and counted)
  double net = 0;
};

// (baseline run, arm run) for every arm run whose seed the baseline has (the first such
// baseline run), in the arm's order.
std::vector<std::pair<size_t, size_t>> SeedPairs(const std::vector<uint64_t>& baseline_seeds,
                                                 const std::vector<uint64_t>& arm_seeds);

// Nearest-rank percentile of sorted values: the smallest value with at least q of the values at
// or below it; NaN for no values.
double NearestRank(const std::vector<double>& sorted, double q);

// Draws options.resamples resamples of `baseline_runs` and `arm_runs` runs (paired: of `pairs`,
// which must cover every run of both arms), has `measure` compute each one's saving, and returns
// the percentile interval of gross and net. InvalidArgument on bad options or missing pairs.
Result<BootstrapResult> Bootstrap(const BootstrapOptions& options, const std::string& arm_name,
                                  size_t baseline_runs, size_t arm_runs,
                                  const std::vector<std::pair<size_t, size_t>>& pairs,
                                  const std::function<DrawSaving(const Draw&)>& measure);

}  // namespace preflight::trial
