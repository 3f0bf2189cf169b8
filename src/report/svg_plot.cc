#include "report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "report/trial_report.h"

namespace preflight::report {
namespace {

using trial::Comparison;
using trial::Curve;

constexpr Palette kPalette[] = {
    {"#0072B2", "#005a8c", ""},         // blue: the baseline
    {"#D55E00", "#a94a00", ""},         // vermillion: the first other arm
    {"#009E73", "#00704f", "7 4"},      // bluish green
    {"#CC79A7", "#9c4f7b", "2 3"},      // reddish purple
    {"#E69F00", "#8a5f00", "10 3 2 3"}  // orange
};

// Plot geometry in SVG user units; the svg scales to the page width.
constexpr double kWidth = kPlotWidth, kHeight = kPlotHeight;
constexpr double kLeft = 78, kRight = 30, kTop = 66, kBottom = 62;

struct Scale {
  double d0, d1, r0, r1;
  double operator()(double v) const { return r0 + (v - d0) / (d1 - d0) * (r1 - r0); }
};

std::string Px(double v) { return fmt::format("{:.1f}", v); }

int DecimalsFor(double step) {
  return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
}

std::string TickLabel(double v, double step) {
  if (step >= 1 && std::abs(v) < 1e15) return FormatSteps(std::round(v));
  return fmt::format("{:.{}f}", v, DecimalsFor(step));
}

struct Band {
  std::vector<double> lo, hi;
};

Band SeedBand(const trial::Arm& arm, size_t points) {
  Band band{std::vector<double>(points, trial::kNever),
            std::vector<double>(points, -trial::kNever)};
  for (const Curve& c : arm.curves) {
    for (size_t i = 0; i < points && i < c.bpb.size(); ++i) {
      band.lo[i] = std::min(band.lo[i], c.bpb[i]);
      band.hi[i] = std::max(band.hi[i], c.bpb[i]);
    }
  }
  return band;
}

// What the plot draws, placed: data, ticks and the scales from data to SVG units.
struct Frame {
  const trial::TrialResult& r;
  const std::vector<int64_t>& steps;  // the baseline's eval steps
  std::vector<Band> bands;            // per arm
  std::vector<double> x_ticks, y_ticks;
  double x_step = 1, y_step = 0.1;
  Scale sx{0, 1, 0, 1}, sy{0, 1, 0, 1};
  double px0 = kLeft, px1 = kWidth - kRight, py0 = kTop, py1 = kHeight - kBottom;
  bool clipped = false;
  double clip_at = 0;
};

// y: every band below, and above everything after the first quarter of training, so that the
// steep start does not squash the part where the arms are compared. The rest is clipped.
void PlaceY(double x_lo, double x_hi, Frame* f) {
  double y_min = trial::kNever, y_max = -trial::kNever, y_all_max = -trial::kNever;
  const double late = x_lo + 0.25 * (x_hi - x_lo);
  for (const Band& band : f->bands) {
    for (size_t i = 0; i < f->steps.size(); ++i) {
      y_min = std::min(y_min, band.lo[i]);
      y_all_max = std::max(y_all_max, band.hi[i]);
      if (f->steps[i] >= late) y_max = std::max(y_max, band.hi[i]);
    }
  }
  if (!std::isfinite(y_max)) y_max = y_all_max;
  if (!f->r.comparisons.empty()) {
    y_min = std::min(y_min, f->r.comparisons[0].saving.l_star);
    y_max = std::max(y_max, f->r.comparisons[0].saving.l_star);
  }
  if (y_max - y_min < 1e-9) {
    y_max += 0.05;
    y_min -= 0.05;
  }
  const double pad = 0.06 * (y_max - y_min);
  std::vector<double> ticks = NiceTicks(y_min - pad, y_max + pad, 6);
  f->y_step = ticks.size() > 1 ? ticks[1] - ticks[0] : 0.1;
  const double y_lo = std::floor((y_min - pad) / f->y_step + 1e-9) * f->y_step;
  const double y_hi = std::ceil((y_max + pad) / f->y_step - 1e-9) * f->y_step;
  f->y_ticks = NiceTicks(y_lo, y_hi, 6);
  f->clipped = y_all_max > y_hi;
  f->clip_at = y_hi;
  f->sy = {y_lo, y_hi, f->py1, f->py0};
}

Frame Place(const trial::TrialResult& r, const std::vector<trial::Arm>& arms) {
  Frame f{r, r.mean_curves[r.baseline].steps, {}, {}, {}};
  for (size_t a = 0; a < r.mean_curves.size(); ++a) {
    f.bands.push_back(a < arms.size() ? SeedBand(arms[a], f.steps.size())
                                      : Band{r.mean_curves[a].bpb, r.mean_curves[a].bpb});
  }
  // x: from step 0 (or the first eval) to the budget S.
  const double x_lo = std::min<double>(0, static_cast<double>(f.steps.front()));
  const double x_hi = std::max<double>(static_cast<double>(r.budget_steps), x_lo + 1);
  f.x_ticks = NiceTicks(x_lo, x_hi, 6);
  f.x_step = f.x_ticks.size() > 1 ? f.x_ticks[1] - f.x_ticks[0] : 1;
  f.sx = {x_lo, x_hi, f.px0, f.px1};
  PlaceY(x_lo, x_hi, &f);
  return f;
}

// A tick label centred on its tick, or ending (starting) at it where centring would run past
// the svg's right (left) edge: "245 GFLOP" at the last tick of the FLOPs axis.
std::string TickText(double x, double y, const std::string& label, double font_size,
                     const char* extra = "") {
  constexpr double kEdge = 4;  // keep this far inside the viewBox
  const double half_width = EstimateTextWidth(label, font_size) / 2;
  const char* anchor = x + half_width > kWidth - kEdge ? " text-anchor=\"end\""
                       : x - half_width < kEdge        ? " text-anchor=\"start\""
                                                       : "";
  return fmt::format("<text x=\"{}\" y=\"{}\"{}{}>{}</text>\n", Px(x), Px(y), anchor, extra,
                     label);
}

std::string Header(const Frame& f) {
  std::string s = fmt::format(
      "<svg id=\"curve-plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-labelledby=\"plot-title plot-desc\">\n",
      kWidth, kHeight);
  s += "<title id=\"plot-title\">Held-out loss against training step, every arm</title>\n";
  s += "<desc id=\"plot-desc\">Mean eval curve of each arm over its seeds, with the per-seed "
       "min-max range shaded; the dashed line is L*, the random arm's best mean loss; vertical "
       "lines mark t_R and t_C.</desc>\n";
  s += fmt::format(
      "<defs><clipPath id=\"plot-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
      "</clipPath></defs>\n",
      Px(f.px0), Px(f.py0), Px(f.px1 - f.px0), Px(f.py1 - f.py0));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fcfcfd\"/>\n",
                   Px(f.px0), Px(f.py0), Px(f.px1 - f.px0), Px(f.py1 - f.py0));
  return s;
}

std::string GridAndAxes(const Frame& f) {
  std::string s = "<g class=\"grid\" stroke=\"#e6e9ed\" stroke-width=\"1\">\n";
  for (double t : f.y_ticks) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", Px(f.px0), Px(f.px1),
                     Px(f.sy(t)), Px(f.sy(t)));
  }
  for (double t : f.x_ticks) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", Px(f.sx(t)), Px(f.sx(t)),
                     Px(f.py0), Px(f.py1));
  }
  s += "</g>\n";
  s += fmt::format(
      "<g class=\"axes\" stroke=\"#59636e\" stroke-width=\"1\"><line x1=\"{0}\" x2=\"{1}\" "
      "y1=\"{2}\" y2=\"{2}\"/><line x1=\"{0}\" x2=\"{1}\" y1=\"{3}\" y2=\"{3}\"/>"
      "<line x1=\"{0}\" x2=\"{0}\" y1=\"{3}\" y2=\"{2}\"/></g>\n",
      Px(f.px0), Px(f.px1), Px(f.py1), Px(f.py0));
  return s;
}

