// Schedules in the engine: the syntax, freezing (bit-identical frozen parameters, the FLOPs
// saved by the shapes, head-only training), the adaptive trigger, early stopping, and resume.

#include "engine/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "base/file.h"
#include "base/sha256.h"
#include "test_util.h"
#include "engine/checkpoint.h"
#include "engine/kernels.h"
#include "engine/model.h"
#include "engine/optimizer.h"
#include "engine/xoshiro.h"
#include "engine/train.h"

namespace preflight::engine {
namespace {

using testing::EvalDocs;
using testing::FreshDir;
using testing::TrainDocs;

const ModelConfig kTiny = {.layers = 2, .d_model = 16, .heads = 2, .context = 16, .batch = 4};

TrainOptions Tiny(const std::string& run_dir, const std::string& schedule) {
  TrainOptions o;
  o.model = kTiny;
  o.run_dir = run_dir;
  o.steps = 12;
  o.eval_every = 4;
  o.threads = 1;
  o.lr = 3e-3f;
  o.seed = 7;
  o.schedule = schedule;
  return o;
}

TEST(ScheduleSyntax, ParsesAndPrintsCanonically) {
  struct Case {
    const char* in;
    const char* out;
  };
  for (const Case& c :
       {Case{"freeze:blocks=0-1@0.7", "freeze:blocks=0-1@0.7"},
        Case{"freeze:embeddings@0.50", "freeze:embeddings@0.5"},
        Case{"freeze:attn=1+mlp=0-1@1", "freeze:attn=1+mlp=0-1@1"},
        Case{"freeze:blocks=0-1@adaptive:threshold=0.01,window=20",
             "freeze:blocks=0-1@adaptive:threshold=0.01,window=20"},
        Case{"earlystop:patience=3", "earlystop:patience=3"},
        Case{"earlystop:patience=2,min_delta=0.001", "earlystop:patience=2,min_delta=0.001"},
        Case{"", ""}}) {
    auto s = ParseSchedule(c.in, 4);
    ASSERT_TRUE(s.ok()) << c.in << ": " << s.status().message();
    EXPECT_EQ(s->ToString(), c.out);
  }
  for (const char* bad :
       {"freeze:blocks=0-1", "freeze:blocks=0-9@0.5", "freeze:heads=1@0.5", "freeze:blocks=0-1@1.5",
        "freeze:blocks=2-1@0.5", "earlystop:", "earlystop:patience=0", "stop:patience=2",
        "freeze:blocks=0@adaptive:window=3", "freeze:@0.5"}) {
    auto s = ParseSchedule(bad, 4);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_NE(s.status().message().find(bad), std::string::npos) << bad;
    }
  }
  auto sweep = ExpandSweep("freeze:blocks=0-1@0.5,0.6,0.9", 4);
  ASSERT_TRUE(sweep.ok());
  EXPECT_EQ(*sweep, (std::vector<std::string>{"freeze:blocks=0-1@0.5", "freeze:blocks=0-1@0.6",
                                              "freeze:blocks=0-1@0.9"}));
  EXPECT_FALSE(ExpandSweep("freeze:blocks=0-1@0.5,x", 4).ok());
}

TEST(ScheduleSyntax, LowerBlocksTakeTheEmbeddingsWithThem) {
  Trainable t = ParseSchedule("freeze:blocks=0-1@0.5", 4)->Frozen(4);
  EXPECT_FALSE(t.embeddings);
  EXPECT_FALSE(t.BlockTrainable(0));
  EXPECT_FALSE(t.BlockTrainable(1));
  EXPECT_TRUE(t.BlockTrainable(2));
  Trainable upper = ParseSchedule("freeze:blocks=2-3@0.5", 4)->Frozen(4);
  EXPECT_TRUE(upper.embeddings);
  Trainable mlp = ParseSchedule("freeze:mlp=0@0.5", 4)->Frozen(4);
  EXPECT_TRUE(mlp.embeddings);
  EXPECT_TRUE(mlp.AttnTrainable(0));
  EXPECT_FALSE(mlp.MlpTrainable(0));
}

// The FLOPs of a step, from the shapes alone: freezing blocks 0..k-1 (and so the embeddings)
// removes those blocks' whole backward (weight and input gradients of their 12C^2 + 13C
// parameters, 4 FLOPs each per token, plus attention's 8TC) and the input gradient of block k's
// first LayerNorm (2C parameters, 2 FLOPs each): k (4 (12C^2 + 13C) + 8TC) + 4C per token.
TEST(FreezeFlops, DropByTheAmountTheShapesGive) {
  for (const ModelConfig& cfg : {kTiny, *NamedModel("small"), *NamedModel("medium")}) {
    const double C = cfg.d_model, T = cfg.context;
    EXPECT_EQ(FlopsPerTokenTrainable(cfg, Trainable::All(cfg.layers)), FlopsPerToken(cfg));
    for (int k = 1; k <= cfg.layers; ++k) {
      Schedule s = *ParseSchedule("freeze:blocks=0-" + std::to_string(k - 1) + "@0", cfg.layers);
      const double saved = k * (4 * (12 * C * C + 13 * C) + 8 * T * C) + 4 * C;
      EXPECT_DOUBLE_EQ(FlopsPerToken(cfg) - FlopsPerTokenTrainable(cfg, s.Frozen(cfg.layers)),
                       saved)
          << "layers " << cfg.layers << " k " << k;
    }
    // Only the MLP weights of the top block: their weight gradients, 2 FLOPs per parameter.
    Schedule mlp = *ParseSchedule("freeze:mlp=" + std::to_string(cfg.layers - 1) + "@0", 0);
    EXPECT_DOUBLE_EQ(FlopsPerToken(cfg) - FlopsPerTokenTrainable(cfg, mlp.Frozen(cfg.layers)),
                     2 * (8 * C * C + 7 * C));
  }
  // The small model, blocks 0-1 of 4 frozen: a step costs 32% less.
  const ModelConfig small = *NamedModel("small");
  const double full = FlopsPerToken(small);
  const double frozen =
      FlopsPerTokenTrainable(small, ParseSchedule("freeze:blocks=0-1@0.7", 4)->Frozen(4));
  EXPECT_NEAR(1 - frozen / full, 0.3219, 0.0005);
}

// Parameters (and AdamW moments) of frozen parts stay bit-identical; the rest keep learning; the
// run's FLOPs are the sum of what each step cost.
TEST(Freeze, FrozenParametersAreBitIdenticalAndFlopsAddUp) {
  const std::string dir = FreshDir("freeze_bits");
  TrainOptions o = Tiny(dir, "freeze:blocks=0@0.5");  // block 0 + embeddings from step 6
  o.stop_after_step = 6;
  auto first = TrainOnDocuments(o, TrainDocs(), EvalDocs());
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto at6 = ReadCheckpoint(JoinPath(dir, "checkpoint.bin"));
  ASSERT_TRUE(at6.ok());
  o.stop_after_step = -1;
  auto rest = TrainOnDocuments(o, TrainDocs(), EvalDocs());
  ASSERT_TRUE(rest.ok()) << rest.status().message();
  auto at12 = ReadCheckpoint(JoinPath(dir, "checkpoint.bin"));
  ASSERT_TRUE(at12.ok());
  ASSERT_EQ(at12->step, 12);

  Gpt layout(kTiny);
  const int L = kTiny.layers;
  size_t frozen_floats = 0, moved_tensors = 0;
  for (int i = 0; i < kNumParamTensors; i++) {
    const ParamTensor& t = layout.tensors()[i];
    const int slices = t.per_layer ? L : 1;
    const size_t slice = t.size / slices;
    for (int l = 0; l < slices; l++) {
      const size_t at = t.offset + l * slice;
      const bool frozen = i == kWpe || (t.per_layer && l == 0);
      auto same = [&](const std::vector<float>& a, const std::vector<float>& b) {
        return std::memcmp(a.data() + at, b.data() + at, slice * sizeof(float)) == 0;
      };
      if (frozen) {
        EXPECT_TRUE(same(at6->params, at12->params)) << t.name << " block " << l;
        EXPECT_TRUE(same(at6->adam_m, at12->adam_m)) << t.name << " block " << l;
        EXPECT_TRUE(same(at6->adam_v, at12->adam_v)) << t.name << " block " << l;
        frozen_floats += slice;
      } else if (!same(at6->params, at12->params)) {
        ++moved_tensors;
      }
    }
  }
  EXPECT_EQ(static_cast<int64_t>(frozen_floats),
            FrozenParamCount(kTiny, ParseSchedule("freeze:blocks=0@0", 2)->Frozen(2)));
  EXPECT_GE(moved_tensors, 10u);  // everything trainable moved (biases included)

  EXPECT_EQ(rest->frozen_at, 6);
  const double tokens = kTiny.batch * kTiny.context;
  const double frozen_step =
      FlopsPerTokenTrainable(kTiny, ParseSchedule("freeze:blocks=0@0", 2)->Frozen(2)) * tokens;
  EXPECT_DOUBLE_EQ(rest->frozen_flops_per_step, frozen_step);
  EXPECT_DOUBLE_EQ(rest->flops, 6 * rest->flops_per_step + 6 * frozen_step);
  EXPECT_LT(frozen_step, rest->flops_per_step);
  // The curve carries cumulative FLOPs at each eval.
  ASSERT_EQ(rest->curve.size(), 4u);
  EXPECT_DOUBLE_EQ(rest->curve[1].flops, 4 * rest->flops_per_step);
  EXPECT_DOUBLE_EQ(rest->curve[2].flops, 6 * rest->flops_per_step + 2 * frozen_step);

  // Interrupted and resumed across the freeze = uninterrupted, bit for bit.
  auto whole = TrainOnDocuments(Tiny("", "freeze:blocks=0@0.5"), TrainDocs(), EvalDocs());
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->curve.size(), rest->curve.size());
  for (size_t i = 0; i < whole->curve.size(); i++) {
    EXPECT_EQ(whole->curve[i].eval_bpb, rest->curve[i].eval_bpb);
  }
  // A different schedule in the same run folder is a different run.
  auto other = TrainOnDocuments(Tiny(dir, "freeze:blocks=0@0.25"), TrainDocs(), EvalDocs());
  EXPECT_FALSE(other.ok());
  auto plain = TrainOnDocuments(Tiny(dir, ""), TrainDocs(), EvalDocs());
  EXPECT_FALSE(plain.ok());
}

