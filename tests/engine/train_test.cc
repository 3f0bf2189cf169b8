// Train as the trial module calls it: determinism, stop-and-resume giving the identical curve,
// refusal of a foreign checkpoint, and every bad-input case with its message.

#include "engine/train.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/file.h"
#include "base/progress.h"
#include "engine/checkpoint.h"
#include "test_util.h"

namespace preflight::engine {
namespace {

using testing::EvalDocs;
using testing::FreshDir;
using testing::TrainDocs;

TrainOptions Tiny(const std::string& run_dir) {
  TrainOptions o;
  o.model = {.layers = 2, .d_model = 16, .heads = 2, .context = 16, .batch = 4};
  o.run_dir = run_dir;
  o.steps = 12;
  o.eval_every = 4;
  o.threads = 1;
  o.lr = 3e-3f;
  o.seed = 7;
  return o;
}

void ExpectSameCurve(const TrainResult& a, const TrainResult& b) {
  ASSERT_EQ(a.curve.size(), b.curve.size());
  for (size_t i = 0; i < a.curve.size(); i++) {
    EXPECT_EQ(a.curve[i].step, b.curve[i].step);
    EXPECT_EQ(a.curve[i].eval_bpb, b.curve[i].eval_bpb) << "point " << i;  // bit-identical
  }
}

TEST(Train, LearnsAndReportsShape) {
  auto r = TrainOnDocuments(Tiny(""), TrainDocs(), EvalDocs());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->curve.size(), 4u);  // steps 0, 4, 8, 12
  EXPECT_EQ(r->curve.back().step, 12);
  EXPECT_LT(r->final_eval_bpb, r->curve.front().eval_bpb - 0.5);
  EXPECT_NEAR(r->curve.front().eval_bpb, std::log2(257.0), 0.1);  // untrained: uniform
  EXPECT_EQ(r->tokens_per_step, 64);
  EXPECT_EQ(r->params, ParamCount(Tiny("").model));
  EXPECT_DOUBLE_EQ(r->flops_per_step, FlopsPerToken(Tiny("").model) * 64);
  EXPECT_TRUE(r->completed);
  EXPECT_FALSE(r->resumed);
}

// Progress: one report per training step, in order, reaching the run's steps, each with its
// loss and learning rate; one per eval, with the curve's point and no training loss.
TEST(Train, ProgressReportsEveryStepAndEval) {
  std::vector<ProgressReport> steps, evals;
  auto r = TrainOnDocuments(Tiny(""), TrainDocs(), EvalDocs(), [&](const ProgressReport& p) {
    (std::isnan(p.eval_bpb) ? steps : evals).push_back(p);
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(steps.size(), 12u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].stage, "train");
    EXPECT_EQ(steps[i].unit, "step");
    EXPECT_EQ(steps[i].done, i + 1);
    EXPECT_EQ(steps[i].total, 12u);
    EXPECT_TRUE(std::isfinite(steps[i].train_loss) && steps[i].train_loss > 0);
    EXPECT_TRUE(steps[i].lr > 0);
    EXPECT_GT(steps[i].tokens_per_second, 0);
  }
  EXPECT_EQ(steps.back().train_loss, r->final_train_loss);
  ASSERT_EQ(evals.size(), r->curve.size());
  for (size_t i = 0; i < evals.size(); ++i) {
    EXPECT_EQ(evals[i].done, static_cast<uint64_t>(r->curve[i].step));
    EXPECT_EQ(evals[i].eval_bpb, r->curve[i].eval_bpb);
    EXPECT_TRUE(std::isnan(evals[i].train_loss));
  }
}

TEST(Train, SameSeedSameCurveOtherSeedOtherCurve) {
  auto a = TrainOnDocuments(Tiny(""), TrainDocs(), EvalDocs());
  auto b = TrainOnDocuments(Tiny(""), TrainDocs(), EvalDocs());
  TrainOptions other = Tiny("");
  other.seed = 8;
  auto c = TrainOnDocuments(other, TrainDocs(), EvalDocs());
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ExpectSameCurve(*a, *b);
  EXPECT_NE(a->final_eval_bpb, c->final_eval_bpb);
}

// A model whose products are large enough to be split into slabs (src/engine/blas.cc), trained
// on 1, 2 and 3 threads.
TEST(Train, ThreadCountDoesNotChangeTheCurve) {
  if (auto why = testing::ThreadCountMayChangeBits(); !why.empty()) GTEST_SKIP() << why;
  TrainOptions one = Tiny("");
  one.model = {.layers = 1, .d_model = 64, .heads = 2, .context = 64, .batch = 8};
  one.steps = 6;
  one.eval_every = 3;
  auto a = TrainOnDocuments(one, TrainDocs(), EvalDocs());
  ASSERT_TRUE(a.ok()) << a.status().message();
  for (int threads : {2, 3}) {
    TrainOptions more = one;
    more.threads = threads;
    auto b = TrainOnDocuments(more, TrainDocs(), EvalDocs());
    ASSERT_TRUE(b.ok()) << b.status().message();
    ExpectSameCurve(*a, *b);
  }
}

TEST(Train, StopAndResumeGivesTheIdenticalCurveAndWeights) {
  const std::string full_dir = FreshDir("train_full"), cut_dir = FreshDir("train_cut");
  auto full = TrainOnDocuments(Tiny(full_dir), TrainDocs(), EvalDocs());
  ASSERT_TRUE(full.ok()) << full.status().message();
  for (int64_t stop : {5, 8}) {  // between evals, and at an eval
    FreshDir("train_cut");
    TrainOptions cut = Tiny(cut_dir);
    cut.stop_after_step = stop;
    auto first = TrainOnDocuments(cut, TrainDocs(), EvalDocs());
    ASSERT_TRUE(first.ok()) << first.status().message();
    EXPECT_FALSE(first->completed);
    EXPECT_EQ(first->steps, stop);
    auto rest = TrainOnDocuments(Tiny(cut_dir), TrainDocs(), EvalDocs());
    ASSERT_TRUE(rest.ok()) << rest.status().message();
    EXPECT_TRUE(rest->resumed);
    EXPECT_TRUE(rest->completed);
    ExpectSameCurve(*full, *rest);
    auto a = ReadCheckpoint(full_dir + "/checkpoint.bin");
    auto b = ReadCheckpoint(cut_dir + "/checkpoint.bin");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->params, b->params) << "stopped at " << stop;
    EXPECT_EQ(a->adam_v, b->adam_v);
    EXPECT_EQ(*ReadFileToString(full_dir + "/curve.jsonl"),
              *ReadFileToString(cut_dir + "/curve.jsonl"));
  }
  // A finished run is returned from its checkpoint without training.
  auto again = TrainOnDocuments(Tiny(full_dir), TrainDocs(), EvalDocs());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->resumed);
  ExpectSameCurve(*full, *again);
}

