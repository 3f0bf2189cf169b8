// The ladder's arithmetic on hand-made rungs: weighted least squares worked by hand, the
// direction rule, the bound of a rung that never caught up, and the projection.

#include "trial/ladder_trend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace preflight::trial {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A rung at 10^decade FLOPs with net saving y and a 95% interval of y +- 1.96 sd.
LadderPoint Rung(double decade, double y, double sd) {
  return {std::pow(10.0, decade), y, y - kZ95 * sd, y + kZ95 * sd, true};
}

TEST(LadderTrend, EqualWeightsOnALineGiveTheSlopeAndTheKnownVarianceInterval) {
  // x = 12, 13, 14; y = 0.1, 0.2, 0.3; sd = 0.02 each. Sxx = 2 / 0.02^2 = 5000, slope 0.1,
  // residuals 0 (chi-square 0, no inflation), sd of slope = 1/sqrt(5000).
  LadderTrend t = FitLadderTrend({Rung(12, 0.1, 0.02), Rung(13, 0.2, 0.02), Rung(14, 0.3, 0.02)});
  ASSERT_TRUE(t.fitted);
  EXPECT_EQ(t.rungs_fitted, 3);
  EXPECT_NEAR(t.slope_per_decade, 0.1, 1e-12);
  EXPECT_NEAR(t.hi - t.slope_per_decade, 1.96 / std::sqrt(5000.0), 1e-12);
  EXPECT_NEAR(t.x_mean, 13, 1e-12);
  EXPECT_NEAR(t.level_at_mean, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(t.birge, 1);
  EXPECT_EQ(t.direction, "grows");
}

TEST(LadderTrend, WeightsFollowTheIntervalsAndScatterWidensTheInterval) {
  // y = 0, 0.3, 0 at x = 0, 1, 2 with sd 0.1, 0.1, 0.1: slope 0; residuals (-0.1, 0.2, -0.1)
  // / 0.1 -> chi-square 6 on 1 degree of freedom, so the variance is 6 x 1/Sxx (Sxx = 200).
  LadderTrend t = FitLadderTrend({Rung(0, 0, 0.1), Rung(1, 0.3, 0.1), Rung(2, 0, 0.1)});
  ASSERT_TRUE(t.fitted);
  EXPECT_NEAR(t.slope_per_decade, 0, 1e-12);
  EXPECT_NEAR(t.birge, 6, 1e-9);
  EXPECT_NEAR(t.var_slope, 6.0 / 200, 1e-12);
  EXPECT_EQ(t.direction, "unclear");
  // A precise rung pulls the line: x = 0, 1, 2, y = 0, 0, 1 with the last sd 10x smaller.
  // Weights 1, 1, 100: xm = 201/102, ym = 100/102; slope = sxy / sxx by hand.
  LadderTrend w = FitLadderTrend({Rung(0, 0, 0.1), Rung(1, 0, 0.1), Rung(2, 1, 0.01)});
  const double xm = 201.0 / 102, ym = 100.0 / 102;
  const double sxx = 100 * (xm * xm + (1 - xm) * (1 - xm) + 100 * (2 - xm) * (2 - xm));
  const double sxy = 100 * ((0 - xm) * (0 - ym) + (1 - xm) * (0 - ym) + 100 * (2 - xm) * (1 - ym));
  EXPECT_NEAR(w.slope_per_decade, sxy / sxx, 1e-12);
}

TEST(LadderTrend, DirectionRule) {
  EXPECT_EQ(TrendDirection(0.01, 0.2), "grows");
  EXPECT_EQ(TrendDirection(-0.3, -0.01), "shrinks");
  EXPECT_EQ(TrendDirection(-0.04, 0.05), "holds");
  EXPECT_EQ(TrendDirection(-0.06, 0.02), "unclear");
  EXPECT_EQ(TrendDirection(-kInf, 0.02), "unclear");
  // A flat, precise ladder holds.
  LadderTrend t = FitLadderTrend({Rung(10, 0.2, 0.01), Rung(11, 0.2, 0.01), Rung(12, 0.2, 0.01)});
  EXPECT_EQ(t.direction, "holds");
}

TEST(LadderTrend, NeverCaughtUpEntersAtItsBoundWithTheWidestSd) {
  // S = 300, t_R = 200, f = 1, c_C = 10, c_R = 0: at most 1 - 310/200 = -0.55.
  EXPECT_DOUBLE_EQ(NeverCaughtUpNetBound(300, 200, 1, 10, 0), 1 - 310.0 / 200);
  EXPECT_TRUE(std::isnan(NeverCaughtUpNetBound(300, 0, 1, 10, 0)));
  LadderPoint never{1e12, -0.55, -kInf, -kInf, false};
  LadderTrend t = FitLadderTrend({never, Rung(13, 0.1, 0.02), Rung(14, 0.3, 0.05)});
  ASSERT_TRUE(t.fitted);
  EXPECT_EQ(t.rungs_fitted, 3);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("never caught up"), std::string::npos);
  EXPECT_NE(t.notes[0].find("-55.0%"), std::string::npos);
  // Same fit as with that rung given sd 0.05 (the widest of the others) by hand.
  LadderTrend same =
      FitLadderTrend({Rung(12, -0.55, 0.05), Rung(13, 0.1, 0.02), Rung(14, 0.3, 0.05)});
  EXPECT_NEAR(t.slope_per_decade, same.slope_per_decade, 1e-12);
  EXPECT_NEAR(t.lo, same.lo, 1e-12);
}

