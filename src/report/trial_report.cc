#include "report/trial_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/version.h"

namespace preflight::report {
namespace {

using trial::Comparison;
using trial::Curve;

// Okabe-Ito colours (distinguishable with every common colour-vision deficiency). The line
// colour draws; the darker ink writes labels at >= 4.5:1 contrast on white.
struct Palette {
  const char* line;
  const char* ink;
  const char* dash;  // stroke-dasharray, so arms differ without colour too
};
constexpr Palette kPalette[] = {
    {"#0072B2", "#005a8c", ""},         // blue: the baseline
    {"#D55E00", "#a94a00", ""},         // vermillion: the first other arm
    {"#009E73", "#00704f", "7 4"},      // bluish green
    {"#CC79A7", "#9c4f7b", "2 3"},      // reddish purple
    {"#E69F00", "#8a5f00", "10 3 2 3"}  // orange
};

const Palette& ColourOf(size_t arm, size_t baseline) {
  // The baseline always gets the first colour; other arms take the rest in order.
  size_t slot = arm == baseline ? 0 : 1 + (arm < baseline ? arm : arm - 1) % 4;
  return kPalette[slot];
}

// Plot geometry in SVG user units; the svg scales to the page width.
constexpr double kWidth = 960, kHeight = 560;
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

std::string Css() {
  return R"(
:root { --ink:#1f2328; --muted:#59636e; --rule:#d8dee4; --paper:#ffffff; --bg:#f6f7f9; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font: 16px/1.55 "Liberation Sans", "DejaVu Sans", system-ui, -apple-system, "Segoe UI",
        Roboto, Arial, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 28px 40px; }
header h1 { font-size: 28px; line-height:1.2; margin: 0 0 4px; letter-spacing:-0.01em; }
header p.sub { margin:0; color:var(--muted); }
section { background:var(--paper); border:1px solid var(--rule); border-radius:10px;
  padding: 20px 24px; margin-top: 20px; }
h2 { font-size: 19px; margin: 0 0 12px; }
#headline { display:flex; gap:28px; align-items:flex-start; flex-wrap:wrap; }
#headline .big { min-width: 230px; }
#headline .value { font-size: 44px; font-weight: 700; line-height: 1.05;
  font-variant-numeric: tabular-nums; }
#headline .label { color: var(--muted); font-size: 14px; text-transform: uppercase;
  letter-spacing: 0.04em; }
#headline .detail { font-size: 15px; color: var(--muted); font-variant-numeric: tabular-nums; }
#headline p.summary { flex: 1 1 420px; margin: 0; font-size: 17px; }
.good { color:#1a7f37; } .bad { color:#b42318; } .flat { color:#8a5f00; }
#legend { display:flex; flex-wrap:wrap; gap: 6px 22px; margin: 0 0 8px; padding:0;
  list-style:none; font-size:15px; }
#legend li { display:flex; align-items:center; gap:8px; }
#legend .note { color: var(--muted); }
svg#curve-plot { width:100%; height:auto; display:block; }
svg text { font-family: "Liberation Sans", "DejaVu Sans", Arial, sans-serif; fill:#1f2328; }
figure { margin:0; }
figcaption { color:var(--muted); font-size:14px; margin-top:6px; }
table { border-collapse: collapse; width:100%; font-variant-numeric: tabular-nums; }
th, td { text-align:left; padding: 7px 10px; border-bottom:1px solid var(--rule);
  vertical-align: top; }
thead th { font-size:14px; color:var(--muted); font-weight:600; border-bottom:2px solid var(--rule); }
td.num, th.num { text-align:right; white-space:nowrap; }
tbody th { font-weight: 500; }
.sym { color: var(--muted); font-size: 14px; }
#lab-record dl { margin: 0; }
#lab-record dt { font-weight: 700; margin-top: 14px; }
#lab-record dd { margin: 4px 0 0; }
#lab-record p.summary { font-size: 17px; margin: 0; padding: 10px 14px; background:#f1f6fb;
  border-left: 4px solid #0072B2; border-radius: 4px; }
footer { color: var(--muted); font-size: 13px; margin-top: 22px; }
)";
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

std::string PlotSvg(const ReportData& d, bool* clipped_out, double* clip_at) {
  const trial::TrialResult& r = d.result;
  const size_t n_arms = r.mean_curves.size();
  const size_t points = r.mean_curves[r.baseline].steps.size();
  const std::vector<int64_t>& steps = r.mean_curves[r.baseline].steps;
  std::vector<Band> bands;
  for (size_t a = 0; a < n_arms; ++a) {
    bands.push_back(a < d.arms.size() ? SeedBand(d.arms[a], points)
                                      : Band{r.mean_curves[a].bpb, r.mean_curves[a].bpb});
  }

  // x: from step 0 (or the first eval) to the budget S.
  double x_lo = std::min<double>(0, static_cast<double>(steps.front()));
  double x_hi = std::max<double>(static_cast<double>(r.budget_steps), x_lo + 1);
  // y: every band below, and above everything after the first quarter of training, so that the
  // steep start does not squash the part where the arms are compared. The rest is clipped.
  double y_min = trial::kNever, y_max = -trial::kNever, y_all_max = -trial::kNever;
  const double late = x_lo + 0.25 * (x_hi - x_lo);
  for (size_t a = 0; a < n_arms; ++a) {
    for (size_t i = 0; i < points; ++i) {
      y_min = std::min(y_min, bands[a].lo[i]);
      y_all_max = std::max(y_all_max, bands[a].hi[i]);
      if (steps[i] >= late) y_max = std::max(y_max, bands[a].hi[i]);
    }
  }
  if (!std::isfinite(y_max)) y_max = y_all_max;
  if (!r.comparisons.empty()) {
    y_min = std::min(y_min, r.comparisons[0].saving.l_star);
    y_max = std::max(y_max, r.comparisons[0].saving.l_star);
  }
  if (y_max - y_min < 1e-9) {
    y_max += 0.05;
    y_min -= 0.05;
  }
  double pad = 0.06 * (y_max - y_min);
  std::vector<double> y_ticks = NiceTicks(y_min - pad, y_max + pad, 6);
  double y_step = y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 0.1;
  double y_lo = std::floor((y_min - pad) / y_step + 1e-9) * y_step;
  double y_hi = std::ceil((y_max + pad) / y_step - 1e-9) * y_step;
  y_ticks = NiceTicks(y_lo, y_hi, 6);
  *clipped_out = y_all_max > y_hi;
  *clip_at = y_hi;
  std::vector<double> x_ticks = NiceTicks(x_lo, x_hi, 6);
  double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1;

  const double px0 = kLeft, px1 = kWidth - kRight, py0 = kTop, py1 = kHeight - kBottom;
  Scale sx{x_lo, x_hi, px0, px1};
  Scale sy{y_lo, y_hi, py1, py0};

  std::string s;
  s += fmt::format(
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
      Px(px0), Px(py0), Px(px1 - px0), Px(py1 - py0));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fcfcfd\"/>\n",
                   Px(px0), Px(py0), Px(px1 - px0), Px(py1 - py0));

