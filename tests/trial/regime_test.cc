// The regime check's n-gram models: known answers, probabilities that sum to 1, the engine's eval
// windows, and the margin and its JSON.

#include "trial/regime.h"

#include <gtest/gtest.h>

#include <cmath>

#include "testing/planted.h"
#include "testing/testing.h"
#include "engine/data.h"
#include "trial/byte_ngram.h"
#include "trial/ngram_scores.h"

namespace preflight::trial {
namespace {

using preflight::testing::ScratchDir;
using preflight::testing::TestRng;
using preflight::testing::WriteText;

std::vector<uint16_t> RandomBytes(uint64_t seed, size_t n) {
  TestRng rng(seed);
  std::vector<std::string> doc(1, std::string(n, '\0'));
  for (char& ch : doc[0]) ch = static_cast<char>(rng.Below(256));
  return engine::Tokenize(doc);
}

// Text made of common English words in random order: letters within a word follow English
// spelling, which an order-4 model sees and a bigram model does not.
std::vector<std::string> EnglishWords(uint64_t seed, int docs, int words) {
  static const char* kWords[] = {
      "the",         "of",          "and",        "to",        "in",        "that",
      "which",       "there",       "their",      "would",     "should",    "could",
      "through",     "between",     "without",    "nothing",   "people",    "government",
      "children",    "question",    "thought",    "brought",   "enough",    "something",
      "together",    "because",     "although",   "national",  "important", "different",
      "information", "development", "themselves", "therefore", "whether",   "probably"};
  constexpr int kCount = sizeof(kWords) / sizeof(kWords[0]);
  TestRng rng(seed);
  std::vector<std::string> out;
  for (int d = 0; d < docs; ++d) {
    std::string text;
    for (int w = 0; w < words; ++w) text += std::string(w ? " " : "") + kWords[rng.Below(kCount)];
    out.push_back(text + ".");
  }
  return out;
}

TEST(ByteNgramTest, KnownAnswerOnATinyStream) {
  // Stream 0 1 0 1: unigram counts {0: 2, 1: 2}, 2 types; bigram context 0 seen twice, always
  // followed by 1 (1 type).
  const std::vector<uint16_t> tokens = {0, 1, 0, 1};
  const ByteNgramModel model(tokens, 2);
  const double p1_of_1 = (2 + 2.0 / 257) / (4 + 2);
  EXPECT_DOUBLE_EQ(model.Probability(nullptr, 0, 1, 1), p1_of_1);
  const uint16_t context[] = {0};
  EXPECT_DOUBLE_EQ(model.Probability(context, 1, 1, 2), (2 + 1 * p1_of_1) / (2 + 1));
  const double p1_of_7 = (0 + 2.0 / 257) / (4 + 2);  // never seen: the floor's share
  EXPECT_DOUBLE_EQ(model.Probability(context, 1, 7, 2), (0 + 1 * p1_of_7) / (2 + 1));
  EXPECT_DOUBLE_EQ(model.Probability(context, 1, 7, 0), 1.0 / 257);
}

TEST(ByteNgramTest, EveryOrderSumsToOneOverTheNextSymbols) {
  const std::vector<std::string> docs = EnglishWords(3, 20, 200);
  const std::vector<uint16_t> tokens = engine::Tokenize(docs);
  const ByteNgramModel model(tokens, 4);
  const std::vector<std::vector<uint16_t>> contexts = {
      {}, {'t'}, {'t', 'h'}, {' ', 't', 'h'}, {256, 't', 'h'}, {'q', 'q', 'q'}, {0, 0, 0}};
  for (const auto& context : contexts) {
    for (int k = 0; k <= 4; ++k) {
      double sum = 0;
      for (int next = 0; next < kNgramAlphabet; ++next) {
        const double p = model.Probability(context.data(), static_cast<int>(context.size()),
                                           static_cast<uint16_t>(next), k);
        ASSERT_GT(p, 0) << "no symbol may get probability 0 (k=" << k << ")";
        sum += p;
      }
      EXPECT_NEAR(sum, 1.0, 1e-12) << "k=" << k << " context length " << context.size();
    }
  }
}

TEST(RegimeTest, OneRepeatedByteCostsAlmostNothing) {
  const std::vector<uint16_t> train = engine::Tokenize({std::string(100000, 'a')});
  const std::vector<uint16_t> eval = engine::Tokenize({std::string(1000, 'a')});
  auto s = ScoreNgramTokens(train, eval, 4, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_LT(s->unigram_bpb, 1e-3);  // the one boundary token aside, every target is 'a'
  EXPECT_LT(s->bigram_bpb, 1e-3);
  EXPECT_LT(s->ngram_bpb, 1e-3);
  EXPECT_EQ(s->ngram_order, 4);
}

TEST(RegimeTest, UniformRandomBytesCostEightBits) {
  auto s = ScoreNgramTokens(RandomBytes(1, 1 << 20), RandomBytes(2, 1 << 16), 4, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_NEAR(s->unigram_bpb, 8.0, 0.01);
  // Nothing to learn: the longer contexts only add noise, never a saving.
  EXPECT_GT(s->bigram_bpb, s->unigram_bpb - 0.005);
  EXPECT_GT(s->ngram_bpb, s->unigram_bpb - 0.005);
}

TEST(RegimeTest, OrderFourBeatsBigramOnEnglishWords) {
  auto s = ScoreNgramTokens(engine::Tokenize(EnglishWords(1, 50, 400)),
                            engine::Tokenize(EnglishWords(2, 5, 400)), 4, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_LT(s->bigram_bpb, s->unigram_bpb - 0.5);
  EXPECT_LT(s->ngram_bpb, s->bigram_bpb - 0.5);
  EXPECT_DOUBLE_EQ(BestNgramBpb(*s), s->ngram_bpb);
}

TEST(RegimeTest, ScoresTheEngineEvalWindows) {
  const std::vector<uint16_t> train = engine::Tokenize(EnglishWords(1, 20, 300));
  const std::vector<uint16_t> eval = engine::Tokenize(EnglishWords(2, 4, 300));
  const int64_t n = static_cast<int64_t>(eval.size());
  // One window over the whole stream is the whole stream.
  auto whole = ScoreNgramTokens(train, eval, 4, {});
  auto one_window = ScoreNgramTokens(train, eval, 4, {static_cast<int>(n - 1), 0});
  ASSERT_TRUE(whole.ok() && one_window.ok());
  EXPECT_DOUBLE_EQ(whole->ngram_bpb, one_window->ngram_bpb);
  // Windows of 1 token: each target sees exactly one token before it, so order 4 is a bigram;
  // the engine's windows tile every target once.
  auto short_windows = ScoreNgramTokens(train, eval, 4, {1, 0});
  auto bigram_only = ScoreNgramTokens(train, eval, 2, {});
  ASSERT_TRUE(short_windows.ok() && bigram_only.ok());
  EXPECT_NEAR(short_windows->ngram_bpb, bigram_only->ngram_bpb, 1e-12);
  // A subset of windows scores a subset of positions: a different, still finite number.
  auto some = ScoreNgramTokens(train, eval, 4, {64, 8});
  ASSERT_TRUE(some.ok());
  EXPECT_TRUE(std::isfinite(some->ngram_bpb));
  EXPECT_NE(some->ngram_bpb, whole->ngram_bpb);
  EXPECT_FALSE(ScoreNgramTokens(train, eval, 4, {static_cast<int>(n), 0}).ok());
  EXPECT_FALSE(ScoreNgramTokens(train, eval, 8, {}).ok());
}

TEST(RegimeTest, ScoreNgramsReadsFilesAsTheTrainerDoesAndNamesABadOne) {
  const std::string dir = ScratchDir("regime_files");
  WriteText(dir + "/train.jsonl",
            "{\"text\":\"the cat sat on the mat\"}\n{\"body\":\"x\",\"text\":\"the hat\"}\n");
  WriteText(dir + "/eval.jsonl", "{\"text\":\"the bat sat\"}\n");
  auto s = ScoreNgrams(dir + "/train.jsonl", {}, dir + "/eval.jsonl", {}, 4);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto tokens = ScoreNgramTokens(engine::Tokenize({"the cat sat on the mat", "the hat"}),
                                 engine::Tokenize({"the bat sat"}), 4, {});
  EXPECT_EQ(s->ngram_bpb, tokens->ngram_bpb);
  auto again = ScoreNgrams(dir + "/train.jsonl", {}, dir + "/eval.jsonl", {}, 4);
  EXPECT_EQ(s->ngram_bpb, again->ngram_bpb);  // deterministic, bit for bit
  auto missing = ScoreNgrams(dir + "/nope.jsonl", {}, dir + "/eval.jsonl", {}, 4);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.jsonl"), std::string::npos);
  auto too_short = ScoreNgrams(dir + "/train.jsonl", {}, dir + "/eval.jsonl", {}, 4, {64, 0});
  ASSERT_FALSE(too_short.ok());
  EXPECT_NE(too_short.status().message().find("eval.jsonl"), std::string::npos);
}

// An arm holds the pool's lines and T_eval the target's: each is read with its own text field.
TEST(RegimeTest, ScoreNgramsReadsTheArmAndTheEvalSetWithTheirOwnFields) {
  const std::string dir = ScratchDir("regime_fields");
  WriteText(dir + "/arm.jsonl",
            "{\"content\":\"the cat sat on the mat\"}\n{\"content\":\"the hat\"}\n");
  WriteText(dir + "/eval.jsonl", "{\"text\":\"the bat sat\"}\n");
  corpus::ReadOptions pool, target;
  pool.text_field = "content";
  auto s = ScoreNgrams(dir + "/arm.jsonl", pool, dir + "/eval.jsonl", target, 4);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto tokens = ScoreNgramTokens(engine::Tokenize({"the cat sat on the mat", "the hat"}),
                                 engine::Tokenize({"the bat sat"}), 4, {});
  EXPECT_EQ(s->ngram_bpb, tokens->ngram_bpb);
  // One field for both names the file and line that lacks it.
  auto wrong = ScoreNgrams(dir + "/arm.jsonl", pool, dir + "/eval.jsonl", pool, 4);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("eval.jsonl:1: no \"content\" field"), std::string::npos)
      << wrong.status().message();
}

TEST(RegimeTest, MarginIsTheBestNgramMinusLStar) {
  const NgramScores random{4.6, 3.6, 2.9, 4}, curated{4.5, 3.4, 2.7, 4};
  const Regime beaten = MakeRegime(random, {{"random", random}, {"curated", curated}}, 3.55);
  EXPECT_NEAR(beaten.margin, 2.9 - 3.55, 1e-12);
  EXPECT_FALSE(beaten.informative);
  const Regime beats = MakeRegime(random, {{"random", random}}, 2.5);
  EXPECT_NEAR(beats.margin, 0.4, 1e-12);
  EXPECT_TRUE(beats.informative);
  EXPECT_EQ(beats.threshold, kInformativeMarginBits);
  EXPECT_FALSE(MakeRegime(random, {}, 2.9 - kInformativeMarginBits / 2).informative);

  const nlohmann::json j = RegimeToJson(beaten);
  for (const char* key : {"unigram_bpb", "bigram_bpb", "ngram_bpb", "ngram_order", "l_star",
                          "margin", "threshold", "informative", "best_ngram_bpb"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["arms"]["curated"]["bigram_bpb"], 3.4);
  EXPECT_EQ(j["informative"], false);
}

TEST(RegimeTest, StoredScoresReadBackAndADamagedOneNamesFileAndPath) {
  const NgramScores s{4.61, 3.58, 2.93, 4};
  const nlohmann::json j = NgramScoresToJson(s);
  auto back = NgramScoresFromJson(JsonReader(j, "RUN/trial.json", "$.arms.random.ngram"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->bigram_bpb, 3.58);
  EXPECT_EQ(back->ngram_order, 4);
  nlohmann::json bad = j;
  bad["ngram_bpb"] = "low";
  auto damaged = NgramScoresFromJson(JsonReader(bad, "RUN/trial.json", "$.arms.random.ngram"));
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("RUN/trial.json: $.arms.random.ngram.ngram_bpb"),
            std::string::npos)
      << damaged.status().message();
}

}  // namespace
}  // namespace preflight::trial