// Step ticks along the bottom, FLOPs ticks along the top (when a step has one FLOPs cost), loss
// ticks on the left, and the axis titles.
std::string TickLabels(const Frame& f) {
  std::string s = "<g class=\"x-ticks\" font-size=\"13\" text-anchor=\"middle\">\n";
  for (double t : f.x_ticks) s += TickText(f.sx(t), f.py1 + 20, TickLabel(t, f.x_step), 13);
  s += "</g>\n";
  const double flops_per_step = f.r.flops_per_step;
  if (flops_per_step > 0) {
    s += "<g class=\"flops-ticks\" font-size=\"12\" text-anchor=\"middle\" fill=\"#59636e\">\n";
    for (double t : f.x_ticks) {
      s += TickText(f.sx(t), f.py0 - 9, t == 0 ? std::string("0") : FormatFlops(t * flops_per_step),
                    12, " fill=\"#59636e\"");
    }
    s += "</g>\n";
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\" fill=\"#59636e\">"
        "training compute (FLOPs = step \u00d7 {} per step)</text>\n",
        Px((f.px0 + f.px1) / 2), Px(f.py0 - 34), FormatFlops(flops_per_step));
  }
  s += "<g class=\"y-ticks\" font-size=\"13\" text-anchor=\"end\">\n";
  for (double t : f.y_ticks) {
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", Px(f.px0 - 8), Px(f.sy(t) + 4.5),
                     TickLabel(t, f.y_step));
  }
  s += "</g>\n";
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\">training step</text>\n",
      Px((f.px0 + f.px1) / 2), Px(kHeight - 16));
  s += fmt::format(
      "<text transform=\"translate({},{}) rotate(-90)\" font-size=\"14\" text-anchor=\"middle\">"
      "held-out loss (bits per byte)</text>\n",
      Px(22), Px((f.py0 + f.py1) / 2));
  return s;
}