  // Grid and axes.
  s += "<g class=\"grid\" stroke=\"#e6e9ed\" stroke-width=\"1\">\n";
  for (double t : y_ticks) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", Px(px0), Px(px1),
                     Px(sy(t)), Px(sy(t)));
  }
  for (double t : x_ticks) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", Px(sx(t)), Px(sx(t)),
                     Px(py0), Px(py1));
  }
  s += "</g>\n";
  s += fmt::format(
      "<g class=\"axes\" stroke=\"#59636e\" stroke-width=\"1\"><line x1=\"{0}\" x2=\"{1}\" "
      "y1=\"{2}\" y2=\"{2}\"/><line x1=\"{0}\" x2=\"{1}\" y1=\"{3}\" y2=\"{3}\"/>"
      "<line x1=\"{0}\" x2=\"{0}\" y1=\"{3}\" y2=\"{2}\"/></g>\n",
      Px(px0), Px(px1), Px(py1), Px(py0));
  s += "<g class=\"x-ticks\" font-size=\"13\" text-anchor=\"middle\">\n";
  for (double t : x_ticks) {
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", Px(sx(t)), Px(py1 + 20),
                     TickLabel(t, x_step));
  }
  s += "</g>\n";
  if (r.flops_per_step > 0) {
    s += "<g class=\"flops-ticks\" font-size=\"12\" text-anchor=\"middle\" fill=\"#59636e\">\n";
    for (double t : x_ticks) {
      s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#59636e\">{}</text>\n", Px(sx(t)),
                       Px(py0 - 9), t == 0 ? std::string("0") : FormatFlops(t * r.flops_per_step));
    }
    s += "</g>\n";
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\" fill=\"#59636e\">"
        "training compute (FLOPs = step \u00d7 {} per step)</text>\n",
        Px((px0 + px1) / 2), Px(py0 - 34), FormatFlops(r.flops_per_step));
  }
  s += "<g class=\"y-ticks\" font-size=\"13\" text-anchor=\"end\">\n";
  for (double t : y_ticks) {
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", Px(px0 - 8), Px(sy(t) + 4.5),
                     TickLabel(t, y_step));
  }
  s += "</g>\n";
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\">training step</text>\n",
      Px((px0 + px1) / 2), Px(kHeight - 16));
  s += fmt::format(
      "<text transform=\"translate({},{}) rotate(-90)\" font-size=\"14\" text-anchor=\"middle\">"
      "held-out loss (bits per byte)</text>\n",
      Px(22), Px((py0 + py1) / 2));

  // Bands, then mean curves on top, baseline last so it stays visible where arms overlap.
  std::vector<size_t> order;
  for (size_t a = 0; a < n_arms; ++a) {
    if (a != r.baseline) order.push_back(a);
  }
  order.push_back(r.baseline);
  s += "<g clip-path=\"url(#plot-area)\">\n";
  for (size_t a : order) {
    const Palette& c = ColourOf(a, r.baseline);
    std::string path;
    for (size_t i = 0; i < points; ++i) {
      path += fmt::format("{}{},{} ", i == 0 ? "M" : "L", Px(sx(steps[i])), Px(sy(bands[a].hi[i])));
    }
    for (size_t i = points; i-- > 0;) {
      path += fmt::format("L{},{} ", Px(sx(steps[i])), Px(sy(bands[a].lo[i])));
    }
    path += "Z";
    s += fmt::format(
        "<path class=\"seed-band\" data-arm=\"{}\" d=\"{}\" fill=\"{}\" fill-opacity=\"0.16\" "
        "stroke=\"none\"/>\n",
        EscapeHtml(r.arms[a].name), path, c.line);
  }
  for (size_t a : order) {
    const Palette& c = ColourOf(a, r.baseline);
    const Curve& m = r.mean_curves[a];
    std::string path;
    for (size_t i = 0; i < m.steps.size(); ++i) {
      path += fmt::format("{}{},{}", i == 0 ? "M" : " L", Px(sx(m.steps[i])), Px(sy(m.bpb[i])));
    }
    s += fmt::format(
        "<path class=\"mean-curve\" data-arm=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"2.6\" stroke-linejoin=\"round\" stroke-linecap=\"round\"{}/>\n",
        EscapeHtml(r.arms[a].name), path, c.line,
        *c.dash ? fmt::format(" stroke-dasharray=\"{}\"", c.dash) : std::string());
    if (m.steps.size() <= 60) {
      for (size_t i = 0; i < m.steps.size(); ++i) {
        s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>\n", Px(sx(m.steps[i])),
                         Px(sy(m.bpb[i])), c.line);
      }
    }
  }
  s += "</g>\n";

  if (!r.comparisons.empty()) {
    const double l_star = r.comparisons[0].saving.l_star;
    s += fmt::format(
        "<line id=\"l-star\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#1f2328\" "
        "stroke-width=\"1.4\" stroke-dasharray=\"6 4\"/>\n",
        Px(px0), Px(px1), Px(sy(l_star)), Px(sy(l_star)));
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"700\" "
        "paint-order=\"stroke\" stroke=\"#fcfcfd\" stroke-width=\"4\">L* = {:.4f} bits per byte"
        "</text>\n",
        Px(px0 + 8), Px(sy(l_star) - 8), l_star);

    // Vertical markers: t_R for the baseline, t_C for each arm that caught up. Labels that
    // would overlap move down a row.
    struct Marker {
      double step;
      size_t arm;
      std::string sub;   // "R" or "C": the label reads t<sub> = value
      std::string rest;  // what follows the subscript, e.g. " = 2,000"
    };
    std::vector<Marker> markers;
    markers.push_back({r.comparisons[0].saving.t_baseline, r.baseline, "R",
                       " = " + FormatSteps(r.comparisons[0].saving.t_baseline)});
    for (size_t k = 0; k < r.comparisons.size(); ++k) {
      const Comparison& c = r.comparisons[k];
      if (!c.saving.caught_up) continue;
      size_t a = 0;
      while (a < r.arms.size() && r.arms[a].name != c.arm) ++a;
      markers.push_back({c.saving.t_arm, a, "C",
                         (r.comparisons.size() > 1 ? " (" + c.arm + ")" : std::string()) + " = " +
                             FormatSteps(c.saving.t_arm)});
    }
    std::sort(markers.begin(), markers.end(),
              [](const Marker& a, const Marker& b) { return a.step < b.step; });
    std::vector<double> row_end;
    for (const Marker& m : markers) {
      const Palette& c = ColourOf(m.arm, r.baseline);
      double x = sx(m.step);
      double width = 8.0 * static_cast<double>(m.rest.size() + 2) + 10;
      bool right_side = x + width <= px1;
      double left = right_side ? x : x - width;
      double right = right_side ? x + width : x;
      size_t row = 0;
      while (row < row_end.size() && row_end[row] > left) ++row;
      if (row == row_end.size()) row_end.push_back(0);
      row_end[row] = right;
      s += fmt::format(
          "<line class=\"t-marker\" data-arm=\"{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
          "stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"2 3\"/>\n",
          EscapeHtml(r.arms[m.arm].name), Px(x), Px(x), Px(py0), Px(py1), c.line);
      s += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#fff\" stroke=\"{}\" "
          "stroke-width=\"2.2\"/>\n",
          Px(x), Px(sy(l_star)), c.line);
      s += fmt::format(
          "<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"700\" text-anchor=\"{}\" "
          "fill=\"{}\" style=\"fill:{}\" paint-order=\"stroke\" stroke=\"#fcfcfd\" "
          "stroke-width=\"4\">t<tspan font-size=\"11\" dy=\"4\">{}</tspan><tspan dy=\"-4\">{}"
          "</tspan></text>\n",
          Px(right_side ? x + 6 : x - 6), Px(py0 + 20 + 19.0 * row), right_side ? "start" : "end",
          c.ink, c.ink, m.sub, EscapeHtml(m.rest));
    }
  }
  s += "</svg>\n";
  return s;
}