TEST(Train, RefusesACheckpointOfAnotherRun) {
  const std::string dir = FreshDir("train_foreign");
  ASSERT_TRUE(TrainOnDocuments(Tiny(dir), TrainDocs(), EvalDocs()).ok());
  TrainOptions other = Tiny(dir);
  other.seed = 99;
  auto r = TrainOnDocuments(other, TrainDocs(), EvalDocs());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(r.status().message().find("different run"), std::string::npos);
}

TEST(Train, BadInputsSayWhat) {
  struct Case {
    const char* what;
    TrainOptions options;
    std::vector<std::string> train, eval;
    const char* expect;
  };
  TrainOptions heads = Tiny("");
  heads.model.heads = 3;
  TrainOptions zero_layers = Tiny("");
  zero_layers.model.layers = 0;
  const Case cases[] = {
      {"short data", Tiny(""), {"too short"}, EvalDocs(), "fewer than one context window"},
      {"empty eval", Tiny(""), TrainDocs(), {}, "eval set is empty"},
      {"short eval", Tiny(""), TrainDocs(), {"abc"}, "fewer than one context window"},
      {"heads", heads, TrainDocs(), EvalDocs(), "not divisible by --heads"},
      {"layers", zero_layers, TrainDocs(), EvalDocs(), "--layers must be positive"},
  };
  for (const Case& c : cases) {
    auto r = TrainOnDocuments(c.options, c.train, c.eval);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.status().ExitCode(), 2) << c.what;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << c.what << ": " << r.status().message();
  }
  auto unknown = NamedModel("huge");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().ExitCode(), 2);
  EXPECT_NE(unknown.status().message().find("tiny, small, medium"), std::string::npos);
}

TEST(Train, DivergenceStopsWithTheStepAndKeepsTheLastGoodCheckpoint) {
  const std::string dir = FreshDir("train_nan");
  TrainOptions o = Tiny(dir);
  o.lr = 1e30f;
  o.warmup_steps = 0;
  o.steps = 50;
  o.eval_every = 50;
  o.checkpoint_every = 1;
  auto r = TrainOnDocuments(o, TrainDocs(), EvalDocs());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().ExitCode(), 2);
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("diverged at step "), std::string::npos) << msg;
  auto c = ReadCheckpoint(dir + "/checkpoint.bin");
  ASSERT_TRUE(c.ok()) << c.status().message();
  // The checkpoint is the last step whose state was finite: the step named in the message - 1.
  EXPECT_NE(msg.find("diverged at step " + std::to_string(c->step + 1)), std::string::npos) << msg;
  for (float p : c->params) ASSERT_TRUE(std::isfinite(p));
}

}  // namespace
}  // namespace preflight::engine
