#include "report/ladder_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "narrate/keep_text.h"
#include "report/trial_report.h"

namespace preflight::report {
namespace {

constexpr double kWidth = 860, kHeight = 460;
constexpr double kLeft = 78, kRight = 30, kTop = 30, kBottom = 58;

struct Axis {
  double d0, d1, r0, r1;
  double operator()(double v) const { return r0 + (v - d0) / (d1 - d0) * (r1 - r0); }
};

std::string Px(double v) { return fmt::format("{:.1f}", v); }

double Log(double flops) { return std::log10(std::max(flops, 1.0)); }

// The trend's fitted saving at log10 FLOPs x.
double TrendAt(const trial::LadderTrend& t, double x) {
  return t.level_at_mean + t.slope_per_decade * (x - t.x_mean);
}

struct Ranges {
  double x0, x1, y0, y1;
};

Ranges PlaceAxes(const LadderPageData& d) {
  double x0 = 1e300, x1 = -1e300, y0 = 0, y1 = 0;
  auto take_y = [&](double v) {
    if (std::isfinite(v)) {
      y0 = std::min(y0, v);
      y1 = std::max(y1, v);
    }
  };
  for (const LadderPageRung& r : d.rungs) {
    x0 = std::min(x0, Log(r.flops));
    x1 = std::max(x1, Log(r.flops));
    take_y(r.net);
    take_y(r.ci_lo);
    take_y(r.ci_hi);
  }
  if (d.projection) {
    x0 = std::min(x0, Log(d.projection->flops));
    x1 = std::max(x1, Log(d.projection->flops));
    take_y(d.projection->saving);
    take_y(d.projection->lo);
    take_y(d.projection->hi);
  }
  if (d.trend.fitted) {
    take_y(TrendAt(d.trend, x0));
    take_y(TrendAt(d.trend, x1));
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  const double pad_x = 0.08 * (x1 - x0), pad_y = 0.08 * std::max(y1 - y0, 0.05);
  return {x0 - pad_x, x1 + pad_x, std::max(-1.0, y0 - pad_y), std::min(1.0, y1 + pad_y)};
}

// x ticks (log10 FLOPs): whole decades when the plot spans two or more, else the rungs' own
// compute (and the projection's), so that every label is a round or a measured number.
std::vector<double> XTicks(const LadderPageData& d, const Ranges& g) {
  std::vector<double> ticks;
  if (g.x1 - g.x0 >= 2) {
    for (double x = std::ceil(g.x0); x <= g.x1; x += 1) ticks.push_back(x);
    return ticks;
  }
  for (const LadderPageRung& r : d.rungs) ticks.push_back(Log(r.flops));
  if (d.projection) ticks.push_back(Log(d.projection->flops));
  return ticks;
}

std::string Grid(const LadderPageData& d, const Ranges& g, const Axis& sx, const Axis& sy) {
  std::string out;
  for (double y : NiceTicks(g.y0, g.y1, 6)) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        Px(kLeft), Px(kWidth - kRight), Px(sy(y)), Px(kLeft - 6), Px(sy(y) + 4), FormatPercent(y));
  }
  for (double x : XTicks(d, g)) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        Px(sx(x)), Px(kTop), Px(kHeight - kBottom), Px(kHeight - kBottom + 18),
        FormatFlops(std::pow(10.0, x)));
  }
  if (g.y0 < 0 && g.y1 > 0) {
    out += fmt::format("<line id=\"zero\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>\n",
                       Px(kLeft), Px(kWidth - kRight), Px(sy(0)));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">training FLOPs of one run (log scale)</text>"
      "<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">net compute "
      "saved</text>\n",
      Px((kLeft + kWidth - kRight) / 2), Px(kHeight - 12), Px((kTop + kHeight - kBottom) / 2),
      Px((kTop + kHeight - kBottom) / 2));
  return out;
}

