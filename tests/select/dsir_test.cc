#include "select/dsir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "select/features.h"

namespace preflight::select {
namespace {

std::vector<uint64_t> Tokens(std::string_view text) {
  std::vector<uint64_t> out;
  ForEachTokenHash(text, [&](uint64_t h) { out.push_back(h); });
  return out;
}

TEST(Features, TokenizerIsLowercaseWordPunct) {
  // "Hello, World!!" -> hello , world !!  (punctuation runs are one token, as \w+|[^\w\s]+).
  EXPECT_EQ(TokenHash("Hello"), TokenHash("hello"));
  EXPECT_NE(TokenHash("hello"), TokenHash("hellp"));
  auto toks = Tokens("Hello, World!!");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0], TokenHash("hello"));
  EXPECT_EQ(toks[1], TokenHash(","));
  EXPECT_EQ(toks[2], TokenHash("world"));
  EXPECT_EQ(toks[3], TokenHash("!!"));
  // UTF-8 letters stay inside words; case folding is ASCII only.
  auto utf = Tokens("caf\xc3\xa9 Caf\xc3\xa9");
  ASSERT_EQ(utf.size(), 2u);
  EXPECT_EQ(utf[0], utf[1]);
}

TEST(Features, LongTokensAreOneToken) {
  std::string long_word(1000, 'Q');
  std::string lower(1000, 'q');
  auto toks = Tokens(long_word);
  ASSERT_EQ(toks.size(), 1u);
  EXPECT_EQ(toks[0], TokenHash(lower));
}

// Buckets are a fixed function of the text (FNV-1a + SplitMix64 finaliser + multiply-shift), the
// same on every machine and every run: these values are part of the format of a DSIR fit and must
// never change silently.
TEST(Features, BucketsAreStable) {
  std::vector<uint32_t> got;
  ForEachFeature("the cat", 10000, 2, [&](uint32_t b) { got.push_back(b); });
  ASSERT_EQ(got.size(), 3u);  // the, cat, "the cat"
  const std::vector<uint32_t> golden = {2059, 9495, 9509};
  EXPECT_EQ(got, golden);
}

// A hand-computed example: 4 buckets, unigrams only, so every feature can be listed.
TEST(Dsir, WeightsMatchTheFormulaByHand) {
  DsirOptions o;
  o.buckets = 4;
  o.ngrams = 1;
  o.smoothing = 1.0;
  o.length = "sum";
  // Counts per bucket, as if fitted: target 3,1,0,0 (4 features); pool 1,1,1,1 (4 features).
  std::vector<uint64_t> target = {3, 1, 0, 0}, pool = {1, 1, 1, 1};
  auto model = DsirModel::Fit(target, pool, o);
  ASSERT_TRUE(model.ok());
  // p_t = (c + 1) / (4 + 4) = 4/8, 2/8, 1/8, 1/8; p_p = 2/8 each.
  const double expected[4] = {std::log(4.0 / 2.0), std::log(2.0 / 2.0), std::log(1.0 / 2.0),
                              std::log(1.0 / 2.0)};
  for (int b = 0; b < 4; ++b) EXPECT_NEAR(model->log_ratio()[b], expected[b], 1e-12);

  // A document's log weight is the sum over its features of the bucket's log ratio.
  std::string doc = "alpha beta alpha gamma";
  std::map<uint32_t, int> counts;
  ForEachFeature(doc, 4, 1, [&](uint32_t b) { ++counts[b]; });
  double by_hand = 0;
  for (auto [b, c] : counts) by_hand += c * expected[b];
  EXPECT_NEAR(model->LogWeight(doc), by_hand, 1e-9);

  // "normalize" scales the mean log ratio per feature to 255 features (a 128-word chunk).
  DsirOptions n = o;
  n.length = "normalize";
  auto normalized = DsirModel::Fit(target, pool, n);
  ASSERT_TRUE(normalized.ok());
  EXPECT_NEAR(normalized->LogWeight(doc), by_hand / 4.0 * 255.0, 1e-9);
  EXPECT_EQ(normalized->LogWeight(""), 0.0);
}

TEST(Dsir, RefusesAnEmptySide) {
  DsirOptions o;
  o.buckets = 2;
  EXPECT_FALSE(DsirModel::Fit({0, 0}, {1, 1}, o).ok());
  EXPECT_FALSE(DsirModel::Fit({1, 1}, {0, 0}, o).ok());
}

}  // namespace
}  // namespace preflight::select
