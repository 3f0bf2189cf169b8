#pragma once
// The report's plot: one inline <svg id="curve-plot"> of every arm's mean eval curve with its
// per-seed min-max band, the L* line, and markers at t_R and each t_C. Stable inside the plot:
// path.mean-curve and path.seed-band carry data-arm="<name>"; line#l-star; line.t-marker with
// data-arm. Pure function: same data, same bytes.

#include <string>
#include <string_view>
#include <vector>

#include "trial/metrics.h"

namespace preflight::report {

// Okabe-Ito colours (distinguishable with every common colour-vision deficiency). The line
// colour draws; the darker ink writes labels at >= 4.5:1 contrast on white.
struct Palette {
  const char* line;
  const char* ink;
  const char* dash;  // stroke-dasharray, so arms differ without colour too
};

// The baseline always gets the first colour; other arms take the rest in order.
const Palette& ColourOf(size_t arm, size_t baseline);

// ` stroke-dasharray="..."` for an arm drawn dashed, "" for a solid one.
std::string DashAttribute(const Palette& palette);

// The plot's viewBox ("0 0 kPlotWidth kPlotHeight"); every label stays inside it.
inline constexpr double kPlotWidth = 960, kPlotHeight = 560;

// A generous estimate of a label's rendered width in SVG units at `font_size`: 0.72 em per
// character (UTF-8 code points), wider than the capitals and digits of the page's sans-serif
// fonts (DejaVu Sans, Liberation Sans), bold included, so a label placed by it is not cut off.
double EstimateTextWidth(std::string_view text, double font_size);

struct Plot {
  std::string svg;
  bool clipped = false;  // losses above clip_at (the first steps) run off the top
  double clip_at = 0;
};

// The plot of `result` (at least two mean curves); `arms` are its per-seed curves for the bands
// (an arm without them gets a band of its mean). A FLOPs axis along the top when
// result.flops_per_step > 0.
Plot PlotSvg(const trial::TrialResult& result, const std::vector<trial::Arm>& arms);

}  // namespace preflight::report
