#pragma once
// The ledger site's plot pieces (internal to report/): a plot frame, its axes, and the
// forecast's reliability plot. ledger_site.h says what the pages hold.

#include <functional>
#include <string>
#include <vector>

#include "report/ledger_site.h"

namespace preflight::report {

// Plot geometry in SVG user units; the svgs scale to the page width.
struct Frame {
  double width, height, left, right, top, bottom;
  double x_lo, x_hi, y_lo, y_hi;
  double X(double x) const { return left + (x - x_lo) / (x_hi - x_lo) * (width - left - right); }
  double Y(double y) const {
    return height - bottom - (y - y_lo) / (y_hi - y_lo) * (height - top - bottom);
  }
};

std::string Px(double v);  // "12.3"
std::string PercentLabel(double v);
double Clamp(double v, double lo, double hi);

using Label = std::function<std::string(double)>;

// Grid lines and labels at `x_ticks` and at round values of y, the frame and both axis titles.
std::string Axes(const Frame& f, const std::vector<double>& x_ticks, const Label& x_label,
                 const Label& y_label, const std::string& x_title, const std::string& y_title);

// One bin of the reliability plot: trials whose forecast gave a probability in [from, to).
struct ReliabilityBin {
  double from = 0, to = 0;
  int trials = 0, paid = 0;
  double mean_predicted = 0;
  double Observed() const { return trials > 0 ? static_cast<double>(paid) / trials : 0; }
};

// Every trial whose forecast recorded a probability, in five bins of width 0.2 (the last holds
// 1); paid: caught up with a net saving > 0.
std::vector<ReliabilityBin> ReliabilityBins(const std::vector<SiteTrial>& trials);

// svg#reliability-plot: per non-empty bin a g.reliability-bin (data-trials, data-predicted,
// data-observed) with its point, an 80% Wilson interval of the observed share and its count;
// line#reliability-identity for y = x. p#no-reliability when no trial recorded a probability.
std::string ReliabilityFigure(const std::vector<SiteTrial>& trials);

}  // namespace preflight::report