std::string ClassFor(const trial::Saving& s, double value) {
  if (!s.caught_up || std::isnan(value)) return "bad";
  return value > 0 ? "good" : (value == 0 ? "flat" : "bad");
}

std::string IntervalText(const trial::Interval& ci) {
  if (std::isnan(ci.lo) || std::isnan(ci.hi)) return "undefined";
  if (!std::isfinite(ci.hi)) return "never caught up";
  std::string lo = std::isfinite(ci.lo) ? FormatPercent(ci.lo) : "never caught up";
  std::string hi = std::isfinite(ci.hi) ? FormatPercent(ci.hi) : "never caught up";
  return lo + " to " + hi;
}

std::string CoreSeconds(double v) { return fmt::format("{:.4g} core-s", v); }

std::string Headline(const ReportData& d) {
  const trial::TrialResult& r = d.result;
  std::string s = "<section id=\"headline\" aria-label=\"Headline\">\n";
  if (!r.comparisons.empty()) {
    const Comparison& c = r.comparisons[0];
    const double level = r.bootstrap.level * 100;
    if (c.saving.caught_up) {
      s += fmt::format(
          "<div class=\"big\"><div class=\"label\">{}</div>"
          "<div class=\"value {}\">{}</div><div class=\"detail\">{:g}% interval {}</div></div>\n",
          d.schedule_trial ? "Training FLOPs saved to L*, net (" + EscapeHtml(c.arm) + ")"
                           : std::string("Compute saved, net"),
          ClassFor(c.saving, c.saving.net), FormatPercent(c.saving.net), level,
          IntervalText(c.ci.net));
      s += fmt::format(
          "<div class=\"big\"><div class=\"label\">{}</div>"
          "<div class=\"value {}\">{}</div><div class=\"detail\">{:g}% interval {}</div></div>\n",
          d.schedule_trial ? "Gross (before the trigger's cost)" : "Gross (before selection cost)",
          ClassFor(c.saving, c.saving.gross), FormatPercent(c.saving.gross), level,
          IntervalText(c.ci.gross));
    } else {
      s += fmt::format(
          "<div class=\"big\"><div class=\"label\">Compute saved</div>"
          "<div class=\"value bad\">Never caught up</div><div class=\"detail\">{} did not reach "
          "L* within {} steps</div></div>\n",
          EscapeHtml(c.arm), FormatSteps(static_cast<double>(r.budget_steps)));
    }
  }
  if (d.lab_record.contains("summary") && d.lab_record["summary"].is_string()) {
    s +=
        "<p class=\"summary\">" + EscapeHtml(d.lab_record["summary"].get<std::string>()) + "</p>\n";
  }
  s += "</section>\n";
  return s;
}