// Freezing everything but the head at step 0 is training the head alone. The reference below
// trains only the head, written out with the kernels: the body's output (with the current
// weights, since the head's wte is also the input embedding) goes through the final LayerNorm
// and the tied output matmul; only wte, lnfw and lnfb get gradients and AdamW updates.
TEST(Freeze, EverythingButTheHeadEqualsTrainingTheHeadAlone) {
  const ModelConfig cfg = kTiny;
  const int B = cfg.batch, T = cfg.context, C = cfg.d_model, V = cfg.vocab, BT = B * T;
  Gpt engine(cfg), ref(cfg);
  engine.InitWeights(3);
  ref.InitWeights(3);
  engine.SetTrainable(ParseSchedule("freeze:blocks=0-1@0", 2)->Frozen(2));
  const size_t n = engine.num_params();
  std::vector<float> em(n), ev(n), rm(n), rv(n);
  const AdamWConfig adam;
  std::vector<float> lnf(BT * C), mean(BT), rstd(BT), logits(BT * V), losses(BT), lse(BT),
      dlnf(BT * C);
  Rng rng(11);
  for (int step = 1; step <= 5; step++) {
    std::vector<int> inputs(BT), targets(BT);
    for (int i = 0; i < BT; i++) {
      inputs[i] = static_cast<int>(rng.Below(V));
      targets[i] = static_cast<int>(rng.Below(V));
    }
    const float lr = 1e-2f;
    StepStats s = TrainStep(engine, em.data(), ev.data(), inputs.data(), targets.data(), lr, step,
                            adam, 1.0f);

    ref.Forward(inputs.data(), targets.data());
    const float* h = ref.final_hidden();
    LayerNormForward(lnf.data(), mean.data(), rstd.data(), h, ref.param(kLnfw), ref.param(kLnfb),
                     BT, C);
    MatmulForward(logits.data(), lnf.data(), ref.param(kWte), nullptr, BT, C, V);
    CrossEntropyForward(losses.data(), lse.data(), logits.data(), targets.data(), BT, V);
    double sum = 0;
    for (float x : losses) sum += x;
    EXPECT_EQ(static_cast<float>(sum / BT), s.loss) << "step " << step;
    CrossEntropyBackward(logits.data(), lse.data(), targets.data(), 1.0f / BT, BT, V);
    ref.ZeroGrad();
    MatmulBackward(dlnf.data(), ref.grad(kWte), nullptr, logits.data(), lnf.data(), ref.param(kWte),
                   BT, C, V);
    LayerNormBackward(nullptr, ref.grad(kLnfw), ref.grad(kLnfb), dlnf.data(), h, ref.param(kLnfw),
                      mean.data(), rstd.data(), BT, C);
    ClipGradNorm(ref.grads(), n, 1.0);
    for (ParamIndex i : {kWte, kLnfw, kLnfb}) {
      const ParamTensor& t = ref.tensors()[i];
      AdamWUpdate(ref.params() + t.offset, ref.grads() + t.offset, rm.data() + t.offset,
                  rv.data() + t.offset, t.size, lr, adam, step, t.decay);
    }
    ASSERT_EQ(std::memcmp(engine.params(), ref.params(), n * sizeof(float)), 0)
        << "step " << step << ": max difference "
        << testing::ScaledMaxDiff(engine.params(), ref.params(), n);
    ASSERT_EQ(std::memcmp(engine.grads(), ref.grads(), n * sizeof(float)), 0) << "step " << step;
  }
  // And the body really did not move.
  Gpt init(cfg);
  init.InitWeights(3);
  const size_t body = engine.tensors()[kLnfw].offset - engine.tensors()[kWpe].offset;
  EXPECT_EQ(std::memcmp(engine.param(kWpe), init.param(kWpe), body * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(engine.param(kWte), init.param(kWte), 257 * C * sizeof(float)), 0);
}

// Early stopping on a hand-made curve: the best is 3.0 at the third eval; patience 3 stops at the
// third eval after it that does not beat it (by more than min_delta).
TEST(EarlyStopRule, StopsAtTheRightEval) {
  const std::vector<double> curve = {5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 2.5};
  EarlyStop patient(3, 0.0);
  size_t stopped = curve.size();
  for (size_t i = 0; i < curve.size(); i++) {
    if (patient.Observe(curve[i])) {
      stopped = i;
      break;
    }
  }
  EXPECT_EQ(stopped, 5u);
  EarlyStop strict(2, 0.0);
  const std::vector<double> bumpy = {5.0, 4.0, 4.5, 3.9, 4.0, 3.95, 3.8};
  stopped = bumpy.size();
  for (size_t i = 0; i < bumpy.size(); i++) {
    if (strict.Observe(bumpy[i])) {
      stopped = i;
      break;
    }
  }
  EXPECT_EQ(stopped, 5u);  // 3.9 at i=3 resets; 4.0 and 3.95 do not beat it
  EarlyStop delta(1, 0.2);
  EXPECT_FALSE(delta.Observe(5.0));
  EXPECT_TRUE(delta.Observe(4.9));  // better, but not by more than 0.2
}

// In the engine: the run ends where the rule says on its own curve, its FLOPs are only the steps
// it took, and a resume of the stopped run returns the same result.
TEST(EarlyStopRule, EngineStopsWhereTheRuleSays) {
  const std::string dir = FreshDir("earlystop");
  TrainOptions o = Tiny(dir, "earlystop:patience=1");
  o.steps = 40;
  o.eval_every = 2;
  o.lr = 0.3f;  // too high: the eval loss soon stops improving
  auto r = TrainOnDocuments(o, TrainDocs(), EvalDocs());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EarlyStop rule(1, 0.0);
  size_t expected = r->curve.size() - 1;
  bool stops = false;
  for (size_t i = 0; i < r->curve.size(); i++) {
    if (rule.Observe(r->curve[i].eval_bpb)) {
      expected = i;
      stops = true;
      break;
    }
  }
  ASSERT_TRUE(stops) << "the test needs a curve that stops improving";
  EXPECT_TRUE(r->stopped_early);
  EXPECT_TRUE(r->completed);
  EXPECT_EQ(expected, r->curve.size() - 1);
  EXPECT_EQ(r->steps, r->curve.back().step);
  EXPECT_LT(r->steps, 40);
  EXPECT_DOUBLE_EQ(r->flops, r->steps * r->flops_per_step);
  auto again = TrainOnDocuments(o, TrainDocs(), EvalDocs());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->resumed);
  EXPECT_TRUE(again->stopped_early);
  EXPECT_EQ(again->steps, r->steps);
}

