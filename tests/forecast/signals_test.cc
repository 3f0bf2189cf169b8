#include "forecast/signals.h"

#include <gtest/gtest.h>

#include <cmath>

namespace preflight::forecast {
namespace {

TEST(ByteNgramBits, UnigramWittenBellByHand) {
  // Train "aab": counts a=2, b=1 of 3 bytes, 2 distinct types. P(x) = (c(x) + 2/256) / (3 + 2).
  const double pa = (2 + 2.0 / 256) / 5, pb = (1 + 2.0 / 256) / 5, pc = (2.0 / 256) / 5;
  const double want = -(std::log2(pa) + std::log2(pb) + std::log2(pc)) / 3;
  EXPECT_NEAR(ByteNgramBits({"aab"}, {"abc"}, 1), want, 1e-12);
}

TEST(ByteNgramBits, BigramInterpolatesWithTheUnigram) {
  // Train "abab": unigram a=2, b=2 (2 types); contexts: a->b twice (1 type), b->a once (1 type).
  auto uni = [](int c) { return (c + 2.0 / 256) / (4 + 2); };
  const double p_a = uni(2);  // first byte: unigram
  const double p_b_after_a = (2 + 1 * uni(2)) / (2 + 1);
  const double p_a_after_b = (1 + 1 * uni(2)) / (1 + 1);
  const double want = -(std::log2(p_a) + std::log2(p_b_after_a) + std::log2(p_a_after_b)) / 3;
  EXPECT_NEAR(ByteNgramBits({"abab"}, {"aba"}, 2), want, 1e-12);
}

TEST(ByteNgramGain, SignAndIntervalFollowWhichArmIsLikeTheTarget) {
  std::vector<std::string> like = {"the cat sat on the mat", "a cat and a hat"};
  std::vector<std::string> unlike = {"zzz qqq xxx 999", "kkk jjj vvv 000"};
  std::vector<std::string> target = {"the cat", "that hat", "a mat", "on a cat"};
  GainEstimate g = ByteNgramGain(like, unlike, target, 2, 200);
  EXPECT_GT(g.gain, 0);
  EXPECT_LE(g.lo, g.gain);
  EXPECT_GE(g.hi, g.gain);
  EXPECT_GT(g.lo, 0);  // every resample of these targets prefers the like arm
  EXPECT_EQ(g.resamples, 200);
  GainEstimate flipped = ByteNgramGain(unlike, like, target, 2, 200);
  EXPECT_NEAR(flipped.gain, -g.gain, 1e-12);
  // Deterministic: the resamples are seeded.
  GainEstimate again = ByteNgramGain(like, unlike, target, 2, 200);
  EXPECT_EQ(again.lo, g.lo);
  EXPECT_EQ(again.hi, g.hi);
}

TEST(ByteBigramCoverage, CountsTheTargetsPairsSeenInTheArm) {
  // Target pairs: "ab", "bc", "cd"; the arm holds "ab" and "bc".
  EXPECT_NEAR(ByteBigramCoverage({"abc"}, {"abcd"}), 2.0 / 3, 1e-12);
  EXPECT_EQ(ByteBigramCoverage({"abc"}, {"xyz"}), 0.0);
}

}  // namespace
}  // namespace preflight::forecast