std::string Legend(const ReportData& d) {
  const trial::TrialResult& r = d.result;
  std::string s = "<ul id=\"legend\">\n";
  for (size_t a = 0; a < r.arms.size(); ++a) {
    const Palette& c = ColourOf(a, r.baseline);
    size_t seeds = a < d.arms.size() ? d.arms[a].curves.size() : 1;
    std::string note = a == r.baseline ? "baseline, sets L*" : "";
    for (const Comparison& k : r.comparisons) {
      if (k.arm == r.arms[a].name && !k.saving.caught_up) note = "never caught up";
    }
    std::string kind =
        r.arms[a].data_kind +
        (r.arms[a].schedule.empty() ? std::string() : ", schedule " + r.arms[a].schedule);
    s += fmt::format(
        "<li><svg width=\"34\" height=\"14\" aria-hidden=\"true\"><rect x=\"0\" y=\"1\" "
        "width=\"34\" height=\"12\" fill=\"{0}\" fill-opacity=\"0.16\"/><line x1=\"0\" x2=\"34\" "
        "y1=\"7\" y2=\"7\" stroke=\"{0}\" stroke-width=\"3\"{1}/></svg><span><strong>{2}</strong> "
        "<span class=\"note\">({3}; mean of {4} seed{5}{6})</span></span></li>\n",
        c.line, *c.dash ? fmt::format(" stroke-dasharray=\"{}\"", c.dash) : std::string(),
        EscapeHtml(r.arms[a].name), EscapeHtml(kind), seeds, seeds == 1 ? "" : "s",
        note.empty() ? "" : "; " + note);
  }
  s += "</ul>\n";
  return s;
}

