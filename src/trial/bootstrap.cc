#include "trial/bootstrap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/rng.h"

namespace preflight::trial {
namespace {

Status CheckOptions(const BootstrapOptions& options) {
  if (options.resamples < 1) return Status::InvalidArgument("bootstrap needs >= 1 resample");
  if (!(options.level > 0 && options.level < 1)) {
    return Status::InvalidArgument("bootstrap level must lie strictly between 0 and 1");
  }
  return Status::Ok();
}

// The interval of sorted-in-place values at options.level.
Interval Percentiles(std::vector<double>* values, double level) {
  std::sort(values->begin(), values->end());
  const double alpha = (1.0 - level) / 2.0;
  return {NearestRank(*values, alpha), NearestRank(*values, 1.0 - alpha)};
}

}  // namespace

nlohmann::json BootstrapOptions::ToJson() const {
  return {{"resamples", resamples},
          {"seed", seed},
          {"level", level},
          {"paired", paired},
          {"rng", "splitmix64"}};
}

std::vector<std::pair<size_t, size_t>> SeedPairs(const std::vector<uint64_t>& baseline_seeds,
                                                 const std::vector<uint64_t>& arm_seeds) {
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t j = 0; j < arm_seeds.size(); ++j) {
    auto it = std::find(baseline_seeds.begin(), baseline_seeds.end(), arm_seeds[j]);
    if (it != baseline_seeds.end()) {
      pairs.push_back({static_cast<size_t>(it - baseline_seeds.begin()), j});
    }
  }
  return pairs;
}

double NearestRank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nan("");
  // The epsilon keeps 0.975 * 2000 from rounding up to 1951.
  double rank = std::ceil(q * static_cast<double>(sorted.size()) - 1e-9);
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

Result<BootstrapResult> Bootstrap(const BootstrapOptions& options, const std::string& arm_name,
                                  size_t baseline_runs, size_t arm_runs,
                                  const std::vector<std::pair<size_t, size_t>>& pairs,
                                  const std::function<DrawSaving(const Draw&)>& measure) {
  PF_RETURN_IF_ERROR(CheckOptions(options));
  if (options.paired &&
      (pairs.empty() || pairs.size() != arm_runs || pairs.size() != baseline_runs)) {
    return Status::InvalidArgument(
        fmt::format("paired bootstrap for arm '{}' needs the same seeds in both arms", arm_name));
  }
  SplitMix64 rng(options.seed ^ Fnv1a64(arm_name));
  BootstrapResult out;
  out.resamples = options.resamples;
  std::vector<double> gross, net;
  gross.reserve(options.resamples);
  net.reserve(options.resamples);
  Draw draw;
  draw.baseline.resize(options.paired ? pairs.size() : baseline_runs);
  draw.arm.resize(options.paired ? pairs.size() : arm_runs);
  for (int r = 0; r < options.resamples; ++r) {
    if (options.paired) {
      for (size_t k = 0; k < pairs.size(); ++k) {
        const auto& [b, a] = pairs[rng.Below(pairs.size())];
        draw.baseline[k] = b;
        draw.arm[k] = a;
      }
    } else {
      for (size_t& k : draw.baseline) k = rng.Below(baseline_runs);
      for (size_t& k : draw.arm) k = rng.Below(arm_runs);
    }
    const DrawSaving s = measure(draw);
    if (std::isnan(s.gross)) {
      ++out.undefined;
      continue;
    }
    if (!s.caught_up) ++out.never_caught_up;
    gross.push_back(s.gross);
    net.push_back(s.net);
  }
  out.gross = Percentiles(&gross, options.level);
  out.net = Percentiles(&net, options.level);
  return out;
}

}  // namespace preflight::trial