// The adaptive trigger: it freezes when the watched weights' relative change over the window
// falls below the threshold, records its own cost, and survives an interruption bit for bit.
TEST(Adaptive, TriggersRecordsItsCostAndResumes) {
  const std::string sched = "freeze:blocks=0@adaptive:threshold=0.05,window=2";
  auto whole = TrainOnDocuments(Tiny("", sched), TrainDocs(), EvalDocs());
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_GT(whole->frozen_at, 0) << "pick a threshold the tiny run crosses";
  ASSERT_LT(whole->frozen_at, 12);
  EXPECT_EQ(whole->frozen_at % 2, 0);
  EXPECT_GT(whole->trigger_flops, 0);
  EXPECT_GE(whole->trigger_seconds, 0);
  EXPECT_EQ(whole->trigger_checks, whole->frozen_at / 2 + 1);
  EXPECT_DOUBLE_EQ(whole->flops, whole->frozen_at * whole->flops_per_step +
                                     (12 - whole->frozen_at) * whole->frozen_flops_per_step);
  const int64_t watched = FrozenParamCount(kTiny, ParseSchedule("freeze:blocks=0@0", 2)->Frozen(2));
  EXPECT_DOUBLE_EQ(whole->trigger_flops, 5.0 * watched * whole->trigger_checks);

  for (int64_t stop : {int64_t{1}, int64_t{3}, whole->frozen_at - 1, whole->frozen_at}) {
    if (stop <= 0) continue;
    const std::string dir = FreshDir("adaptive_" + std::to_string(stop));
    TrainOptions o = Tiny(dir, sched);
    o.checkpoint_every = 1;
    o.stop_after_step = stop;
    ASSERT_TRUE(TrainOnDocuments(o, TrainDocs(), EvalDocs()).ok());
    o.stop_after_step = -1;
    auto resumed = TrainOnDocuments(o, TrainDocs(), EvalDocs());
    ASSERT_TRUE(resumed.ok()) << resumed.status().message();
    EXPECT_EQ(resumed->frozen_at, whole->frozen_at) << "stopped at " << stop;
    EXPECT_DOUBLE_EQ(resumed->flops, whole->flops);
    ASSERT_EQ(resumed->curve.size(), whole->curve.size());
    for (size_t i = 0; i < whole->curve.size(); i++) {
      EXPECT_EQ(resumed->curve[i].eval_bpb, whole->curve[i].eval_bpb) << "stopped at " << stop;
    }
  }
}

