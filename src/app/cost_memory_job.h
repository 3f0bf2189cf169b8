#pragma once
// The `preflight memory` job: training memory per GPU (mixed-precision AdamW state, activations,
// ZeRO) and inference memory (weights at fp16/int8/int4, KV cache), and whether each fits on a
// named GPU. Formulas in src/cost/memory_estimate.h; this resolves the inputs, runs them and
// says what came out: typed (MemoryOutcome), as --json (MemoryToJson), as text (MemoryText).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "cost/hardware_catalog.h"
#include "cost/memory_estimate.h"

namespace preflight::app {

struct MemoryRequest {
  std::optional<double> params;  // default: the GPT-2-style count from the shape
  cost::ModelShape shape;        // layers, hidden, heads (params and kv_heads are filled in)
  std::optional<int> kv_heads;   // default: heads
  int vocab = 50257;             // only for the default parameter count
  cost::TrainingSetup train;     // recompute and sequence_parallel come from the fields below
  cost::InferenceSetup infer;    // context comes from `context`
  std::optional<int> context;    // default: train.sequence
  std::string recompute = "selective";
  bool sequence_parallel = true;
  std::string weights = "fp16";  // inference weight precision for the total
  std::string gpu;               // empty: no fit check
};

struct MemoryOutcome {
  MemoryRequest request;
  cost::ModelShape shape;  // as used
  bool params_estimated = false;
  cost::TrainingSetup train;
  cost::InferenceSetup infer;
  cost::TrainingMemory training;
  cost::InferenceMemory inference;
  double inference_total = 0;  // weights at the chosen precision + KV cache, bytes
  std::optional<cost::GpuSpec> gpu;
};

Result<MemoryOutcome> RunMemory(const MemoryRequest& request);

// {"params","params_estimated","training":{...},"inference":{...}} and "gpu" with a GPU.
nlohmann::json MemoryToJson(const MemoryOutcome& outcome);

// The human report, ending in a newline.
std::string MemoryText(const MemoryOutcome& outcome);

}  // namespace preflight::app