// An error bar from lo to hi at x; an end that is not finite runs to the edge, dashed.
std::string Bar(double x, double lo, double hi, const Axis& sy, const Ranges& g,
                const std::string& cls) {
  const bool open = !std::isfinite(lo) || !std::isfinite(hi);
  const double ylo = std::isfinite(lo) ? std::max(lo, g.y0) : g.y0;
  const double yhi = std::isfinite(hi) ? std::min(hi, g.y1) : g.y0;
  return fmt::format("<line class=\"{0}\" x1=\"{1}\" x2=\"{1}\" y1=\"{2}\" y2=\"{3}\"{4}/>\n", cls,
                     Px(x), Px(sy(ylo)), Px(sy(std::max(ylo, yhi))),
                     open ? " stroke-dasharray=\"4 3\"" : "");
}

std::string PlotSvg(const LadderPageData& d) {
  const Ranges g = PlaceAxes(d);
  const Axis sx{g.x0, g.x1, kLeft, kWidth - kRight};
  const Axis sy{g.y0, g.y1, kHeight - kBottom, kTop};
  std::string out = fmt::format(
      "<svg id=\"ladder-plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"net compute saved "
      "per rung against training compute\">\n",
      kWidth, kHeight);
  out += Grid(d, g, sx, sy);
  if (d.trend.fitted) {
    const double a = std::clamp(TrendAt(d.trend, g.x0), g.y0, g.y1);
    const double b = std::clamp(TrendAt(d.trend, g.x1), g.y0, g.y1);
    out += fmt::format("<line id=\"trend-line\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                       Px(sx(g.x0)), Px(sy(a)), Px(sx(g.x1)), Px(sy(b)));
  }
  for (size_t i = 0; i < d.rungs.size(); ++i) {
    const LadderPageRung& r = d.rungs[i];
    const double x = sx(Log(r.flops));
    out += Bar(x, r.ci_lo, r.ci_hi, sy, g, "ci-bar");
    const double y = std::clamp(std::isfinite(r.net) ? r.net : g.y0, g.y0, g.y1);
    out += fmt::format(
        "<circle class=\"rung{}\" data-rung=\"{}\" cx=\"{}\" cy=\"{}\" r=\"6\"><title>rung {}: "
        "{}, {} steps: net {}{}</title></circle>\n",
        r.caught_up ? "" : " bound", i + 1, Px(x), Px(sy(y)), i + 1, EscapeHtml(r.model), r.steps,
        r.caught_up ? "" : "at most ", FormatPercent(r.net),
        r.caught_up ? "" : " (never caught up)");
  }
  if (d.projection) {
    const trial::LadderProjection& p = *d.projection;
    const double x = sx(Log(p.flops)), y = sy(std::clamp(p.saving, g.y0, g.y1));
    out += Bar(x, p.lo, p.hi, sy, g, "projection-bar");
    out += fmt::format(
        "<path class=\"projection\" d=\"M{0} {1} l7 7 l-7 7 l-7 -7 z\"/><text "
        "class=\"projection-label\" x=\"{0}\" y=\"{2}\" text-anchor=\"end\">"
        "PROJECTION</text>\n",
        Px(x), Px(y - 7), Px(y - 14));
  }
  return out + "</svg>\n";
}

// "26.3%"; an interval end that never caught up reads "never".
std::string End(double v) { return std::isfinite(v) ? FormatPercent(v) : std::string("never"); }

std::string RungsTable(const LadderPageData& d) {
  std::string out =
      "<table id=\"rungs\"><thead><tr><th>rung</th><th>model</th><th>steps</th><th>FLOPs per "
      "run</th><th>gross</th><th>net</th><th>net 95% interval</th><th>regime</th><th>trial "
      "receipt</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < d.rungs.size(); ++i) {
    const LadderPageRung& r = d.rungs[i];
    const std::string regime =
        !r.informative ? "not checked" : (*r.informative ? "informative" : "not informative");
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} to {}</td>"
        "<td>{}</td><td><code>{}</code></td></tr>\n",
        i + 1, EscapeHtml(r.model), FormatInt(r.steps), FormatFlops(r.flops),
        r.caught_up ? FormatPercent(r.gross) : "never caught up",
        fmt::format("{}{}", r.caught_up ? "" : "&le; ", FormatPercent(r.net)), End(r.ci_lo),
        End(r.ci_hi), regime, EscapeHtml(r.receipt.substr(0, 16)));
  }
  return out + "</tbody></table>\n";
}