TEST(LadderTrend, TooFewRungsOrNoSpreadIsUnclear) {
  LadderPoint nan_rung{1e12, std::nan(""), 0, 0, false};
  LadderTrend t = FitLadderTrend({nan_rung, Rung(13, 0.1, 0.02)});
  EXPECT_FALSE(t.fitted);
  EXPECT_EQ(t.rungs_fitted, 1);
  EXPECT_EQ(t.direction, "unclear");
  EXPECT_TRUE(LadderTrendToJson(t)["slope_per_decade"].is_null());
  LadderTrend same_x = FitLadderTrend({Rung(13, 0.1, 0.02), Rung(13, 0.2, 0.02)});
  EXPECT_FALSE(same_x.fitted);
  EXPECT_FALSE(ProjectSaving(same_x, 1e15, 0).has_value());
}

TEST(LadderTrend, ProjectionFollowsTheLineWidensAwayAndIsClipped) {
  LadderTrend t = FitLadderTrend({Rung(12, 0.1, 0.02), Rung(13, 0.2, 0.02), Rung(14, 0.3, 0.02)});
  auto p = ProjectSaving(t, 1e15, 0);
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->saving, 0.4, 1e-12);
  // var = 1/sum(w) + dx^2/Sxx = 0.0004/3 + 4/5000.
  EXPECT_NEAR(p->hi - p->saving, 1.96 * std::sqrt(0.0004 / 3 + 4.0 / 5000), 1e-12);
  EXPECT_NE(p->assumption.find("linearly in log compute"), std::string::npos);
  EXPECT_EQ(LadderProjectionToJson(*p)["label"], "projection");
  auto far = ProjectSaving(t, 1e25, 0);
  EXPECT_DOUBLE_EQ(far->saving, 1);  // 1.2 clipped
  EXPECT_LE(far->hi, 1);
  // Tokens of a compute-optimal run: sqrt(20 C / 6); past 4 epochs of the curated arm the
  // interval is widened down to -1.
  EXPECT_NEAR(p->tokens, std::sqrt(20 * 1e15 / 6), 1e-3);
  auto repeats = ProjectSaving(t, 1e15, p->tokens / 5);
  EXPECT_TRUE(repeats->repeats);
  EXPECT_NEAR(repeats->epochs_of_curated, 5, 1e-9);
  EXPECT_DOUBLE_EQ(repeats->lo, -1);
  EXPECT_NE(repeats->note.find("Muennighoff"), std::string::npos);
  EXPECT_FALSE(ProjectSaving(t, 1e15, p->tokens).value().repeats);
}

}  // namespace
}  // namespace preflight::trial