std::string NumbersTable(const ReportData& d) {
  const trial::TrialResult& r = d.result;
  std::string s = "<section aria-labelledby=\"numbers-title\">\n";
  s += "<h2 id=\"numbers-title\">The numbers</h2>\n<table id=\"numbers\">\n<thead><tr><th></th>";
  for (const Comparison& c : r.comparisons) {
    s += fmt::format("<th class=\"num\">{} vs {}</th>", EscapeHtml(c.arm), EscapeHtml(c.baseline));
  }
  s += "</tr></thead>\n<tbody>\n";
  auto row = [&](const std::string& name, const std::string& symbol, auto value) {
    s += "<tr><th scope=\"row\">" + name +
         (symbol.empty() ? "" : " <span class=\"sym\">" + symbol + "</span>") + "</th>";
    for (const Comparison& c : r.comparisons) s += "<td class=\"num\">" + value(c) + "</td>";
    s += "</tr>\n";
  };
  const int level = static_cast<int>(std::lround(r.bootstrap.level * 100));
  row("Best mean loss of the baseline", "L*",
      [](const Comparison& c) { return fmt::format("{:.4f} bpb", c.saving.l_star); });
  row("Steps for the baseline to reach L*", "t<sub>R</sub>",
      [](const Comparison& c) { return FormatSteps(c.saving.t_baseline); });
  row("Steps for the arm to reach L*", "t<sub>C</sub>", [](const Comparison& c) {
    return c.saving.caught_up ? FormatSteps(c.saving.t_arm) : std::string("never caught up");
  });
  row("Compute saved, gross", "1 \u2212 t<sub>C</sub>/t<sub>R</sub>",
      [](const Comparison& c) { return FormatPercent(c.saving.gross); });
  row(fmt::format("{}% interval, gross", level), "",
      [](const Comparison& c) { return IntervalText(c.ci.gross); });
  row("Compute saved, net of producing each arm",
      "1 \u2212 (t<sub>C</sub>f + c<sub>C</sub>)/(t<sub>R</sub>f + c<sub>R</sub>)",
      [](const Comparison& c) { return FormatPercent(c.saving.net); });
  row(fmt::format("{}% interval, net", level), "",
      [](const Comparison& c) { return IntervalText(c.ci.net); });
  row("Cost of producing the arm (selection)", "c<sub>C</sub>",
      [](const Comparison& c) { return CoreSeconds(c.arm_cost_core_seconds); });
  row("Cost of producing the baseline", "c<sub>R</sub>",
      [](const Comparison& c) { return CoreSeconds(c.baseline_cost_core_seconds); });
  row("Training cost per step", "f",
      [&](const Comparison&) { return CoreSeconds(r.core_seconds_per_step); });
  row("FLOPs per step", "", [&](const Comparison&) { return FormatFlops(r.flops_per_step); });
  row("Training FLOPs to L*, baseline", "",
      [](const Comparison& c) { return FormatFlops(c.flops_to_baseline); });
  row("Training FLOPs to L*, arm", "", [](const Comparison& c) {
    return c.saving.caught_up ? FormatFlops(c.flops_to_arm) : std::string("never");
  });
  row("Step budget", "S",
      [&](const Comparison&) { return FormatSteps(static_cast<double>(r.budget_steps)); });
  row("Bootstrap resamples never caught up", "", [](const Comparison& c) {
    return fmt::format("{} of {}", c.ci.never_caught_up, c.ci.resamples);
  });
  s += "</tbody>\n</table>\n";
  s += fmt::format(
      "<p class=\"sym\">Interval: {} percentile bootstrap resamples of the seeds ({}), splitmix64 "
      "seed {:#x}; a resample that never caught up counts as the lowest saving.</p>\n",
      r.bootstrap.resamples,
      r.bootstrap.paired ? "seed pairs resampled together" : "resampled within each arm",
      r.bootstrap.seed);

  // Per-seed pairs.
  s += "<h2 id=\"per-seed-title\">Per seed pair</h2>\n<table id=\"per-seed\">\n<thead><tr>"
       "<th>arm</th><th class=\"num\">seed</th><th class=\"num\">L*</th>"
       "<th class=\"num\">t<sub>R</sub></th><th class=\"num\">t<sub>C</sub></th>"
       "<th class=\"num\">gross</th><th class=\"num\">net</th></tr></thead>\n<tbody>\n";
  for (const Comparison& c : r.comparisons) {
    for (const trial::SeedSaving& p : c.per_seed) {
      s += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4f}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td></tr>\n",
          EscapeHtml(c.arm), p.seed, p.saving.l_star, FormatSteps(p.saving.t_baseline),
          p.saving.caught_up ? FormatSteps(p.saving.t_arm) : std::string("never"),
          FormatPercent(p.saving.gross), FormatPercent(p.saving.net));
    }
  }
  s += "</tbody>\n</table>\n</section>\n";
  return s;
}

