#pragma once
// A ladder's page (DIR/ladder.html, `preflight ladder`): one self-contained page (inline CSS and
// SVG; no scripts, nothing fetched) plotting each rung's net saving with its 95% interval as an
// error bar against log10 compute, the fitted trend line, and, when asked, the projection as a
// hollow diamond labelled PROJECTION.
//
// Stable ids: "ladder-plot" (the <svg>), "rungs" (the table), "trend" (the trend's sentence),
// "projection" (only with a projection), "trend-line" (inside the plot, when fitted). Inside the
// plot each rung is a circle.rung with data-rung="<i>" (filled when it caught up, hollow at its
// bound when not) and a line.ci-bar; an interval end that is not finite runs to the plot's
// bottom edge, dashed. Pure function: same data, same bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trial/ladder_trend.h"

namespace preflight::report {

struct LadderPageRung {
  std::string model;
  int64_t steps = 0;
  double flops = 0;  // one run's training FLOPs
  double gross = 0;
  double net = 0;               // or the net bound when never caught up
  double ci_lo = 0, ci_hi = 0;  // the net saving's 95% interval (may be -inf)
  bool caught_up = true;
  std::optional<bool> informative;  // the regime check; absent when not checked
  std::string receipt;
};

struct LadderPageData {
  std::string title;
  std::vector<LadderPageRung> rungs;
  trial::LadderTrend trend;
  std::optional<trial::LadderProjection> projection;
};

std::string RenderLadderPage(const LadderPageData& data);

}  // namespace preflight::report
