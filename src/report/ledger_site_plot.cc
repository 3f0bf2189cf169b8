#include "report/ledger_site_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "report/svg_plot.h"
#include "report/trial_report.h"

namespace preflight::report {

std::string Px(double v) { return fmt::format("{:.1f}", v); }

std::string PercentLabel(double v) { return fmt::format("{:.0f}%", 100 * v); }

double Clamp(double v, double lo, double hi) { return std::min(hi, std::max(lo, v)); }

std::string Axes(const Frame& f, const std::vector<double>& x_ticks, const Label& x_label,
                 const Label& y_label, const std::string& x_title, const std::string& y_title) {
  std::string s;
  for (double v : NiceTicks(f.y_lo, f.y_hi, 5)) {
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d8dee4\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
        Px(f.left), Px(f.Y(v)), Px(f.width - f.right), Px(f.Y(v)), Px(f.left - 6), Px(f.Y(v) + 4),
        EscapeHtml(y_label(v)));
  }
  for (double v : x_ticks) {
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#eef1f4\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        Px(f.X(v)), Px(f.top), Px(f.X(v)), Px(f.height - f.bottom), Px(f.X(v)),
        Px(f.height - f.bottom + 16), EscapeHtml(x_label(v)));
  }
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#8c959f\"/>\n",
      Px(f.left), Px(f.top), Px(f.width - f.left - f.right), Px(f.height - f.top - f.bottom));
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                   Px((f.left + f.width - f.right) / 2), Px(f.height - 8), EscapeHtml(x_title));
  s += fmt::format(
      "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      Px((f.top + f.height - f.bottom) / 2), EscapeHtml(y_title));
  return s;
}

std::vector<ReliabilityBin> ReliabilityBins(const std::vector<SiteTrial>& trials) {
  constexpr int kBins = 5;
  std::vector<ReliabilityBin> bins(kBins);
  for (int b = 0; b < kBins; ++b) {
    bins[b].from = static_cast<double>(b) / kBins;
    bins[b].to = static_cast<double>(b + 1) / kBins;
  }
  for (const SiteTrial& t : trials) {
    if (!t.forecast.probability || !std::isfinite(*t.forecast.probability)) continue;
    const double q = Clamp(*t.forecast.probability, 0, 1);
    ReliabilityBin& bin = bins[std::min(kBins - 1, static_cast<int>(q * kBins))];
    bin.mean_predicted += q;
    bin.trials += 1;
    bin.paid += t.caught_up && t.net && *t.net > 0;
  }
  for (ReliabilityBin& b : bins) {
    if (b.trials > 0) b.mean_predicted /= b.trials;
  }
  return bins;
}

namespace {

// The 80% Wilson score interval of k successes in n.
std::pair<double, double> Wilson(int k, int n) {
  const double z = 1.2815515655446004, p = static_cast<double>(k) / n, nn = n;
  const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace

std::string ReliabilityFigure(const std::vector<SiteTrial>& trials) {
  const std::vector<ReliabilityBin> bins = ReliabilityBins(trials);
  int total = 0;
  for (const ReliabilityBin& b : bins) total += b.trials;
  if (total == 0) {
    return "<p id=\"no-reliability\">No trial's forecast recorded a probability.</p>\n";
  }
  const Frame f{520, 440, 62, 16, 16, 46, 0, 1, 0, 1};
  std::string s =
      "<svg id=\"reliability-plot\" viewBox=\"0 0 520 440\" role=\"img\" "
      "aria-label=\"Predicted chance that curating pays against how often it paid\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n";
  s += Axes(f, {0, 0.2, 0.4, 0.6, 0.8, 1}, PercentLabel, PercentLabel,
            "predicted chance that curating pays", "share of trials that paid");
  s += fmt::format(
      "<line id=\"reliability-identity\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
      "stroke=\"#59636e\" stroke-dasharray=\"5 4\"/>\n",
      Px(f.X(0)), Px(f.Y(0)), Px(f.X(1)), Px(f.Y(1)));
  const char* blue = ColourOf(0, 0).line;
  for (const ReliabilityBin& b : bins) {
    if (b.trials == 0) continue;
    const auto [lo, hi] = Wilson(b.paid, b.trials);
    const double x = f.X(b.mean_predicted), y = f.Y(b.Observed());
    const std::string title = fmt::format(
        "predicted {} to {} (mean {}): {} of {} trials paid ({}; 80% interval {} to {})",
        FormatPercent(b.from), FormatPercent(b.to), FormatPercent(b.mean_predicted), b.paid,
        b.trials, FormatPercent(b.Observed()), FormatPercent(lo), FormatPercent(hi));
    s += fmt::format(
        "<g class=\"reliability-bin\" data-trials=\"{}\" data-predicted=\"{:.4f}\" "
        "data-observed=\"{:.4f}\"><title>{}</title>",
        b.trials, b.mean_predicted, b.Observed(), EscapeHtml(title));
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" "
        "stroke-width=\"1.5\"/>",
        Px(x), Px(f.Y(lo)), Px(f.Y(hi)), blue);
    const bool right_edge = b.mean_predicted > 0.8;  // the count's label goes left of the point
    s += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"{:.1f}\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">n={}</text></g>\n",
        Px(x), Px(y), 3 + 2 * std::sqrt(static_cast<double>(b.trials)), blue,
        Px(right_edge ? x - 8 : x + 8), Px(y - 8), right_edge ? "end" : "start", b.trials);
  }
  return s + "</svg>\n";
}

}  // namespace preflight::report
