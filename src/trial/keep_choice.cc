#include "trial/keep_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/rng.h"

namespace preflight::trial {
namespace {

Status CheckArms(const std::vector<KeepArmLosses>& arms) {
  if (arms.size() < 2) return Status::InvalidArgument("a best fraction needs two or more arms");
  for (const KeepArmLosses& a : arms) {
    if (!(a.keep > 0 && a.keep <= 1)) {
      return Status::InvalidArgument(fmt::format("keep {} is not in (0, 1]", a.keep));
    }
    if (a.end_loss.empty() || a.end_loss.size() != a.seeds.size() || a.seeds != arms[0].seeds) {
      return Status::InvalidArgument(fmt::format(
          "the arm keeping {} has other seeds than the first arm: its end losses are not paired",
          a.keep));
    }
    for (double v : a.end_loss) {
      if (!std::isfinite(v)) {
        return Status::InvalidArgument(
            fmt::format("the arm keeping {} has a non-finite loss", a.keep));
      }
    }
  }
  return Status::Ok();
}

// The index of the smallest value (the first on ties).
size_t ArgMin(const std::vector<double>& values) {
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] < values[best]) best = i;
  }
  return best;
}

std::string KeepText(double keep) { return fmt::format("{:g}", keep); }

}  // namespace

double MeanOf(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return values.empty() ? std::nan("") : sum / static_cast<double>(values.size());
}

double SampleSd(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double mean = MeanOf(values);
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(values.size() - 1));
}

Result<BestKeep> ChooseBestKeep(const std::vector<KeepArmLosses>& arms,
                                const BootstrapOptions& options) {
  PF_RETURN_IF_ERROR(CheckArms(arms));
  if (options.resamples < 1) return Status::InvalidArgument("bootstrap needs >= 1 resample");
  const size_t n = arms[0].seeds.size();
  std::vector<double> means;
  for (const KeepArmLosses& a : arms) means.push_back(MeanOf(a.end_loss));
  BestKeep best;
  best.index = ArgMin(means);
  best.keep = arms[best.index].keep;
  best.seeds = static_cast<int>(n);
  std::vector<double> column(arms.size());
  for (size_t s = 0; s < n; ++s) {
    for (size_t a = 0; a < arms.size(); ++a) column[a] = arms[a].end_loss[s];
    best.seeds_best += ArgMin(column) == best.index;
  }
  SplitMix64 rng(options.seed ^ Fnv1a64("best-keep"));
  std::vector<size_t> draw(n);
  std::vector<double> log_best;
  log_best.reserve(options.resamples);
  int wins = 0;
  for (int r = 0; r < options.resamples; ++r) {
    for (size_t& k : draw) k = rng.Below(n);
    for (size_t a = 0; a < arms.size(); ++a) {
      double sum = 0;
      for (size_t k : draw) sum += arms[a].end_loss[k];
      column[a] = sum / static_cast<double>(n);
    }
    const size_t winner = ArgMin(column);
    wins += winner == best.index;
    log_best.push_back(std::log10(arms[winner].keep));
  }
  best.resamples = options.resamples;
  best.share = static_cast<double>(wins) / options.resamples;
  best.log10_sd = SampleSd(log_best);
  return best;
}

KeepTrend FitKeepTrend(const std::vector<KeepRungPoint>& rungs, const std::vector<double>& grid) {
  KeepTrend t;
  std::vector<double> logs;
  for (double k : grid) {
    if (k > 0) logs.push_back(std::log10(k));
  }
  std::sort(logs.begin(), logs.end());
  double gap = 0;
  for (size_t i = 1; i < logs.size(); ++i) {
    const double d = logs[i] - logs[i - 1];
    if (d > 0 && (gap == 0 || d < gap)) gap = d;
  }
  t.sd_floor = gap > 0 ? gap / std::sqrt(12.0) : kFallbackSd;
  t.min_keep = logs.empty() ? 1 : std::pow(10.0, logs.front());
  std::vector<LadderPoint> points;
  for (size_t i = 0; i < rungs.size(); ++i) {
    const KeepRungPoint& r = rungs[i];
    if (r.informative) {
      ++t.checked_rungs;
      t.informative_rungs += *r.informative;
    }
    if (i == 0 || r.flops < t.min_flops) t.min_flops = r.flops;
    if (i == 0 || r.flops > t.max_flops) t.max_flops = r.flops;
    if (r.best_keep >= 1) {
      t.notes.push_back(fmt::format("rung {}: no selected fraction beat the whole pool", i + 1));
    } else if (r.best_keep <= t.min_keep) {
      t.notes.push_back(fmt::format(
          "rung {}: the best is the smallest fraction tried ({}); a smaller one may be better",
          i + 1, KeepText(r.best_keep)));
    }
    const double y = r.best_keep > 0 ? std::log10(r.best_keep) : std::nan("");
    const double sd = std::max(r.log10_sd, t.sd_floor);
    points.push_back({r.flops, y, y - kZ95 * sd, y + kZ95 * sd, true});
  }
  t.fit = FitLadderTrend(points);
  return t;
}