std::string BandPath(const Frame& f, size_t a) {
  const Palette& c = ColourOf(a, f.r.baseline);
  const Band& band = f.bands[a];
  std::string path;
  for (size_t i = 0; i < f.steps.size(); ++i) {
    path += fmt::format("{}{},{} ", i == 0 ? "M" : "L", Px(f.sx(f.steps[i])), Px(f.sy(band.hi[i])));
  }
  for (size_t i = f.steps.size(); i-- > 0;) {
    path += fmt::format("L{},{} ", Px(f.sx(f.steps[i])), Px(f.sy(band.lo[i])));
  }
  path += "Z";
  return fmt::format(
      "<path class=\"seed-band\" data-arm=\"{}\" d=\"{}\" fill=\"{}\" fill-opacity=\"0.16\" "
      "stroke=\"none\"/>\n",
      EscapeHtml(f.r.arms[a].name), path, c.line);
}

std::string MeanPath(const Frame& f, size_t a) {
  const Palette& c = ColourOf(a, f.r.baseline);
  const Curve& m = f.r.mean_curves[a];
  std::string path;
  for (size_t i = 0; i < m.steps.size(); ++i) {
    path += fmt::format("{}{},{}", i == 0 ? "M" : " L", Px(f.sx(m.steps[i])), Px(f.sy(m.bpb[i])));
  }
  std::string s = fmt::format(
      "<path class=\"mean-curve\" data-arm=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"2.6\" stroke-linejoin=\"round\" stroke-linecap=\"round\"{}/>\n",
      EscapeHtml(f.r.arms[a].name), path, c.line, DashAttribute(c));
  if (m.steps.size() <= 60) {
    for (size_t i = 0; i < m.steps.size(); ++i) {
      s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>\n", Px(f.sx(m.steps[i])),
                       Px(f.sy(m.bpb[i])), c.line);
    }
  }
  return s;
}

// Bands, then mean curves on top, baseline last so it stays visible where arms overlap.
std::string Curves(const Frame& f) {
  std::vector<size_t> order;
  for (size_t a = 0; a < f.r.mean_curves.size(); ++a) {
    if (a != f.r.baseline) order.push_back(a);
  }
  order.push_back(f.r.baseline);
  std::string s = "<g clip-path=\"url(#plot-area)\">\n";
  for (size_t a : order) s += BandPath(f, a);
  for (size_t a : order) s += MeanPath(f, a);
  return s + "</g>\n";
}

std::string LStar(const Frame& f, double l_star) {
  return fmt::format(
             "<line id=\"l-star\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#1f2328\" "
             "stroke-width=\"1.4\" stroke-dasharray=\"6 4\"/>\n",
             Px(f.px0), Px(f.px1), Px(f.sy(l_star)), Px(f.sy(l_star))) +
         fmt::format(
             "<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"700\" "
             "paint-order=\"stroke\" stroke=\"#fcfcfd\" stroke-width=\"4\">L* = {:.4f} bits per "
             "byte</text>\n",
             Px(f.px0 + 8), Px(f.sy(l_star) - 8), l_star);
}

