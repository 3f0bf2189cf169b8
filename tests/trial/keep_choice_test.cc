// A keep ladder's arithmetic on hand-made numbers: the best fraction and how sure it is, the
// trend of the best fraction against log compute (the grid's resolution as the floor of each
// rung's sd), and the recommendation: made, marked an extrapolation, or refused with its reason.

#include "trial/keep_choice.h"

#include <gtest/gtest.h>

#include <cmath>

namespace preflight::trial {
namespace {

const std::vector<uint64_t> kSeeds = {1, 2, 3, 4};

KeepArmLosses Arm(double keep, std::vector<double> losses) {
  return {keep, std::vector<uint64_t>(kSeeds.begin(), kSeeds.begin() + losses.size()), losses};
}

TEST(BestKeep, TheLowestMeanWinsAndADominantArmIsSureInEveryResample) {
  // keep 0.1 is lowest in every seed: best in every resample, every seed, log10 sd 0.
  auto best = ChooseBestKeep({Arm(1, {2.0, 2.1, 2.0, 2.2}), Arm(0.1, {1.5, 1.6, 1.5, 1.7}),
                              Arm(0.5, {1.8, 1.9, 1.8, 2.0})});
  ASSERT_TRUE(best.ok()) << best.status().message();
  EXPECT_EQ(best->index, 1u);
  EXPECT_DOUBLE_EQ(best->keep, 0.1);
  EXPECT_DOUBLE_EQ(best->share, 1.0);
  EXPECT_EQ(best->resamples, 2000);
  EXPECT_EQ(best->seeds_best, 4);
  EXPECT_EQ(best->seeds, 4);
  EXPECT_DOUBLE_EQ(best->log10_sd, 0);
}

TEST(BestKeep, ASplitBetweenSeedsGivesAShareBelowOneAndASpreadInLog10) {
  // Means: keep 1 -> 2.0, keep 0.1 -> 1.975; seeds 1 and 2 favour 0.1 strongly, 3 and 4 favour
  // the whole pool: some resamples (e.g. seeds 3, 4, 3, 4) pick the whole pool.
  auto best = ChooseBestKeep({Arm(1, {2.0, 2.0, 2.0, 2.0}), Arm(0.1, {1.85, 1.85, 2.1, 2.1})});
  ASSERT_TRUE(best.ok());
  EXPECT_DOUBLE_EQ(best->keep, 0.1);
  EXPECT_EQ(best->seeds_best, 2);
  EXPECT_GT(best->share, 0.5);
  EXPECT_LT(best->share, 1.0);
  EXPECT_GT(best->log10_sd, 0.1);
  // Deterministic: the same numbers again give the same share.
  auto again = ChooseBestKeep({Arm(1, {2.0, 2.0, 2.0, 2.0}), Arm(0.1, {1.85, 1.85, 2.1, 2.1})});
  EXPECT_EQ(again->share, best->share);
  // Ties go to the first arm in order.
  auto tie = ChooseBestKeep({Arm(1, {2.0, 2.0}), Arm(0.1, {2.0, 2.0})});
  EXPECT_DOUBLE_EQ(tie->keep, 1);
}

TEST(BestKeep, UnpairedOrBadArmsAreRefused) {
  EXPECT_FALSE(ChooseBestKeep({Arm(1, {2.0, 2.0})}).ok());
  KeepArmLosses other = Arm(0.1, {1.0, 1.0});
  other.seeds = {1, 3};
  EXPECT_FALSE(ChooseBestKeep({Arm(1, {2.0, 2.0}), other}).ok());
  EXPECT_FALSE(ChooseBestKeep({Arm(1, {2.0, 2.0}), Arm(0.1, {1.0, NAN})}).ok());
  EXPECT_FALSE(ChooseBestKeep({Arm(1, {2.0}), Arm(0, {1.0})}).ok());
}

// A rung at 10^decade FLOPs whose best fraction is `best`, sure (log10 sd 0), informative.
KeepRungPoint Rung(double decade, double best, bool informative = true) {
  return {std::pow(10.0, decade), best, 0, informative};
}

const std::vector<double> kGrid = {0.01, 0.1, 1};  // log10 gaps of 1: floor 1/sqrt(12)

TEST(KeepTrend, TheBestFractionGrowingByADecadePerDecadeIsFittedWithTheGridsFloor) {
  KeepTrend t = FitKeepTrend({Rung(10, 0.01), Rung(11, 0.1), Rung(12, 1)}, kGrid);
  EXPECT_NEAR(t.sd_floor, 1 / std::sqrt(12.0), 1e-12);
  ASSERT_TRUE(t.fit.fitted);
  EXPECT_NEAR(t.fit.slope_per_decade, 1, 1e-12);
  // Equal sd s at x = 10, 11, 12: Sxx = 2/s^2, no scatter: the slope's sd is s/sqrt(2).
  EXPECT_NEAR(t.fit.hi - 1, kZ95 * t.sd_floor / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(t.fit.direction, "grows");
  ASSERT_EQ(t.notes.size(), 2u);  // rung 1 at the grid's bottom, rung 3 at the whole pool
  EXPECT_NE(t.notes[0].find("smallest fraction"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[1].find("whole pool"), std::string::npos) << t.notes[1];

  // At the middle rung: 10^-1, not extrapolated, interval 10^(-1 +- 1.96 s / sqrt(3)).
  KeepRecommendation mid = RecommendKeep(t, 1e11);
  ASSERT_TRUE(mid.keep.has_value()) << mid.reason;
  EXPECT_NEAR(*mid.keep, 0.1, 1e-12);
  EXPECT_FALSE(mid.extrapolated);
  const double half = kZ95 * t.sd_floor / std::sqrt(3.0);
  EXPECT_NEAR(mid.lo, std::pow(10.0, -1 - half), 1e-12);
  EXPECT_NEAR(mid.hi, std::pow(10.0, -1 + half), 1e-12);
  // Beyond the rungs: marked, and at most the whole pool.
  KeepRecommendation far = RecommendKeep(t, 1e13);
  EXPECT_TRUE(far.extrapolated);
  if (far.keep) {
    EXPECT_LE(*far.keep, 1.0);
  }
  EXPECT_LE(far.hi, 1.0);
}

TEST(KeepTrend, ASureFlatLadderRecommendsItsFraction) {
  KeepTrend t = FitKeepTrend({Rung(10, 0.1), Rung(11, 0.1), Rung(12, 0.1)}, kGrid);
  KeepRecommendation r = RecommendKeep(t, 1e12);
  ASSERT_TRUE(r.keep.has_value()) << r.reason;
  EXPECT_NEAR(*r.keep, 0.1, 1e-12);
  EXPECT_GT(r.lo, 0.01);
  EXPECT_LT(r.hi, 1.0);
  EXPECT_EQ(t.fit.direction, "unclear");  // +-0.05 per decade is within its interval only
}

TEST(KeepTrend, RefusalsSayWhy) {
  // Every rung uninformative.
  KeepRecommendation r = RecommendKeep(
      FitKeepTrend({Rung(10, 0.01, false), Rung(11, 0.1, false), Rung(12, 1, false)}, kGrid), 1e12);
  EXPECT_FALSE(r.keep.has_value());
  EXPECT_NE(r.reason.find("n-gram"), std::string::npos) << r.reason;
  // One rung informative is enough not to refuse on the regime.
  r = RecommendKeep(FitKeepTrend({Rung(10, 0.01, false), Rung(11, 0.1), Rung(12, 1, false)}, kGrid),
                    1e11);
  EXPECT_TRUE(r.keep.has_value()) << r.reason;
  // No two rungs at distinct compute.
  r = RecommendKeep(FitKeepTrend({Rung(10, 0.1), Rung(10, 0.1), Rung(10, 0.1)}, kGrid), 1e10);
  EXPECT_FALSE(r.keep.has_value());
  EXPECT_NE(r.reason.find("unclear"), std::string::npos) << r.reason;
  // Scattered: 0.01, 1, 0.01 -> the interval at a far compute spans every fraction tried.
  r = RecommendKeep(FitKeepTrend({Rung(10, 0.01), Rung(11, 1), Rung(12, 0.01)}, kGrid), 1e14);
  EXPECT_FALSE(r.keep.has_value());
  EXPECT_NE(r.reason.find("excludes none"), std::string::npos) << r.reason;
  const nlohmann::json j = KeepRecommendationToJson(r);
  EXPECT_TRUE(j["keep"].is_null());
  EXPECT_TRUE(j["interval"].is_null());
  EXPECT_EQ(j["extrapolated"], true);
  EXPECT_EQ(j["reason"], r.reason);
}

}  // namespace
}  // namespace preflight::trial
