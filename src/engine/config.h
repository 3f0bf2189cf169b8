#pragma once
// The model's shape: named configurations, overrides, validation, and the arithmetic that
// follows from the shape (parameter count, FLOPs per token). See doc/train.md.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight::engine {

// Tokens are the 256 byte values plus one document-boundary token.
inline constexpr int kBoundaryToken = 256;
inline constexpr int kVocabSize = 257;

struct ModelConfig {
  int layers = 4;          // L
  int d_model = 128;       // C
  int heads = 4;           // NH (C % NH == 0)
  int context = 128;       // T: tokens per window, also the number of position embeddings
  int batch = 32;          // B: windows per step
  int vocab = kVocabSize;  // V: fixed; a field so that shapes read uniformly
};

// "tiny" (2, 64, 2, 64, batch 16), "small" (4, 128, 4, 128, batch 32; the default pilot),
// "medium" (6, 256, 8, 256, batch 16), "10m" (6, 384, 6, 256, batch 32) and "40m" (8, 640, 10,
// 256, batch 32; both sized for GPU trainers, doc/trainers.md). Unknown names: InvalidArgument
// listing the known ones.
Result<ModelConfig> NamedModel(std::string_view name);

// InvalidArgument when a size is not positive, d_model % heads != 0, or vocab is not 257.
Status ValidateModel(const ModelConfig& config);

// {"name", "layers", "d_model", "heads", "context", "batch"}: how configs and receipts name a
// model.
nlohmann::json ModelToJson(const std::string& name, const ModelConfig& config);

// Every parameter, embeddings included.
int64_t ParamCount(const ModelConfig& config);
// Parameters outside the token and position embeddings (the blocks and the final LayerNorm).
int64_t NonEmbeddingParamCount(const ModelConfig& config);

// Training FLOPs per token (forward + backward):
//   6 * (non-embedding params + V*C)  +  12 * L * T * C.
// The first term is 6N with the tied output head counted once (its matmul costs 2*V*C per token
// forward); position-embedding lookups cost nothing. The second is attention's two T x T
// products (Q K^T and att V) over the FULL T x T matrix (the causal half is not discounted),
// 2 * 2*T*C forward per layer, times 3 for forward + backward. This is the convention of
// nanoGPT's estimate_mfu, so numbers compare across tools.
double FlopsPerToken(const ModelConfig& config);

}  // namespace preflight::engine
