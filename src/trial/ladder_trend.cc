#include "trial/ladder_trend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace preflight::trial {
namespace {

// The rung's sd from its interval, or a negative value when the interval is not finite.
double SdOfInterval(const LadderPoint& p) {
  if (!std::isfinite(p.ci_lo) || !std::isfinite(p.ci_hi) || p.ci_hi < p.ci_lo) return -1;
  return (p.ci_hi - p.ci_lo) / (2 * kZ95);
}

double Clip(double v) { return std::clamp(v, -1.0, 1.0); }

}  // namespace

double NeverCaughtUpNetBound(double budget_steps, double t_baseline, double f, double c_arm,
                             double c_baseline) {
  const double denominator = t_baseline * f + c_baseline;
  if (!(denominator > 0)) return std::nan("");
  return 1 - (budget_steps * f + c_arm) / denominator;
}

std::string TrendDirection(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "unclear";
  if (lo > 0) return "grows";
  if (hi < 0) return "shrinks";
  if (lo >= -kHoldsPerDecade && hi <= kHoldsPerDecade) return "holds";
  return "unclear";
}

LadderTrend FitLadderTrend(const std::vector<LadderPoint>& points) {
  LadderTrend t;
  std::vector<double> x, y, sd;
  double widest = -1;
  for (const LadderPoint& p : points) widest = std::max(widest, SdOfInterval(p));
  for (size_t i = 0; i < points.size(); ++i) {
    const LadderPoint& p = points[i];
    if (!(p.flops > 0) || !std::isfinite(p.net)) {
      t.notes.push_back(fmt::format("rung {} left out: no finite saving to fit", i + 1));
      continue;
    }
    if (!p.caught_up) {
      t.notes.push_back(
          fmt::format("rung {} never caught up: entered at its bound (net saving at most {:.1f}%)",
                      i + 1, 100 * p.net));
    }
    double s = SdOfInterval(p);
    if (s < 0) s = widest > 0 ? widest : kFallbackSd;
    x.push_back(std::log10(p.flops));
    y.push_back(p.net);
    sd.push_back(std::max(s, kMinSd));
  }
  t.rungs_fitted = static_cast<int>(x.size());
  if (x.size() < 2) return t;
  double sw = 0, swx = 0, swy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = 1 / (sd[i] * sd[i]);
    sw += w;
    swx += w * x[i];
    swy += w * y[i];
  }
  const double xm = swx / sw, ym = swy / sw;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = 1 / (sd[i] * sd[i]);
    sxx += w * (x[i] - xm) * (x[i] - xm);
    sxy += w * (x[i] - xm) * (y[i] - ym);
  }
  if (!(sxx > 0)) {
    t.notes.push_back("every fitted rung has the same compute: no slope");
    return t;
  }
  const double slope = sxy / sxx;
  if (x.size() > 2) {
    double chi2 = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double r = (y[i] - ym - slope * (x[i] - xm)) / sd[i];
      chi2 += r * r;
    }
    t.birge = std::max(1.0, chi2 / static_cast<double>(x.size() - 2));
  }
  t.fitted = true;
  t.slope_per_decade = slope;
  t.x_mean = xm;
  t.level_at_mean = ym;
  t.var_slope = t.birge / sxx;
  t.var_level = t.birge / sw;
  const double half = kZ95 * std::sqrt(t.var_slope);
  t.lo = slope - half;
  t.hi = slope + half;
  t.direction = TrendDirection(t.lo, t.hi);
  return t;
}

std::optional<LadderProjection> ProjectSaving(const LadderTrend& trend, double flops,
                                              double curated_bytes) {
  if (!trend.fitted || !(flops > 0)) return std::nullopt;
  LadderProjection p;
  p.flops = flops;
  const double dx = std::log10(flops) - trend.x_mean;
  const double mid = trend.level_at_mean + trend.slope_per_decade * dx;
  const double half = kZ95 * std::sqrt(trend.var_level + dx * dx * trend.var_slope);
  p.saving = Clip(mid);
  p.lo = Clip(mid - half);
  p.hi = Clip(mid + half);
  p.assumption = "the saving keeps changing linearly in log compute as it did across these rungs";
  // C = 6 N D with D = 20 N gives D = sqrt(20 C / 6).
  p.tokens = std::sqrt(kTokensPerParam * flops / 6);
  if (curated_bytes > 0) {
    p.epochs_of_curated = p.tokens / curated_bytes;
    if (p.epochs_of_curated > kCheapEpochs) {
      p.repeats = true;
      p.lo = -1;
      p.note = fmt::format(
          "a compute-optimal run at this compute reads {:.3g} tokens, {:.1f} passes over the "
          "curated arm; past ~{:g} epochs repeated data loses value (Muennighoff et al. 2023), "
          "which the rungs never saw: the interval is widened down to -100%",
          p.tokens, p.epochs_of_curated, kCheapEpochs);
    }
  }
  return p;
}

nlohmann::json LadderTrendToJson(const LadderTrend& t) {
  nlohmann::json j = {
      {"direction", t.direction},
      {"rungs_fitted", t.rungs_fitted},
      {"method",
       "weighted least squares of net saving on log10 FLOPs of one run, weights from each "
       "rung's 95% interval (half-width / 1.96 = sd), slope interval +-1.96 sd inflated by the "
       "reduced chi-square when above 1; a rung that never caught up enters at its net bound"},
      {"notes", t.notes}};
  if (t.fitted) {
    j["slope_per_decade"] = t.slope_per_decade;
    j["interval"] = {t.lo, t.hi};
  } else {
    j["slope_per_decade"] = nullptr;
    j["interval"] = nullptr;
  }
  return j;
}

nlohmann::json LadderProjectionToJson(const LadderProjection& p) {
  return {{"flops", p.flops},
          {"saving", p.saving},
          {"interval", {p.lo, p.hi}},
          {"assumption", p.assumption},
          {"label", "projection"},
          {"tokens", p.tokens},
          {"epochs_of_curated", p.epochs_of_curated},
          {"repeats", p.repeats},
          {"note", p.note}};
}

}  // namespace preflight::trial
