// Tokens, windows, the PRNG, the schedule and the JSONL reader.

#include "engine/data.h"

#include <gtest/gtest.h>

#include <fstream>

#include "engine/optimizer.h"
#include "engine/xoshiro.h"

namespace preflight::engine {
namespace {

TEST(Rng, MatchesPublishedSplitMix64AndIsStable) {
  // SplitMix64 from state 0 gives 0xe220a8397b1dcdaf first (Vigna's reference splitmix64.c).
  Rng rng(0);
  EXPECT_EQ(rng.state()[0], 0xe220a8397b1dcdafULL);
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; i++) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    EXPECT_NE(x, c.Next());
  }
  for (int i = 0; i < 1000; i++) EXPECT_LT(a.Below(7), 7u);
}

TEST(Tokenize, BoundaryBeforeEachDocument) {
  const std::vector<uint16_t> t = Tokenize({"ab", "", "\xff"});
  const std::vector<uint16_t> want = {256, 'a', 'b', 256, 256, 255};
  EXPECT_EQ(t, want);
}

TEST(WindowSampler, SameSeedSameWindowsAndTargetsShiftByOne) {
  std::vector<uint16_t> tokens;
  for (int i = 0; i < 500; i++) tokens.push_back(static_cast<uint16_t>(i % 257));
  WindowSampler a(&tokens, 8, 5), b(&tokens, 8, 5), c(&tokens, 8, 6);
  std::vector<int> ia(32), ta(32), ib(32), tb(32), ic(32), tc(32);
  a.Next(4, ia.data(), ta.data());
  b.Next(4, ib.data(), tb.data());
  c.Next(4, ic.data(), tc.data());
  EXPECT_EQ(ia, ib);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ia, ic);
  for (int b = 0; b < 4; b++) {
    for (int t = 0; t < 8; t++) EXPECT_EQ(ta[b * 8 + t], (ia[b * 8 + t] + 1) % 257);
  }
}

TEST(EvalWindows, CountEveryTargetExactlyOnce) {
  for (int64_t n : {9, 10, 17, 18, 100, 101}) {
    for (int T : {8, 1, 3}) {
      if (n < T + 1) continue;
      std::vector<int> counted(n, 0);
      for (const EvalWindow& w : MakeEvalWindows(n, T, 0)) {
        ASSERT_GE(w.start, 0);
        ASSERT_LE(w.start + T + 1, n);
        for (int t = w.first_counted; t < T; t++) counted[w.start + t + 1]++;
      }
      for (int64_t p = 1; p < n; p++)
        EXPECT_EQ(counted[p], 1) << "n " << n << " T " << T << " p " << p;
    }
  }
  EXPECT_EQ(MakeEvalWindows(1000, 8, 10).size(), 10u);
}

TEST(Schedule, WarmupThenCosineToTenPercent) {
  EXPECT_FLOAT_EQ(LearningRate(0, 100, 10, 1.0f, 0.1f), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(9, 100, 10, 1.0f, 0.1f), 1.0f);
  EXPECT_FLOAT_EQ(LearningRate(10, 100, 10, 1.0f, 0.1f), 1.0f);
  EXPECT_NEAR(LearningRate(55, 100, 10, 1.0f, 0.1f), 0.55f, 1e-6);
  EXPECT_NEAR(LearningRate(100, 100, 10, 1.0f, 0.1f), 0.1f, 1e-6);
  EXPECT_FLOAT_EQ(LearningRate(0, 10, 0, 2.0f, 0.1f), 2.0f);
}

TEST(GradClip, ScalesToMaxNormOnlyAboveIt) {
  std::vector<float> g = {3.0f, 4.0f};
  EXPECT_DOUBLE_EQ(ClipGradNorm(g.data(), 2, 1.0), 5.0);
  EXPECT_NEAR(g[0], 0.6f, 1e-6);
  EXPECT_NEAR(g[1], 0.8f, 1e-6);
  std::vector<float> small = {0.3f, 0.4f};
  ClipGradNorm(small.data(), 2, 1.0);
  EXPECT_EQ(small[0], 0.3f);
}

TEST(ReadJsonlTexts, ReadsTextAndNamesBadLines) {
  const std::string dir = PREFLIGHT_TEST_TMP;
  std::system(("mkdir -p " + dir).c_str());
  const std::string good = dir + "/train_good.jsonl", bad = dir + "/train_bad.jsonl";
  std::ofstream(good) << "{\"id\":1,\"text\":\"hello\"}\n\n{\"text\":\"w\\u00f6rld\"}\n";
  std::ofstream(bad) << "{\"text\":\"ok\"}\n{\"body\":\"no text\"}\n";
  auto texts = ReadJsonlTexts(good);
  ASSERT_TRUE(texts.ok()) << texts.status().message();
  ASSERT_EQ(texts->size(), 2u);
  EXPECT_EQ((*texts)[1], "w\xc3\xb6rld");
  auto err = ReadJsonlTexts(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find(bad + ":2"), std::string::npos) << err.status().message();
  EXPECT_EQ(ReadJsonlTexts(dir + "/missing.jsonl").status().kind(), Status::Kind::kNotFound);
}

}  // namespace
}  // namespace preflight::engine
