#include "cost/memory_estimate.h"

#include <gtest/gtest.h>

namespace preflight::cost {
namespace {

// Known answers (issue 6): mixed-precision AdamW state is 16 bytes per parameter (2 weights +
// 2 gradients + 12 optimizer), and int4 weights are half a byte per parameter.
TEST(MemoryEstimate, BytesPerParameter) {
  EXPECT_EQ(kTrainingStateBytesPerParam, 16);
  EXPECT_EQ(kWeightBytesPerParam, 2);
  EXPECT_EQ(kGradientBytesPerParam, 2);
  EXPECT_EQ(kOptimizerBytesPerParam, 12);
  EXPECT_EQ(BytesPerParam(WeightPrecision::kFp16), 2);
  EXPECT_EQ(BytesPerParam(WeightPrecision::kInt8), 1);
  EXPECT_EQ(BytesPerParam(WeightPrecision::kInt4), 0.5);
}

ModelShape Gpt3() { return {175e9, 96, 12288, 96, 96}; }

TEST(MemoryEstimate, SingleGpuStateIsSixteenBytesPerParam) {
  auto m = EstimateTrainingMemory({7e9, 32, 4096, 32, 32}, {});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_DOUBLE_EQ(m->weights + m->gradients + m->optimizer, 16 * 7e9);
}

TEST(MemoryEstimate, ZeroStagesPartitionOverDataParallelGpus) {
  ModelShape shape{7e9, 32, 4096, 32, 32};
  TrainingSetup s;
  s.gpus = 64;
  const double psi = 7e9;
  s.zero_stage = 1;  // optimizer state split
  auto z1 = *EstimateTrainingMemory(shape, s);
  EXPECT_DOUBLE_EQ(z1.weights + z1.gradients + z1.optimizer, 4 * psi + 12 * psi / 64);
  s.zero_stage = 2;  // and gradients
  auto z2 = *EstimateTrainingMemory(shape, s);
  EXPECT_DOUBLE_EQ(z2.weights + z2.gradients + z2.optimizer, 2 * psi + 14 * psi / 64);
  s.zero_stage = 3;  // and weights
  auto z3 = *EstimateTrainingMemory(shape, s);
  EXPECT_DOUBLE_EQ(z3.weights + z3.gradients + z3.optimizer, 16 * psi / 64);
  // Activations do not depend on ZeRO.
  EXPECT_EQ(z1.activations, z3.activations);
}

// Korthikanti et al. 2022, Table 2, per layer: sbh(34 + 5as/h) with nothing recomputed,
// 34 sbh with selective recomputation, 2 sbh with full recomputation.
TEST(MemoryEstimate, ActivationsFollowKorthikantiTableTwo) {
  ModelShape shape = Gpt3();
  TrainingSetup s;
  s.sequence = 2048;
  s.micro_batch = 1;
  const double sbh = 2048.0 * 1 * 12288;
  s.recompute = Recompute::kNone;
  auto none = *EstimateTrainingMemory(shape, s);
  EXPECT_DOUBLE_EQ(none.activations_per_layer, sbh * (34 + 5.0 * 96 * 2048 / 12288));
  EXPECT_DOUBLE_EQ(none.activations, 96 * none.activations_per_layer);
  s.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->activations_per_layer, 34 * sbh);
  s.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->activations_per_layer, 2 * sbh);

  // Tensor parallel t = 8, with and without sequence parallelism.
  s.gpus = 8;
  s.tensor_parallel = 8;
  s.recompute = Recompute::kNone;
  s.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->activations_per_layer,
                   sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
  s.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->activations_per_layer,
                   sbh * (34.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
  s.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->activations_per_layer, sbh * 34 / 8);
  s.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->activations_per_layer, sbh * (10 + 24.0 / 8));
  // Model state is split over the 8 tensor-parallel ranks.
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(shape, s)->optimizer, 12 * 175e9 / 8);
}

TEST(MemoryEstimate, InferenceWeightsAndKvCache) {
  // A 70B model with grouped-query attention: 80 layers, h 8192, 64 heads, 8 KV heads.
  ModelShape shape{70e9, 80, 8192, 64, 8};
  InferenceSetup s;
  s.batch = 4;
  s.context = 4096;
  auto m = EstimateInferenceMemory(shape, s);
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->weights_fp16, 140e9);
  EXPECT_DOUBLE_EQ(m->weights_int8, 70e9);
  EXPECT_DOUBLE_EQ(m->weights_int4, 35e9);
  // 2 (K, V) x 80 layers x 8 heads x 128 dims x 2 bytes = 327,680 bytes per token.
  EXPECT_DOUBLE_EQ(m->kv_cache_per_token, 327680);
  EXPECT_DOUBLE_EQ(m->kv_cache, 327680.0 * 4 * 4096);
}

TEST(MemoryEstimate, ApproxParamsMatchesGpt2Small) {
  // GPT-2 small: 12 layers, 768 hidden, 50257 vocab, 1024 positions: 124M parameters.
  EXPECT_NEAR(ApproxParams(12, 768, 50257, 1024), 124.4e6, 0.2e6);
}

TEST(MemoryEstimate, BadShapesAndSetupsAreRefused) {
  EXPECT_FALSE(EstimateTrainingMemory({1e9, 24, 2048, 30, 30}, {}).ok());  // 2048 % 30
  EXPECT_FALSE(EstimateTrainingMemory({1e9, 24, 2048, 16, 5}, {}).ok());   // 16 % 5
  EXPECT_FALSE(EstimateTrainingMemory({0, 24, 2048, 16, 16}, {}).ok());
  TrainingSetup s;
  s.zero_stage = 4;
  EXPECT_EQ(EstimateTrainingMemory({1e9, 24, 2048, 16, 16}, s).status().ExitCode(), 2);
  s = {};
  s.gpus = 12;
  s.tensor_parallel = 8;
  EXPECT_FALSE(EstimateTrainingMemory({1e9, 24, 2048, 16, 16}, s).ok());
  EXPECT_FALSE(ParseRecompute("some").ok());
  EXPECT_FALSE(ParseWeightPrecision("int3").ok());
}

}  // namespace
}  // namespace preflight::cost
