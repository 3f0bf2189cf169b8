// The cross-fitted signals (cross_fit.h), the n-gram learning curves (ngram_curve.h) and the
// curated quarter's concentration (concentration.h), on texts made here.

#include "forecast/cross_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/concentration.h"
#include "forecast/ngram_curve.h"
#include "testing/testing.h"
#include "testing/word_docs.h"

namespace preflight::forecast {
namespace {

using testing::kCodeWords;
using testing::kMailWords;
using testing::kProseWords;
using testing::WordDocs;

std::vector<std::string> Join(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(CurveSaving, TheTrialsMeasureOnTwoCurvesByHand) {
  const double u = std::log2(257.0);  // both curves start at the uniform model
  // Random reaches its lowest, 4.0, at 400 tokens; curated is at 4.0 at 200: saving 1 - 200/400.
  EXPECT_NEAR(CurveSaving({100, 200, 400}, {5.0, 4.0, 3.5}, {6.0, 5.0, 4.0}), 0.5, 1e-12);
  // Curated crosses 4.0 halfway between 100 (5.0) and 200 (3.0): at 150 tokens.
  EXPECT_NEAR(CurveSaving({100, 200, 400}, {5.0, 3.0, 2.0}, {6.0, 5.0, 4.0}), 1 - 150.0 / 400,
              1e-12);
  // Already below it at the first point: crossed between 0 tokens (u bits) and 100.
  EXPECT_NEAR(CurveSaving({100, 200}, {3.0, 2.0}, {6.0, 4.0}),
              1 - 100 * (u - 4.0) / (u - 3.0) / 200, 1e-12);
  // Never reaches the random arm's lowest point within the budget: -1, the trial's label.
  EXPECT_EQ(CurveSaving({100, 200, 400}, {5.0, 4.5, 4.2}, {6.0, 5.0, 4.0}), -1.0);
  // Equal curves: the curated arm reaches it when the random one does.
  EXPECT_NEAR(CurveSaving({100, 200}, {5.0, 4.0}, {5.0, 4.0}), 0.0, 1e-12);
}

TEST(NgramCurve, AQuarterOfTheTargetsKindLearnsItFasterAndDeterministically) {
  NgramSchedule s;
  s.steps = 40;
  s.batch = 4;
  s.context = 32;
  s.points = 3;
  const std::vector<std::string> target = WordDocs(kCodeWords, 20, 60, 1);
  const std::vector<std::string> like = WordDocs(kCodeWords, 40, 80, 2);
  const std::vector<std::string> mixed =
      Join(WordDocs(kCodeWords, 10, 80, 3), WordDocs(kProseWords, 30, 80, 4));
  const ArmCurve c = FitArmCurve(like, target, s), r = FitArmCurve(mixed, target, s);
  ASSERT_EQ(c.bits.size(), 3u);
  ASSERT_EQ(c.tokens_seen.size(), 3u);
  EXPECT_LT(c.tokens_seen[0], c.tokens_seen[2]);
  // S x B windows of T + 1 tokens, each after a boundary token.
  EXPECT_EQ(c.tokens_seen[2], 40.0 * 4 * (32 + 2));
  const CurveSignals sig = CompareCurves(c, r, 200);
  EXPECT_GT(sig.gain.gain, 0);
  EXPECT_GT(sig.gain.lo, 0);
  EXPECT_GT(sig.saving.gain, 0);
  EXPECT_LE(sig.saving.gain, 1);
  // The other way round, the curated quarter is mostly another kind of text: no saving.
  const CurveSignals back =
      CompareCurves(FitArmCurve(WordDocs(kProseWords, 40, 80, 5), target, s), r, 200);
  EXPECT_LT(back.gain.gain, 0);
  EXPECT_EQ(back.saving.gain, -1.0);
  // The same inputs, the same bits.
  const ArmCurve again = FitArmCurve(like, target, s);
  EXPECT_EQ(again.bits, c.bits);
}

TEST(Concentration, ACuratedQuarterThatDropsThePoolsLargestKindKeepsNoneOfIt) {
  // The random quarter: 60% prose, 40% code; the curated quarter: code only.
  const std::vector<std::string> random =
      Join(WordDocs(kProseWords, 60, 50, 7), WordDocs(kCodeWords, 40, 50, 8));
  const std::vector<std::string> curated = WordDocs(kCodeWords, 50, 50, 9);
  const Concentration k = MeasureConcentration(curated, random, 2);
  EXPECT_GT(k.largest_source_random, 0.3);
  EXPECT_LT(k.largest_source_kept, 0.05);
  EXPECT_GT(k.top_gain, 0);
  // A quarter drawn like the random one keeps about as much of it.
  const std::vector<std::string> alike =
      Join(WordDocs(kProseWords, 30, 50, 10), WordDocs(kCodeWords, 20, 50, 11));
  const Concentration same = MeasureConcentration(alike, random, 2);
  EXPECT_NEAR(same.largest_source_kept, 1.0, 0.3);
  EXPECT_NEAR(same.top_gain, 0.0, 0.2);
}

TEST(SplitHalves, ByPositionOrByPiecesWhenTooFewDocuments) {
  auto halves = SplitHalves({"a", "b", "c", "d", "e"});
  EXPECT_EQ(halves[0], (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_EQ(halves[1], (std::vector<std::string>{"b", "d"}));
  // One document of 10 KiB: three pieces of at most 4 KiB, alternately.
  halves = SplitHalves({std::string(10240, 'x')});
  ASSERT_EQ(halves[0].size(), 2u);
  ASSERT_EQ(halves[1].size(), 1u);
  EXPECT_EQ(halves[0][0].size(), 4096u);
  EXPECT_EQ(halves[1][0].size(), 4096u);
  EXPECT_EQ(halves[0][1].size(), 2048u);
}

std::string Jsonl(const std::vector<std::string>& texts, const std::string& prefix) {
  std::string out;
  for (size_t i = 0; i < texts.size(); ++i) {
    out += nlohmann::json{{"id", prefix + std::to_string(i)}, {"text", texts[i]}}.dump() + "\n";
  }
  return out;
}

// Through the selections: a pool with the target's kind in it, and a target of a kind the pool
// lacks. The selected quarter, judged on the half it did not read, is closer in the first case
// and not in the second.
TEST(CrossFitSignals, OutOfSampleGainsSeeAPlantedKindAndNotAnAbsentOne) {
  const std::string dir = testing::ScratchDir("cross_fit");
  const std::vector<std::string> pool =
      Join(Join(WordDocs(kCodeWords, 40, 80, 21), WordDocs(kProseWords, 80, 80, 22)),
           WordDocs(kMailWords, 80, 80, 23));
  testing::WriteText(dir + "/pool.jsonl", Jsonl(pool, "p"));
  CrossFitOptions o;
  o.spec.pool = {dir + "/pool.jsonl"};
  o.spec.threads = 1;
  o.schedule.steps = 40;
  o.schedule.batch = 4;
  o.schedule.context = 32;
  o.work_dir = dir;
  o.curve_signals = true;
  const std::vector<std::string> random =
      Join(Join(WordDocs(kCodeWords, 10, 80, 24), WordDocs(kProseWords, 20, 80, 25)),
           WordDocs(kMailWords, 20, 80, 26));
  auto planted = CrossFitSignals(o, WordDocs(kCodeWords, 16, 80, 27), random);
  ASSERT_TRUE(planted.ok()) << planted.status().message();
  for (const char* name : {"xfit_bigram_gain", "ngram_curve_gain", "xfit_target_like_gain"}) {
    EXPECT_GT(planted->signals.at(name).lo, 0) << name;
  }
  EXPECT_GT(planted->signals.at("ngram_curve_saving").value, 0);
  EXPECT_EQ(planted->evidence["halves"], nlohmann::json({8, 8}));
  // Greek words: bytes the pool never holds; no quarter of it is closer than another.
  const std::vector<std::string> greek = {"αλφα", "βητα", "γαμμα", "δελτα", "ψυχη", "λογος"};
  auto absent = CrossFitSignals(o, WordDocs(greek, 16, 80, 28), random);
  ASSERT_TRUE(absent.ok()) << absent.status().message();
  for (const char* name : {"xfit_bigram_gain", "ngram_curve_gain", "ngram_curve_saving"}) {
    EXPECT_LE(absent->signals.at(name).value, 0) << name;  // not closer, out of sample
  }
  EXPECT_LT(absent->signals.at("xfit_target_like_gain").value, 0.1);
  // A target of one short document cannot be split into two halves of text.
  EXPECT_FALSE(CrossFitSignals(o, {"x"}, random).ok());
}

}  // namespace
}  // namespace preflight::forecast
