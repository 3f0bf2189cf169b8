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
// bottom edge, dashed. A keep ladder adds "keep-plot" (each fraction's end-of-budget held-out
// loss against log10 compute, one line per fraction: path.keep-line and circle.keep-point with
// data-keep="<fraction>", the baseline's line dashed, each rung's best ringed: circle.best),
// "keeps" (the table of every rung's fractions) and "recommendation" (the fraction to keep, or
// why none is given). Pure function: same data, same bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trial/keep_choice.h"
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

// A keep ladder's arm at one rung: the baseline (keep 1) or one of the selector's fractions.
struct LadderPageKeepArm {
  double keep = 0;
  double end_loss = 0, end_loss_sd = 0;  // bits per byte, mean and sd over seeds
  double epochs = 0;
  double net = 0;  // against the baseline (its bound when never caught up); NaN for the baseline
  bool caught_up = true;
};

struct LadderPageKeeps {
  std::vector<LadderPageKeepArm> arms;  // the baseline first, then the fractions
  double best_keep = 0, best_share = 0;
};

struct LadderPageData {
  std::string title;
  std::vector<LadderPageRung> rungs;
  trial::LadderTrend trend;
  std::optional<trial::LadderProjection> projection;
  // A keep ladder: per rung (parallel to rungs) its fractions, the trend of the best fraction
  // and the recommendation. Empty for a ladder of one --keep, whose page is as it was.
  std::vector<LadderPageKeeps> keeps;
  std::optional<trial::KeepTrend> keep_trend;
  std::optional<trial::KeepRecommendation> recommendation;
};

std::string RenderLadderPage(const LadderPageData& data);

}  // namespace preflight::report
