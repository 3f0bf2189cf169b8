#include "forecast/pool_signals.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/word_docs.h"

namespace preflight::forecast {
namespace {

using testing::kCodeWords;
using testing::kProseWords;
using testing::WordDocs;

TEST(NgramCoverage, ByHandOnShortTexts) {
  // Target 4-grams: "abcd", "bcde" (2); the arm holds "abcd" only.
  EXPECT_DOUBLE_EQ(NgramCoverage({"xabcdx"}, {"abcde"}), 0.5);
  EXPECT_DOUBLE_EQ(NgramCoverage({"abcde"}, {"abcde"}), 1.0);
  EXPECT_DOUBLE_EQ(NgramCoverage({"zzzz"}, {"abc"}), 0.0);  // no 4-gram in the target
}

TEST(NgramCoverageGain, PositiveWhenTheCuratedArmHoldsTheTargetsText) {
  const auto target = WordDocs(kCodeWords, 4, 50, 1);
  const auto curated = WordDocs(kCodeWords, 20, 50, 2);
  const auto random = WordDocs(kProseWords, 20, 50, 3);
  EXPECT_GT(NgramCoverageGain(curated, random, target), 0.5);
  EXPECT_LT(NgramCoverageGain(random, curated, target), -0.5);
}

TEST(ClassifierAuc, SeparatesUnlikeTextAndNotLikeText) {
  const auto target = WordDocs(kCodeWords, 8, 400, 1);
  EXPECT_GT(ClassifierAuc(target, WordDocs(kProseWords, 40, 400, 2)), 0.95);
  // The same distribution: a classifier can do no better than chance, give or take noise.
  EXPECT_NEAR(ClassifierAuc(target, WordDocs(kCodeWords, 40, 400, 3)), 0.5, 0.25);
  // Too few passages to tell anything: 0.5.
  EXPECT_DOUBLE_EQ(ClassifierAuc({"one passage"}, WordDocs(kProseWords, 4, 10, 4)), 0.5);
}

TEST(ClassifierAuc, Deterministic) {
  const auto target = WordDocs(kCodeWords, 6, 300, 5);
  const auto arm = WordDocs(kProseWords, 30, 300, 6);
  EXPECT_EQ(ClassifierAuc(target, arm), ClassifierAuc(target, arm));
}

// An arm of `docs` documents, `share` of them from the target's kind (code), the rest prose.
std::vector<std::string> Arm(double share, int docs, uint64_t seed) {
  const int like = static_cast<int>(share * docs + 0.5);
  std::vector<std::string> out = WordDocs(kCodeWords, like, 300, seed);
  for (const std::string& d : WordDocs(kProseWords, docs - like, 300, seed + 1)) out.push_back(d);
  return out;
}

TEST(TargetLikeShare, HowMuchOfTheCuratedQuarterIsLikeTheTarget) {
  const auto target = WordDocs(kCodeWords, 12, 300, 1);
  // Plenty: a random quarter with 10% of the target's kind, a curated one with 80%.
  const TargetLike plenty = TargetLikeShare(target, Arm(0.8, 60, 2), Arm(0.1, 60, 4));
  EXPECT_GT(plenty.gain, 0.4);
  EXPECT_NEAR(plenty.curated, 0.8, 0.2);  // estimates the share like the target
  EXPECT_NEAR(plenty.random, 0.1, 0.1);
  EXPECT_LT(plenty.lo, plenty.gain);
  EXPECT_GT(plenty.hi, plenty.gain);
  EXPECT_GT(plenty.lo, 0);
  // Rare: the pool holds a trace; the curated quarter holds all of it and is closer than a
  // random one (which holds none), yet is still 95% something else.
  const TargetLike rare = TargetLikeShare(target, Arm(0.05, 60, 6), Arm(0.0, 60, 8));
  EXPECT_GT(rare.gain, 0);
  EXPECT_LT(rare.gain, 0.15);
  EXPECT_LT(rare.gain, plenty.gain / 4);
  // The pool reads like the target: both quarters are the target's kind (shares about 1);
  // nothing to gain, and the interval says so.
  const TargetLike same = TargetLikeShare(target, Arm(1.0, 200, 10), Arm(1.0, 200, 12));
  EXPECT_NEAR(same.gain, 0, 0.25);
  EXPECT_LE(same.lo, 0);
  EXPECT_GE(same.hi, 0);
  EXPECT_GT(same.random, 0.5);
}

TEST(TargetLikeShare, ItsAucIsClassifierAucAndTooFewPassagesGiveNothing) {
  const auto target = WordDocs(kCodeWords, 6, 300, 5);
  const auto random = WordDocs(kProseWords, 30, 300, 6);
  EXPECT_EQ(TargetLikeShare(target, random, random).auc, ClassifierAuc(target, random));
  const TargetLike none = TargetLikeShare({"one passage"}, random, random);
  EXPECT_EQ(none.gain, 0);
  EXPECT_EQ(none.auc, 0.5);
}

}  // namespace
}  // namespace preflight::forecast