KeepRecommendation RecommendKeep(const KeepTrend& t, double flops) {
  KeepRecommendation r;
  r.flops = flops;
  r.extrapolated = flops < t.min_flops * (1 - 1e-12) || flops > t.max_flops * (1 + 1e-12);
  if (t.checked_rungs > 0 && t.informative_rungs == 0) {
    r.reason =
        "every rung learned no more than byte n-gram statistics (regime check): which fraction "
        "is best there says little about a larger model";
    return r;
  }
  if (!t.fit.fitted || !(flops > 0)) {
    r.reason = fmt::format("the trend is unclear: {} rungs could be fitted, two are needed",
                           t.fit.rungs_fitted);
    return r;
  }
  const double dx = std::log10(flops) - t.fit.x_mean;
  const double y = t.fit.level_at_mean + t.fit.slope_per_decade * dx;
  const double half = kZ95 * std::sqrt(t.fit.var_level + dx * dx * t.fit.var_slope);
  r.lo = std::min(1.0, std::pow(10.0, y - half));
  r.hi = std::min(1.0, std::pow(10.0, y + half));
  if (r.lo <= t.min_keep && r.hi >= 1) {
    r.reason = fmt::format(
        "the trend is unclear: at this compute its 95% interval, {:.3g} to {:.3g}, excludes none "
        "of the fractions tried ({} to 1)",
        r.lo, r.hi, KeepText(t.min_keep));
    return r;
  }
  r.keep = std::min(1.0, std::pow(10.0, y));
  r.reason =
      fmt::format("the trend of the best fraction over {} rungs ({} of {} checked informative){}",
                  t.fit.rungs_fitted, t.informative_rungs, t.checked_rungs,
                  r.extrapolated ? "; an extrapolation beyond the rungs' compute" : "");
  if (*r.keep < t.min_keep) r.reason += "; below every fraction tried";
  return r;
}

nlohmann::json KeepTrendToJson(const KeepTrend& t) {
  nlohmann::json j = {
      {"direction", t.fit.direction},
      {"rungs_fitted", t.fit.rungs_fitted},
      {"method",
       "weighted least squares of log10(best keep) on log10 FLOPs of one run; each rung's sd the "
       "larger of the bootstrap sd of log10(best keep) and the grid's resolution (smallest gap "
       "between log10 fractions tried / sqrt(12)); slope interval +-1.96 sd inflated by the "
       "reduced chi-square when above 1"},
      {"sd_floor", t.sd_floor},
      {"notes", t.notes}};
  for (const std::string& note : t.fit.notes) j["notes"].push_back(note);
  if (t.fit.fitted) {
    j["slope_per_decade"] = t.fit.slope_per_decade;
    j["interval"] = {t.fit.lo, t.fit.hi};
  } else {
    j["slope_per_decade"] = nullptr;
    j["interval"] = nullptr;
  }
  return j;
}

nlohmann::json KeepRecommendationToJson(const KeepRecommendation& r) {
  const bool made = r.keep.has_value();
  return {{"flops", r.flops},
          {"keep", made ? nlohmann::json(*r.keep) : nlohmann::json(nullptr)},
          {"interval", made ? nlohmann::json({r.lo, r.hi}) : nlohmann::json(nullptr)},
          {"extrapolated", r.extrapolated},
          {"reason", r.reason}};
}

}  // namespace preflight::trial