std::string ScheduleTables(const ReportData& d) {
  const trial::ScheduleTrialResult& r = d.schedule;
  const int level = static_cast<int>(std::lround(r.bootstrap.level * 100));
  std::string s = "<section aria-labelledby=\"numbers-title\">\n";
  s += "<h2 id=\"numbers-title\">The numbers (compute axis: cumulative training FLOPs)</h2>\n"
       "<table id=\"numbers\">\n<thead><tr><th></th>";
  for (const auto& c : r.comparisons) {
    s += fmt::format("<th class=\"num\">{}</th>", EscapeHtml(c.schedule));
  }
  s += "</tr></thead>\n<tbody>\n";
  auto row = [&](const std::string& name, const std::string& symbol, auto value) {
    s += "<tr><th scope=\"row\">" + name +
         (symbol.empty() ? "" : " <span class=\"sym\">" + symbol + "</span>") + "</th>";
    for (const auto& c : r.comparisons) s += "<td class=\"num\">" + value(c) + "</td>";
    s += "</tr>\n";
  };
  using SC = trial::ScheduleComparison;
  auto pct = [](double v) { return FormatPercent(v); };
  row("Kind", "", [](const SC& c) { return EscapeHtml(c.kind); });
  row("Frozen from step (mean over runs)", "", [](const SC& c) {
    if (c.kind == "earlystop") return fmt::format("{} runs stopped early", c.stopped_runs);
    return c.frozen_runs > 0 ? fmt::format("{} ({} runs)", FormatSteps(c.frozen_at), c.frozen_runs)
                             : std::string("never");
  });
  row("Best mean loss of the baseline", "L*",
      [](const SC& c) { return fmt::format("{:.4f} bpb", c.l_star); });
  row("Baseline reaches L* at step", "t<sub>R</sub>",
      [](const SC& c) { return FormatSteps(c.t_baseline); });
  row("Arm reaches L* at step", "t<sub>C</sub>", [](const SC& c) {
    return c.caught_up ? FormatSteps(c.t_arm) : std::string("never caught up");
  });
  row("Training FLOPs to L*, baseline", "F<sub>R</sub>",
      [](const SC& c) { return FormatFlops(c.flops_baseline); });
  row("Training FLOPs to L*, arm", "F<sub>C</sub>",
      [](const SC& c) { return c.caught_up ? FormatFlops(c.flops_arm) : std::string("never"); });
  row("Trigger's own cost per run", "", [](const SC& c) {
    return fmt::format("{} ({:.3g} core-s)", FormatFlops(c.trigger_flops), c.trigger_core_seconds);
  });
  row("FLOPs saved, gross", "1 \u2212 F<sub>C</sub>/F<sub>R</sub>",
      [&](const SC& c) { return pct(c.gross); });
  row(fmt::format("{}% interval, gross", level), "",
      [](const SC& c) { return IntervalText(c.ci.gross); });
  row("FLOPs saved, net of the trigger", "", [&](const SC& c) { return pct(c.net); });
  row(fmt::format("{}% interval, net", level), "",
      [](const SC& c) { return IntervalText(c.ci.net); });
  row("Core-seconds saved (measured, trigger charged)", "",
      [&](const SC& c) { return pct(c.net_core_seconds); });
  row("Wall time saved (measured, trigger charged)", "",
      [&](const SC& c) { return pct(c.net_wall); });
  row("Training FLOPs of the whole run, arm / baseline", "", [](const SC& c) {
    return FormatFlops(c.total_flops_arm) + " / " + FormatFlops(c.total_flops_baseline);
  });
  row("Final loss minus baseline's at equal FLOPs", "",
      [](const SC& c) { return fmt::format("{:+.4f} bpb", c.loss_at_equal_compute); });
  row("Bootstrap resamples never caught up", "",
      [](const SC& c) { return fmt::format("{} of {}", c.ci.never_caught_up, c.ci.resamples); });
  s += "</tbody>\n</table>\n";
  s += fmt::format(
      "<p class=\"sym\">Interval: {} percentile bootstrap resamples of the seed pairs (same "
      "data and seeds in both arms), splitmix64 seed {:#x}. Both arms train on the same data, "
      "so its cost is not charged.</p>\n",
      r.bootstrap.resamples, r.bootstrap.seed);
  s += "<h2 id=\"per-seed-title\">Per seed pair</h2>\n<table id=\"per-seed\">\n<thead><tr>"
       "<th>schedule</th><th class=\"num\">seed</th><th class=\"num\">frozen at</th>"
       "<th class=\"num\">steps</th><th class=\"num\">gross</th><th class=\"num\">net</th>"
       "<th class=\"num\">loss at equal FLOPs</th></tr></thead>\n<tbody>\n";
  for (const auto& c : r.comparisons) {
    for (const auto& p : c.per_seed) {
      s += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{:+.4f} bpb</td></tr>\n",
          EscapeHtml(c.schedule), p.seed,
          p.frozen_at >= 0 ? FormatSteps(static_cast<double>(p.frozen_at)) : std::string("never"),
          FormatSteps(static_cast<double>(p.steps)), FormatPercent(p.gross), FormatPercent(p.net),
          p.loss_at_equal_compute);
    }
  }
  s += "</tbody>\n</table>\n</section>\n";
  s += "<section id=\"schedules\" aria-labelledby=\"schedules-title\">\n"
       "<h2 id=\"schedules-title\">Fixed against adaptive</h2>\n";
  if (r.verdict.best_fixed >= 0 && r.verdict.best_adaptive >= 0) {
    s += "<p>" + EscapeHtml(r.verdict.text) + "</p>\n";
  } else {
    s += "<p>This trial did not put a fixed step beside an adaptive trigger; add both (e.g. "
         "<code>--sweep</code> and an adaptive <code>--arm-b</code>) to compare them.</p>\n";
  }
  s += "</section>\n";
  return s;
}