struct Marker {
  double step;
  size_t arm;
  std::string sub;   // "R" or "C": the label reads t<sub> = value
  std::string rest;  // what follows the subscript, e.g. " = 2,000"
};

// t_R for the baseline, t_C for each arm that caught up, in step order.
std::vector<Marker> MarkersOf(const trial::TrialResult& r) {
  std::vector<Marker> markers;
  const double t_r = r.comparisons[0].saving.t_baseline;
  markers.push_back({t_r, r.baseline, "R", " = " + FormatSteps(t_r)});
  for (const Comparison& c : r.comparisons) {
    if (!c.saving.caught_up) continue;
    size_t a = 0;
    while (a < r.arms.size() && r.arms[a].name != c.arm) ++a;
    markers.push_back({c.saving.t_arm, a, "C",
                       (r.comparisons.size() > 1 ? " (" + c.arm + ")" : std::string()) + " = " +
                           FormatSteps(c.saving.t_arm)});
  }
  std::sort(markers.begin(), markers.end(),
            [](const Marker& a, const Marker& b) { return a.step < b.step; });
  return markers;
}

// Vertical markers with their labels; labels that would overlap move down a row.
std::string Markers(const Frame& f, double l_star) {
  std::string s;
  std::vector<double> row_end;
  for (const Marker& m : MarkersOf(f.r)) {
    const Palette& c = ColourOf(m.arm, f.r.baseline);
    const double x = f.sx(m.step);
    const double width = EstimateTextWidth("t" + m.sub + m.rest, 14) + 10;
    const bool right_side = x + width <= f.px1;
    const double left = right_side ? x : x - width;
    size_t row = 0;
    while (row < row_end.size() && row_end[row] > left) ++row;
    if (row == row_end.size()) row_end.push_back(0);
    row_end[row] = right_side ? x + width : x;
    s += fmt::format(
        "<line class=\"t-marker\" data-arm=\"{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
        "stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"2 3\"/>\n",
        EscapeHtml(f.r.arms[m.arm].name), Px(x), Px(x), Px(f.py0), Px(f.py1), c.line);
    s += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#fff\" stroke=\"{}\" stroke-width=\"2.2\"/>\n",
        Px(x), Px(f.sy(l_star)), c.line);
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"700\" text-anchor=\"{}\" "
        "fill=\"{}\" style=\"fill:{}\" paint-order=\"stroke\" stroke=\"#fcfcfd\" "
        "stroke-width=\"4\">t<tspan font-size=\"11\" dy=\"4\">{}</tspan><tspan dy=\"-4\">{}"
        "</tspan></text>\n",
        Px(right_side ? x + 6 : x - 6), Px(f.py0 + 20 + 19.0 * static_cast<double>(row)),
        right_side ? "start" : "end", c.ink, c.ink, m.sub, EscapeHtml(m.rest));
  }
  return s;
}

}  // namespace

double EstimateTextWidth(std::string_view text, double font_size) {
  size_t chars = 0;
  for (char ch : text) chars += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return 0.72 * font_size * static_cast<double>(chars);
}

const Palette& ColourOf(size_t arm, size_t baseline) {
  const size_t slot = arm == baseline ? 0 : 1 + (arm < baseline ? arm : arm - 1) % 4;
  return kPalette[slot];
}

std::string DashAttribute(const Palette& palette) {
  return *palette.dash ? fmt::format(" stroke-dasharray=\"{}\"", palette.dash) : std::string();
}

Plot PlotSvg(const trial::TrialResult& r, const std::vector<trial::Arm>& arms) {
  const Frame f = Place(r, arms);
  Plot plot;
  plot.clipped = f.clipped;
  plot.clip_at = f.clip_at;
  plot.svg = Header(f) + GridAndAxes(f) + TickLabels(f) + Curves(f);
  if (!r.comparisons.empty()) {
    const double l_star = r.comparisons[0].saving.l_star;
    plot.svg += LStar(f, l_star) + Markers(f, l_star);
  }
  plot.svg += "</svg>\n";
  return plot;
}

}  // namespace preflight::report