std::string TrendSection(const LadderPageData& d) {
  const trial::LadderTrend& t = d.trend;
  std::string out = "<p id=\"trend\">";
  if (t.fitted) {
    out += fmt::format(
        "Trend: <strong>{}</strong>. The net saving changes by {:+.1f} points per decade of "
        "compute (95% interval {:+.1f} to {:+.1f}; weighted least squares over {} rungs).",
        t.direction, 100 * t.slope_per_decade, 100 * t.lo, 100 * t.hi, t.rungs_fitted);
  } else {
    out += fmt::format("Trend: <strong>unclear</strong> ({} rungs with a saving to fit).",
                       t.rungs_fitted);
  }
  for (const std::string& note : t.notes) out += fmt::format(" {}.", EscapeHtml(note));
  out += "</p>\n";
  if (d.projection) {
    const trial::LadderProjection& p = *d.projection;
    out += fmt::format(
        "<p id=\"projection\"><strong>PROJECTION</strong> (not measured) at {} per run: net "
        "saving {} (95% {} to {}), assuming {}. {}</p>\n",
        FormatFlops(p.flops), FormatPercent(p.saving), FormatPercent(p.lo), FormatPercent(p.hi),
        EscapeHtml(p.assumption), EscapeHtml(p.note));
  }
  return out;
}

// --- A keep ladder: each fraction's end loss across rungs ------------------------------------

constexpr double kKeepTop = kTop + 28;  // room for the legend above the plot
constexpr const char* kKeepColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                        "#E69F00", "#56B4E9", "#999999", "#000000"};

std::string KeepLabel(double keep) {
  return keep >= 1 ? std::string("1 (whole pool)") : fmt::format("{:g}", keep);
}

// The plot's y: an arm's end loss minus the baseline's (arms[0]) at the same rung, so that the
// fractions' differences show at every rung whatever the loss's own scale.
double Gap(const LadderPageKeeps& rung, const LadderPageKeepArm& a) {
  return a.end_loss - rung.arms.front().end_loss;
}

Ranges PlaceKeepAxes(const LadderPageData& d) {
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (size_t i = 0; i < d.keeps.size(); ++i) {
    x0 = std::min(x0, Log(d.rungs[i].flops));
    x1 = std::max(x1, Log(d.rungs[i].flops));
    for (const LadderPageKeepArm& a : d.keeps[i].arms) {
      y0 = std::min(y0, Gap(d.keeps[i], a) - a.end_loss_sd);
      y1 = std::max(y1, Gap(d.keeps[i], a) + a.end_loss_sd);
    }
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 0.1;
  const double pad_x = 0.08 * (x1 - x0), pad_y = 0.08 * (y1 - y0);
  return {x0 - pad_x, x1 + pad_x, y0 - pad_y, y1 + pad_y};
}

std::string KeepGrid(const LadderPageData& d, const Ranges& g, const Axis& sx, const Axis& sy) {
  std::string out;
  for (double y : NiceTicks(g.y0, g.y1, 6)) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5:+.3f}</text>\n",
        Px(kLeft), Px(kWidth - kRight), Px(sy(y)), Px(kLeft - 6), Px(sy(y) + 4), y);
  }
  for (size_t i = 0; i < d.keeps.size(); ++i) {
    const double x = sx(Log(d.rungs[i].flops));
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        Px(x), Px(kKeepTop), Px(kHeight - kBottom), Px(kHeight - kBottom + 18),
        FormatFlops(d.rungs[i].flops));
  }
  return out + fmt::format(
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">training FLOPs of one run "
                   "(log scale)</text><text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" "
                   "text-anchor=\"middle\">end-of-budget loss minus the whole pool's (bits per "
                   "byte)</text>\n",
                   Px((kLeft + kWidth - kRight) / 2), Px(kHeight - 12),
                   Px((kKeepTop + kHeight - kBottom) / 2), Px((kKeepTop + kHeight - kBottom) / 2));
}