std::string LabRecord(const nlohmann::json& rec, bool schedule) {
  if (!rec.is_object() || rec.empty()) return "";
  auto text = [&](const char* key) {
    return rec.contains(key) && rec[key].is_string() ? EscapeHtml(rec[key].get<std::string>())
                                                     : std::string();
  };
  std::string s = "<section id=\"lab-record\" aria-labelledby=\"lab-title\">\n";
  s += "<h2 id=\"lab-title\">Lab record</h2>\n";
  s += "<p class=\"summary\">" + text("summary") + "</p>\n<dl>\n";
  s += "<dt>Question</dt><dd>" + text("question") + "</dd>\n";
  s += std::string("<dt>What would have proved ") + (schedule ? "the schedule" : "curation") +
       " wrong (fixed before training)</dt><dd>" + text("falsifier") + "</dd>\n";
  s += "<dt>Finding</dt><dd>" + text("finding") + "</dd>\n";
  if (rec.contains("does_not_show") && rec["does_not_show"].is_array()) {
    s += "<dt>What this does not show</dt><dd><ul>\n";
    for (const auto& item : rec["does_not_show"]) {
      if (item.is_string()) s += "<li>" + EscapeHtml(item.get<std::string>()) + "</li>\n";
    }
    s += "</ul></dd>\n";
  }
  s += "</dl>\n</section>\n";
  return s;
}

}  // namespace

