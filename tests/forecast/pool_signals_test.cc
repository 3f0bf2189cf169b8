#include "forecast/pool_signals.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight::forecast {
namespace {

// Documents of words drawn from one vocabulary, deterministic.
std::vector<std::string> Docs(const std::vector<std::string>& words, int docs, int per_doc,
                              uint64_t seed) {
  std::vector<std::string> out;
  uint64_t state = seed;
  for (int d = 0; d < docs; ++d) {
    std::string text;
    for (int w = 0; w < per_doc; ++w) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      text += (w ? " " : "") + words[(state >> 33) % words.size()];
    }
    out.push_back(text);
  }
  return out;
}

const std::vector<std::string> kCode = {"int", "return", "void", "struct", "const", "auto"};
const std::vector<std::string> kProse = {"river", "morning", "gentle", "quiet", "stone", "light"};

TEST(NgramCoverage, ByHandOnShortTexts) {
  // Target 4-grams: "abcd", "bcde" (2); the arm holds "abcd" only.
  EXPECT_DOUBLE_EQ(NgramCoverage({"xabcdx"}, {"abcde"}), 0.5);
  EXPECT_DOUBLE_EQ(NgramCoverage({"abcde"}, {"abcde"}), 1.0);
  EXPECT_DOUBLE_EQ(NgramCoverage({"zzzz"}, {"abc"}), 0.0);  // no 4-gram in the target
}

TEST(NgramCoverageGain, PositiveWhenTheCuratedArmHoldsTheTargetsText) {
  const auto target = Docs(kCode, 4, 50, 1);
  const auto curated = Docs(kCode, 20, 50, 2);
  const auto random = Docs(kProse, 20, 50, 3);
  EXPECT_GT(NgramCoverageGain(curated, random, target), 0.5);
  EXPECT_LT(NgramCoverageGain(random, curated, target), -0.5);
}

TEST(ClassifierAuc, SeparatesUnlikeTextAndNotLikeText) {
  const auto target = Docs(kCode, 8, 400, 1);
  EXPECT_GT(ClassifierAuc(target, Docs(kProse, 40, 400, 2)), 0.95);
  // The same distribution: a classifier can do no better than chance, give or take noise.
  EXPECT_NEAR(ClassifierAuc(target, Docs(kCode, 40, 400, 3)), 0.5, 0.25);
  EXPECT_DOUBLE_EQ(ClassifierAuc({"one passage"}, Docs(kProse, 4, 10, 4)), 0.5);  // too few
}

TEST(ClassifierAuc, Deterministic) {
  const auto target = Docs(kCode, 6, 300, 5);
  const auto arm = Docs(kProse, 30, 300, 6);
  EXPECT_EQ(ClassifierAuc(target, arm), ClassifierAuc(target, arm));
}

}  // namespace
}  // namespace preflight::forecast