// Fraction j's line across the rungs, its points with their sd, and its legend entry.
std::string KeepLine(const LadderPageData& d, size_t j, const Axis& sx, const Axis& sy) {
  const double keep = d.keeps.front().arms[j].keep;
  const char* colour = kKeepColours[j % std::size(kKeepColours)];
  std::string path, points;
  for (size_t i = 0; i < d.keeps.size(); ++i) {
    const LadderPageKeepArm& a = d.keeps[i].arms.at(j);
    const double gap = Gap(d.keeps[i], a);
    const double x = sx(Log(d.rungs[i].flops)), y = sy(gap);
    path += fmt::format("{}{} {}", i ? " L" : "M", Px(x), Px(y));
    points += fmt::format(
        "<line class=\"sd-bar\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>"
        "<circle class=\"keep-point\" data-keep=\"{4:g}\" data-rung=\"{5}\" cx=\"{0}\" "
        "cy=\"{6}\" r=\"4\" fill=\"{3}\"><title>keep {7} at rung {5}: end loss {8:.4f} (sd "
        "{9:.4f}), {10} epochs</title></circle>\n",
        Px(x), Px(sy(gap - a.end_loss_sd)), Px(sy(gap + a.end_loss_sd)), colour, keep, i + 1, Px(y),
        KeepLabel(keep), a.end_loss, a.end_loss_sd, FormatPlain(a.epochs, 2));
    if (d.keeps[i].best_keep == keep) {
      points += fmt::format(
          "<circle class=\"best\" cx=\"{}\" cy=\"{}\" r=\"9\" fill=\"none\" stroke=\"#222\" "
          "stroke-width=\"1.5\"><title>rung {}: best</title>"
          "</circle>\n",
          Px(x), Px(y), i + 1);
    }
  }
  // The legend in rows of four above the plot.
  const double legend_x = kLeft + 180.0 * static_cast<double>(j % 4);
  const double legend_y = 14 + 14.0 * static_cast<double>(j / 4);
  return fmt::format(
             "<path class=\"keep-line\" data-keep=\"{:g}\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
             "stroke-width=\"2\"{}/>\n",
             keep, path, colour, keep >= 1 ? " stroke-dasharray=\"6 4\"" : "") +
         points +
         fmt::format(
             "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" "
             "stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\">keep {6}</text>\n",
             Px(legend_x), Px(legend_x + 20), Px(legend_y), colour, Px(legend_x + 26),
             Px(legend_y + 4), KeepLabel(keep));
}

std::string KeepPlotSvg(const LadderPageData& d) {
  const Ranges g = PlaceKeepAxes(d);
  const Axis sx{g.x0, g.x1, kLeft, kWidth - kRight};
  const Axis sy{g.y0, g.y1, kHeight - kBottom, kKeepTop};
  std::string out = fmt::format(
      "<svg id=\"keep-plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"end-of-budget "
      "held-out loss per fraction kept against training compute\">\n",
      kWidth, kHeight);
  out += KeepGrid(d, g, sx, sy);
  for (size_t j = 0; j < d.keeps.front().arms.size(); ++j) out += KeepLine(d, j, sx, sy);
  return out + "</svg>\n";
}

