// A keep ladder's words: the fraction, a rung's best and how sure it is, and the recommendation
// made (marked when extrapolated) or refused with its reason.

#include "narrate/keep_text.h"

#include <gtest/gtest.h>

namespace preflight::narrate {
namespace {

TEST(KeepText, FractionsBestAndRecommendation) {
  EXPECT_EQ(KeepWords(0.1), "10%");
  EXPECT_EQ(KeepWords(0.005), "0.5%");
  EXPECT_EQ(KeepWords(1), "the whole pool");
  trial::BestKeep best;
  best.keep = 0.25;
  best.share = 0.87;
  best.resamples = 2000;
  best.seeds_best = 3;
  best.seeds = 4;
  EXPECT_EQ(BestKeepSentence(best),
            "25% (lowest end loss in 87.0% of 2,000 resamples over seeds; 3 of 4 seeds)");
  trial::KeepRecommendation r;
  r.flops = 3.2e12;
  r.keep = 0.12;
  r.lo = 0.061;
  r.hi = 0.25;
  r.extrapolated = true;
  r.reason = "the trend of the best fraction over 3 rungs";
  EXPECT_EQ(RecommendationSentence(r),
            "Keep 12% of the pool for a run of 3.2 TFLOP (95% interval 6.1% to 25%), "
            "EXTRAPOLATED: the trend of the best fraction over 3 rungs.");
  r.keep.reset();
  r.reason = "the trend is unclear";
  EXPECT_EQ(RecommendationSentence(r),
            "No fraction to keep for a run of 3.2 TFLOP: the trend is unclear.");
}

}  // namespace
}  // namespace preflight::narrate