// The version-2 checkpoint (an adaptive run before it fires) round-trips its snapshot and
// schedule state; a truncated snapshot is Corruption; a plain checkpoint stays version 1.
TEST(ScheduleCheckpoint, SnapshotRoundTripsAndDamageIsCaught) {
  std::system((std::string("mkdir -p ") + PREFLIGHT_TEST_TMP).c_str());
  const std::string path = std::string(PREFLIGHT_TEST_TMP) + "/ckpt_snapshot.bin";
  Checkpoint c;
  c.fingerprint = "{}";
  c.step = 20;
  c.curve = {{0, 8.0, 0, 0, 0}, {10, 5.5, 1e9, 2.5, 4.75}};
  c.params = {1, 2, 3};
  c.adam_m = {0, 0, 0};
  c.adam_v = {0, 0, 0};
  c.flops = 2e9;
  c.train_core_seconds = 9.5;
  c.last_check = 20;
  c.trigger_flops = 30;
  c.snapshot = {0.5f, -0.25f};
  ASSERT_TRUE(WriteCheckpoint(path, c).ok());
  auto r = ReadCheckpoint(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->snapshot, c.snapshot);
  EXPECT_EQ(r->last_check, 20);
  EXPECT_EQ(r->frozen_at, -1);
  EXPECT_EQ(r->flops, 2e9);
  EXPECT_EQ(r->curve[1].flops, 1e9);
  EXPECT_EQ(r->curve[1].core_seconds, 4.75);
  std::string bytes = *ReadFileToString(path);
  EXPECT_EQ(bytes[8], 2);  // version 2: a snapshot follows the moments
  // Drop the last snapshot float and re-seal the digest: the sizes no longer add up.
  std::string body = bytes.substr(0, bytes.size() - 64 - 4);
  ASSERT_TRUE(WriteFileAtomically(path, body + Sha256::Hex(body)).ok());
  auto bad = ReadCheckpoint(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("snapshot of 2 floats"), std::string::npos)
      << bad.status().message();
  c.snapshot.clear();
  ASSERT_TRUE(WriteCheckpoint(path, c).ok());
  EXPECT_EQ((*ReadFileToString(path))[8], 1);
}

}  // namespace
}  // namespace preflight::engine