std::string KeepsTable(const LadderPageData& d) {
  std::string out =
      "<table id=\"keeps\"><thead><tr><th>rung</th><th>keep</th><th>end loss</th><th>sd</th>"
      "<th>epochs</th><th>net saved vs the whole pool</th><th>best</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < d.keeps.size(); ++i) {
    for (const LadderPageKeepArm& a : d.keeps[i].arms) {
      const std::string net = std::isnan(a.net) ? "baseline"
                              : a.caught_up     ? FormatPercent(a.net)
                                            : "never caught up (&le; " + FormatPercent(a.net) + ")";
      const bool best = d.keeps[i].best_keep == a.keep;
      out += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{:.4f}</td><td>{:.4f}</td><td>{}</td><td>{}</td>"
          "<td>{}</td></tr>\n",
          i + 1, KeepLabel(a.keep), a.end_loss, a.end_loss_sd, FormatPlain(a.epochs, 2), net,
          best ? fmt::format("best ({} of resamples)", FormatPercent(d.keeps[i].best_share))
               : std::string());
    }
  }
  return out + "</tbody></table>\n";
}

std::string KeepSection(const LadderPageData& d) {
  std::string out =
      "<h2>How much to keep</h2>\n<p>At every rung, the whole pool in random order (the "
      "baseline, keep 1) beside the selector's top fraction for each value, all trained alike; "
      "each point is a fraction's held-out loss at the end of the budget (mean over seeds, bar: "
      "their sd) minus the whole pool's at the same rung, so below 0 is better than not "
      "selecting; the ring marks each rung's best.</p>\n";
  out += KeepPlotSvg(d);
  out += "<p id=\"recommendation\">";
  if (d.keep_trend && d.keep_trend->fit.fitted) {
    const trial::LadderTrend& t = d.keep_trend->fit;
    out += fmt::format(
        "Trend of the best fraction: <strong>{}</strong>, log10(best keep) {:+.3f} per decade of "
        "compute (95% interval {:+.3f} to {:+.3f}; {} rungs). ",
        t.direction, t.slope_per_decade, t.lo, t.hi, t.rungs_fitted);
  }
  if (d.keep_trend) {
    for (const std::string& note : d.keep_trend->notes) out += EscapeHtml(note) + ". ";
  }
  if (d.recommendation) {
    out +=
        "<strong>" + EscapeHtml(narrate::RecommendationSentence(*d.recommendation)) + "</strong>";
  }
  return out + "</p>\n" + KeepsTable(d);
}

}  // namespace

std::string RenderLadderPage(const LadderPageData& d) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ladder: " +
      EscapeHtml(d.title) +
      "</title>\n<style>body{font:15px/1.45 system-ui,sans-serif;max-width:960px;margin:2em "
      "auto;color:#222}svg{width:100%;height:auto}svg text{font-size:12px;fill:#444}"
      ".grid{stroke:#e4e4e4}#zero{stroke:#888}#trend-line{stroke:#0072B2;stroke-width:2}"
      ".ci-bar{stroke:#a94a00;stroke-width:2}.rung{fill:#D55E00;stroke:#a94a00;stroke-width:2}"
      ".rung.bound{fill:#fff}.projection{fill:#fff;stroke:#555;stroke-width:2}.projection-bar{"
      "stroke:#888;stroke-width:2;stroke-dasharray:2 3}.projection-label{font-weight:bold}"
      "table{border-collapse:collapse}td,th{padding:.25em .6em;border-bottom:1px solid #ddd;"
      "text-align:right}</style></head><body>\n<h1>Ladder: " +
      EscapeHtml(d.title) + "</h1>\n";
  if (d.keeps.empty()) {
    out +=
        "<p>The same two arms (curated and random) trained at each rung's model and steps; "
        "each point is the rung's net compute saved with its 95% bootstrap interval over "
        "seeds. A hollow point never caught up and sits at its bound (the most it saved).</p>\n";
  } else {
    out +=
        "<p>The same arms trained at each rung's model and steps. Each point is the net compute "
        "saved, against the whole pool in random order, by the rung's fraction of lowest end "
        "loss, with its 95% bootstrap interval over seeds. A hollow point never caught up and "
        "sits at its bound (the most it saved).</p>\n";
  }
  out += PlotSvg(d) + TrendSection(d) + RungsTable(d);
  if (!d.keeps.empty()) out += KeepSection(d);
  return out + "</body></html>\n";
}

}  // namespace preflight::report
