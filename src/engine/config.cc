#include "engine/config.h"

#include <string>

namespace preflight::engine {
namespace {

struct Named {
  const char* name;
  ModelConfig config;
};

// The shapes PyTorch's speed was first measured at, beside the engine (bench/engine/README.md).
const Named kNamed[] = {
    {"tiny", {.layers = 2, .d_model = 64, .heads = 2, .context = 64, .batch = 16}},
    {"small", {.layers = 4, .d_model = 128, .heads = 4, .context = 128, .batch = 32}},
    {"medium", {.layers = 6, .d_model = 256, .heads = 8, .context = 256, .batch = 16}},
    // Pilots at the scale the regime check asks for, for GPU trainers: about 10.9M
    // and 39.7M parameters.
    {"10m", {.layers = 6, .d_model = 384, .heads = 6, .context = 256, .batch = 32}},
    {"40m", {.layers = 8, .d_model = 640, .heads = 10, .context = 256, .batch = 32}},
};

}  // namespace

Result<ModelConfig> NamedModel(std::string_view name) {
  for (const Named& n : kNamed) {
    if (name == n.name) return n.config;
  }
  std::string known;
  for (const Named& n : kNamed) known += std::string(known.empty() ? "" : ", ") + n.name;
  return Status::InvalidArgument("unknown model '" + std::string(name) + "'; known models: " +
                                 known + " (or override --layers --d-model --heads --context)");
}

Status ValidateModel(const ModelConfig& c) {
  auto positive = [](int v, const char* what) -> Status {
    if (v <= 0) {
      return Status::InvalidArgument(std::string(what) + " must be positive, got " +
                                     std::to_string(v));
    }
    return Status::Ok();
  };
  PF_RETURN_IF_ERROR(positive(c.layers, "--layers"));
  PF_RETURN_IF_ERROR(positive(c.d_model, "--d-model"));
  PF_RETURN_IF_ERROR(positive(c.heads, "--heads"));
  PF_RETURN_IF_ERROR(positive(c.context, "--context"));
  PF_RETURN_IF_ERROR(positive(c.batch, "--batch"));
  if (c.d_model % c.heads != 0) {
    return Status::InvalidArgument("--d-model " + std::to_string(c.d_model) +
                                   " is not divisible by --heads " + std::to_string(c.heads) +
                                   "; choose heads that divide d_model");
  }
  if (c.vocab != kVocabSize) {
    return Status::InvalidArgument("vocab must be 257 (256 bytes + boundary), got " +
                                   std::to_string(c.vocab));
  }
  return Status::Ok();
}

int64_t NonEmbeddingParamCount(const ModelConfig& c) {
  const int64_t C = c.d_model;
  // Per block: ln1 (2C), qkv (3C*C + 3C), attproj (C*C + C), ln2 (2C), fc (4C*C + 4C),
  // fcproj (C*4C + C) = 12C^2 + 13C. Plus the final LayerNorm (2C).
  return c.layers * (12 * C * C + 13 * C) + 2 * C;
}

int64_t ParamCount(const ModelConfig& c) {
  return NonEmbeddingParamCount(c) + static_cast<int64_t>(c.vocab) * c.d_model +
         static_cast<int64_t>(c.context) * c.d_model;
}

double FlopsPerToken(const ModelConfig& c) {
  const double n =
      static_cast<double>(NonEmbeddingParamCount(c)) + static_cast<double>(c.vocab) * c.d_model;
  return 6.0 * n + 12.0 * c.layers * static_cast<double>(c.context) * c.d_model;
}

nlohmann::json ModelToJson(const std::string& name, const ModelConfig& c) {
  return {{"name", name},     {"layers", c.layers},   {"d_model", c.d_model},
          {"heads", c.heads}, {"context", c.context}, {"batch", c.batch}};
}

}  // namespace preflight::engine
