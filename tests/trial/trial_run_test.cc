// Whole trials on synthetic data with a very small model: the saving has the right sign where the
// answer is known, and an interrupted trial gives the same numbers as an uninterrupted one.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

#include "testing/planted.h"
#include "testing/testing.h"
#include "testing/trial_result.h"
#include "engine/config.h"
#include "trial/ngram_scores.h"
#include "trial/runner.h"

namespace preflight::trial {
namespace {

using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

// A model small enough that a run of 150 steps takes about a second on one core.
engine::ModelConfig MicroModel() {
  engine::ModelConfig m;
  m.layers = 1;
  m.d_model = 32;
  m.heads = 2;
  m.context = 32;
  m.batch = 8;
  return m;
}

TrialConfig MicroTrial(const std::string& dir) {
  TrialConfig c;
  c.pool = {dir + "/pool.jsonl"};
  c.target_select = dir + "/target.jsonl";
  c.target_eval = dir + "/eval.jsonl";
  c.selector = "dsir";
  c.seeds = 3;
  c.model_name = "micro";
  c.model = MicroModel();
  c.steps = 150;
  c.eval_every = 10;
  c.eval_max_windows = 64;
  c.lr = 3e-3f;
  c.threads = 1;
  c.out_dir = dir + "/trial";
  return c;
}

// The held-out target: more documents in the planted style (fixed seed, disjoint text).
void WriteEval(const std::string& dir, const std::string& vocab, uint64_t seed) {
  preflight::testing::TestRng rng(seed);
  std::string eval;
  for (int i = 0; i < 20; ++i) {
    eval += nlohmann::json{{"text", preflight::testing::MakeDoc(rng, vocab, 150)}}.dump() + "\n";
  }
  WriteText(dir + "/eval.jsonl", eval);
}

// The target's domain is planted in 30% of the pool: the curated arm trains on it and must reach
// the random arm's best held-out loss well before the budget. Tolerance: gross > 0.2 (a curated
// arm of mostly planted documents sees about three times as much target-like text per step).
TEST(TrialRun, PlantedDomainSavesCompute) {
  std::string dir = ScratchDir("trial_planted");
  preflight::testing::WritePlantedPool(dir, 300, 0.30, 40, 5);
  WriteEval(dir, "tg", 99);
  auto out = RunTrial(MicroTrial(dir));
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Comparison& c = out->trial.comparisons.at(0);
  EXPECT_TRUE(c.saving.caught_up);
  EXPECT_GT(c.saving.gross, 0.2);
  EXPECT_GT(c.saving.net, 0.0);
  // The net saving charges each arm's measured selection cost, exactly by DESIGN's formula.
  const double f = out->trial.core_seconds_per_step;
  EXPECT_GT(c.arm_cost_core_seconds, 0.0);
  EXPECT_GT(c.baseline_cost_core_seconds, 0.0);
  EXPECT_DOUBLE_EQ(c.saving.net, 1 - (c.saving.t_arm * f + c.arm_cost_core_seconds) /
                                         (c.saving.t_baseline * f + c.baseline_cost_core_seconds));
  EXPECT_TRUE(Exists(dir + "/trial/trial.json"));
  // Every run was trained and recorded (compute matching is checked over them).
  EXPECT_EQ(out->runs.size(), 6u);
}

// The "target" is ordinary pool text (background style, like 100% of the pool): there is nothing
// to curate toward, and the 95% interval of the net saving must contain zero.
TEST(TrialRun, TargetLikeThePoolShowsNoSaving) {
  std::string dir = ScratchDir("trial_null");
  preflight::testing::WritePlantedPool(dir, 300, 0.0, 40, 6);
  // Replace the planted-style target by background-style text.
  preflight::testing::TestRng rng(17);
  std::string target;
  for (int i = 0; i < 40; ++i)
    target += nlohmann::json{{"text", preflight::testing::MakeDoc(rng, "bg", 150)}}.dump() + "\n";
  WriteText(dir + "/target.jsonl", target);
  WriteEval(dir, "bg", 98);
  auto out = RunTrial(MicroTrial(dir));
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Comparison& c = out->trial.comparisons.at(0);
  double lo = c.ci.net.lo, hi = c.ci.net.hi;
  EXPECT_TRUE(lo <= 0.0 && 0.0 <= hi)
      << "net " << c.saving.net << " interval [" << lo << ", " << hi << "]";
}

TEST(TrialRun, ADifferentConfigInTheSameFolderIsRefused) {
  std::string dir = ScratchDir("trial_refuse");
  preflight::testing::WritePlantedPool(dir, 60, 0.3, 10, 7);
  WriteEval(dir, "tg", 97);
  TrialConfig c = MicroTrial(dir);
  c.seeds = 1;
  c.steps = 20;
  ASSERT_TRUE(RunTrial(c).ok());
  c.steps = 30;
  auto again = RunTrial(c);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("this folder holds a different trial (steps differ)"),
            std::string::npos)
      << again.status().message();
}

// kill -9 in the middle of the second run, then the same command: the finished run is reused,
// the interrupted one resumes from its checkpoint, and the result matches an uninterrupted trial.
TEST(TrialRun, KillNineThenRerunGivesTheUninterruptedResult) {
  std::string dir = ScratchDir("trial_kill");
  preflight::testing::WritePlantedPool(dir, 200, 0.3, 20, 8);
  WriteEval(dir, "tg", 96);
  std::string flags =
      "--pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
      dir +
      "/eval.jsonl --selector dsir --seeds 2 --steps 400 --eval-every 20 --eval-windows 64 "
      "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1 --quiet --json";
  auto clean =
      RunCli("trial " + flags + " --out " + dir + "/clean --ledger " + dir + "/clean.ledger");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;

  // Wait until the second run has written a checkpoint, then kill without warning.
  ASSERT_TRUE(preflight::testing::KillCliOnceExists(
      "trial " + flags + " --out " + dir + "/killed --ledger " + dir + "/killed.ledger",
      dir + "/killed/runs/random-s2/checkpoint.bin"))
      << "the trial never reached its second run";
  ASSERT_FALSE(Exists(dir + "/killed/result.json")) << "killed too late: the trial had finished";

  auto resumed =
      RunCli("trial " + flags + " --out " + dir + "/killed --ledger " + dir + "/killed.ledger");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto a = nlohmann::json::parse(ReadText(dir + "/clean/result.json"));
  auto b = nlohmann::json::parse(ReadText(dir + "/killed/result.json"));
  EXPECT_EQ(preflight::testing::WithoutMeasuredCosts(a).dump(),
            preflight::testing::WithoutMeasuredCosts(b).dump());
  EXPECT_GE(nlohmann::json::parse(resumed.out)["reused_runs"].get<int>(), 1);
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/killed.ledger").exit_code, 0);
}

// The regime check: every arm's byte n-gram scores are computed before training and stored in
// trial.json; the outcome's regime compares the random arm's with L*, LoadTrial reproduces it bit
// for bit, a folder from before the check still loads (without one), and its rerun adds it.
TEST(TrialRun, RegimeIsStoredAndReadBack) {
  std::string dir = ScratchDir("trial_regime");
  preflight::testing::WritePlantedPool(dir, 60, 0.3, 10, 9);
  WriteEval(dir, "tg", 95);
  TrialConfig c = MicroTrial(dir);
  c.seeds = 1;
  c.steps = 40;
  auto out = RunTrial(c);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_TRUE(out->regime.has_value());
  const Regime& r = *out->regime;
  ASSERT_EQ(r.arms.size(), 2u);
  EXPECT_EQ(r.baseline_arm, "random");
  EXPECT_EQ(r.baseline.ngram_bpb, r.arms.at("random").ngram_bpb);
  EXPECT_EQ(r.l_star, out->trial.comparisons.at(0).saving.l_star);
  EXPECT_DOUBLE_EQ(r.margin, BestNgramBpb(r.baseline) - r.l_star);
  EXPECT_EQ(r.informative, r.margin >= r.threshold);
  // The scores are those of ScoreNgrams on the arm's file and the trial's eval windows.
  auto direct = ScoreNgrams(dir + "/trial/arms/curated.jsonl", {}, c.target_eval, {}, 4,
                            {c.model.context, c.eval_max_windows});
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_EQ(direct->bigram_bpb, r.arms.at("curated").bigram_bpb);

  auto loaded = LoadTrial(c.out_dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_TRUE(loaded->regime.has_value());
  EXPECT_EQ(RegimeToJson(*loaded->regime).dump(), RegimeToJson(r).dump());

  // A folder written before the check: no "ngram" in trial.json.
  auto manifest = nlohmann::json::parse(ReadText(c.out_dir + "/trial.json"));
  for (auto& [name, arm] : manifest["arms"].items()) arm.erase("ngram");
  WriteText(c.out_dir + "/trial.json", manifest.dump(2));
  auto old = LoadTrial(c.out_dir);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_FALSE(old->regime.has_value());
  auto rerun = RunTrial(c);
  ASSERT_TRUE(rerun.ok()) << rerun.status().message();
  EXPECT_EQ(rerun->reused_runs, 2);
  ASSERT_TRUE(rerun->regime.has_value());
  EXPECT_EQ(RegimeToJson(*rerun->regime).dump(), RegimeToJson(r).dump());
}

// `trial --json` carries DESIGN's regime keys; result.json, the screen and the page carry them too.
TEST(TrialRun, TrialJsonTextAndReportCarryTheRegime) {
  std::string dir = ScratchDir("trial_regime_cli");
  preflight::testing::WritePlantedPool(dir, 60, 0.3, 10, 10);
  WriteEval(dir, "tg", 94);
  std::string flags = "trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                      "/target.jsonl --target-eval " + dir +
                      "/eval.jsonl --selector dsir --seeds 1 --steps 30 --eval-every 10 "
                      "--eval-windows 32 --layers 1 --d-model 32 --heads 2 --context 32 "
                      "--batch 8 --threads 1 --quiet --ledger " +
                      dir + "/ledger.jsonl --out " + dir + "/trial";
  auto json_run = RunCli(flags + " --json");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  ASSERT_TRUE(doc.contains("regime")) << json_run.out;
  for (const char* key : {"unigram_bpb", "bigram_bpb", "ngram_bpb", "ngram_order", "l_star",
                          "margin", "threshold", "informative"}) {
    EXPECT_TRUE(doc["regime"].contains(key)) << key;
  }
  EXPECT_EQ(doc["regime"]["l_star"], doc["l_star"]);
  const auto result = nlohmann::json::parse(ReadText(dir + "/trial/result.json"));
  EXPECT_EQ(result["regime"], doc["regime"]);
  EXPECT_NE(ReadText(dir + "/trial/report.html").find("<section id=\"regime\""), std::string::npos);
  auto text_run = RunCli(flags);  // the same trial again: every run reused
  ASSERT_EQ(text_run.exit_code, 0) << text_run.err;
  EXPECT_NE(text_run.out.find("  regime                     "), std::string::npos) << text_run.out;
}

}  // namespace
}  // namespace preflight::trial
