#pragma once
// Memory per GPU for training and for inference, from the model's shape.
//
// Training (mixed-precision AdamW): 16 bytes per parameter before activations — 2 (bf16
// weights) + 2 (bf16 gradients) + 12 (fp32 master weights, first and second moments). ZeRO
// (Rajbhandari et al. 2020) partitions that state over the data-parallel GPUs: stage 1 the
// optimizer state, stage 2 also the gradients, stage 3 also the weights. Tensor parallelism
// over t GPUs divides all of it by t.
//
// Activations per transformer layer, in bytes, with s the sequence length, b the micro-batch,
// h the hidden size, a the attention heads and t the tensor-parallel size (Korthikanti et al.
// 2022, "Reducing Activation Recomputation in Large Transformer Models", Table 2; 16-bit
// activations, a 4h MLP, dropout masks included):
//   no recompute:        s b h (34 + 5 a s / h)                   (t = 1)
//                        s b h (10 + 24/t + 5 a s / (h t))        (tensor parallel)
//                        s b h (34/t + 5 a s / (h t))             (tensor + sequence parallel)
//   selective recompute: s b h (10 + 24/t)  or  s b h 34/t        (with sequence parallel)
//   full recompute:      2 s b h                                   (only each layer's input)
// times L layers. Embedding-dropout and output-logit buffers are not counted (they matter only
// for small models with large vocabularies), nor are pipeline stages, framework workspace and
// fragmentation: leave 10-20% headroom.
//
// Inference: weights at 2 (fp16/bf16), 1 (int8) or 0.5 (int4) bytes per parameter, and a KV
// cache of 2 (K and V) x L x batch x context x kv_heads x (h / heads) x bytes per value.
// Pure functions, thread-safe.

#include <string>
#include <string_view>

#include "base/status.h"

namespace preflight::cost {

inline constexpr double kWeightBytesPerParam = 2;      // bf16 weights
inline constexpr double kGradientBytesPerParam = 2;    // bf16 gradients
inline constexpr double kOptimizerBytesPerParam = 12;  // fp32 master copy + Adam m + Adam v
inline constexpr double kTrainingStateBytesPerParam =
    kWeightBytesPerParam + kGradientBytesPerParam + kOptimizerBytesPerParam;  // 16

enum class Recompute { kNone, kSelective, kFull };
Result<Recompute> ParseRecompute(std::string_view name);  // "none", "selective", "full"

enum class WeightPrecision { kFp16, kInt8, kInt4 };
Result<WeightPrecision> ParseWeightPrecision(std::string_view name);  // fp16|bf16, int8, int4
double BytesPerParam(WeightPrecision p);                              // 2, 1, 0.5

struct ModelShape {
  double params = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // = heads for multi-head attention; fewer with grouped-query attention
};

// The GPT-2-style count when the user gives only the shape: 12 L h^2 (attention and a 4h MLP)
// + 13 L h (biases and layer norms) + (vocab + context) h (embeddings).
double ApproxParams(int layers, int hidden, int vocab, int context);

struct TrainingSetup {
  int micro_batch = 1;
  int sequence = 2048;
  Recompute recompute = Recompute::kSelective;
  int zero_stage = 0;  // 0 (none), 1, 2 or 3
  int gpus = 1;        // all GPUs; data parallel = gpus / tensor_parallel
  int tensor_parallel = 1;
  bool sequence_parallel = true;  // only matters when tensor_parallel > 1
};

struct TrainingMemory {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;  // bytes per GPU
  double activations_per_layer = 0;
  int data_parallel = 1;
  double total() const { return weights + gradients + optimizer + activations; }
};

// InvalidArgument for non-positive sizes, heads not dividing hidden, kv_heads not dividing
// heads, a ZeRO stage outside 0-3, or GPUs not a multiple of the tensor-parallel size.
Status ValidateShape(const ModelShape& shape);
Result<TrainingMemory> EstimateTrainingMemory(const ModelShape& shape, const TrainingSetup& setup);

struct InferenceSetup {
  int batch = 1;
  int context = 2048;
  double kv_bytes = 2;  // bytes per cached value: 2 for fp16/bf16, 1 for an fp8/int8 cache
};

struct InferenceMemory {
  double weights_fp16 = 0, weights_int8 = 0, weights_int4 = 0;  // bytes, whole model
  double kv_cache = 0;                                          // bytes, whole batch
  double kv_cache_per_token = 0;
};
Result<InferenceMemory> EstimateInferenceMemory(const ModelShape& shape,
                                                const InferenceSetup& setup);

}  // namespace preflight::cost