std::string EscapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo) || target < 1) return {lo};
  double raw = (hi - lo) / target;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power * 10;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * 0.999) {
      step = m * power;
      break;
    }
  }
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    double v = k * step;
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string RenderTrialReport(const ReportData& d) {
  bool clipped = false;
  double clip_at = 0;
  std::string title = d.title.empty() ? "trial" : d.title;
  std::string s;
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += "<title>preflight trial: " + EscapeHtml(title) + "</title>\n";
  s += "<style>" + Css() + "</style>\n</head>\n<body>\n<main>\n";
  s += "<header><h1>preflight trial</h1><p class=\"sub\">" + EscapeHtml(title) + "</p></header>\n";
  if (d.result.mean_curves.size() < 2) {
    s += "<section><p>This trial has fewer than two arms: nothing to compare.</p></section>\n";
  } else {
    s += Headline(d);
    std::string plot = PlotSvg(d, &clipped, &clip_at);
    s += "<section aria-labelledby=\"plot-heading\">\n<h2 id=\"plot-heading\">Held-out loss "
         "during training</h2>\n";
    s += Legend(d);
    s += "<figure>\n" + plot;
    s += "<figcaption>Lines: each arm's mean over seeds; shaded: the range from the best to the "
         "worst seed at each eval step. Dashed: L*, the baseline's best mean loss. Dotted "
         "verticals: the steps at which each arm first reaches L* (t<sub>C</sub> is "
         "interpolated between eval points).";
    if (clipped) {
      s += fmt::format(" Losses above {:g} bits per byte (the first steps) run off the top.",
                       clip_at);
    }
    s += "</figcaption>\n</figure>\n</section>\n";
    s += d.schedule_trial ? ScheduleTables(d) : NumbersTable(d);
  }
  if (!d.facts.empty()) {
    s += "<section aria-labelledby=\"facts-title\"><h2 id=\"facts-title\">Setup</h2>\n"
         "<table id=\"facts\"><tbody>\n";
    for (const auto& [k, v] : d.facts) {
      s += "<tr><th scope=\"row\">" + EscapeHtml(k) + "</th><td>" + EscapeHtml(v) + "</td></tr>\n";
    }
    s += "</tbody></table></section>\n";
  }
  s += LabRecord(d.lab_record, d.schedule_trial);
  s += fmt::format(
      "<footer>Written by preflight {} ({}){}. Self-contained: no scripts, nothing "
      "fetched.</footer>\n",
      kVersion, kGitCommit, d.created_at.empty() ? "" : " on " + EscapeHtml(d.created_at));
  s += "</main>\n</body>\n</html>\n";
  return s;
}

}  // namespace preflight::report
