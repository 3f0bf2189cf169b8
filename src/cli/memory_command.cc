// preflight memory: training memory per GPU (mixed-precision AdamW state, activations with
// no/selective/full recomputation, ZeRO 1-3) and inference memory (weights at fp16/int8/int4,
// KV cache). Formulas in src/cost/memory_estimate.h and doc/cost.md.

#include <cstdio>
#include <optional>
#include <string>

#include "base/format.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/hardware_catalog.h"
#include "cost/memory_estimate.h"

namespace preflight::cli {
namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

void PrintLine(std::FILE* out, const std::string& label, double bytes, const std::string& note) {
  std::fprintf(out, "  %-28s %12s%s%s\n", label.c_str(), FormatGiB(bytes).c_str(),
               note.empty() ? "" : "   ", note.c_str());
}

}  // namespace

int RunMemory(int argc, char** argv) {
  CLI::App app;
  Describe(app, "memory",
           "Memory per GPU. Training: 16 bytes/param of mixed-precision AdamW state (ZeRO 1-3 "
           "split it over data-parallel GPUs) plus activations (Korthikanti et al. 2022, with "
           "none/selective/full recomputation). Inference: weights at fp16/int8/int4 and the KV "
           "cache.");
  std::optional<double> params;
  cost::ModelShape shape;
  std::optional<int> kv_heads;
  int vocab = 50257;
  cost::TrainingSetup train;
  cost::InferenceSetup infer;
  std::optional<int> context;
  std::string recompute = "selective", weights = "fp16", gpu_name;
  bool no_sequence_parallel = false, as_json = false;
  app.add_option("--params", params, "parameters (default: 12 L h^2 + 13 L h + (vocab + seq) h)");
  app.add_option("--layers", shape.layers, "transformer layers L")->required();
  app.add_option("--hidden", shape.hidden, "hidden size h")->required();
  app.add_option("--heads", shape.heads, "attention heads a")->required();
  app.add_option("--kv-heads", kv_heads,
                 "key/value heads (grouped-query attention; default: "
                 "--heads)");
  app.add_option("--vocab", vocab, "vocabulary, only for the default parameter count")
      ->capture_default_str();
  app.add_option("--seq", train.sequence, "training sequence length s")->capture_default_str();
  app.add_option("--micro-batch", train.micro_batch, "sequences per GPU per micro-step b")
      ->capture_default_str();
  app.add_option("--recompute", recompute, "activation recomputation: none, selective, full")
      ->capture_default_str();
  app.add_option("--zero", train.zero_stage, "ZeRO stage 0-3 over the data-parallel GPUs")
      ->capture_default_str();
  app.add_option("--gpus", train.gpus, "GPUs in all (data parallel = gpus / tensor-parallel)")
      ->capture_default_str();
  app.add_option("--tensor-parallel", train.tensor_parallel, "tensor-parallel size t")
      ->capture_default_str();
  app.add_flag("--no-sequence-parallel", no_sequence_parallel,
               "tensor parallelism without sequence parallelism");
  app.add_option("--batch", infer.batch, "inference batch (sequences)")->capture_default_str();
  app.add_option("--context", context, "inference context length (default: --seq)");
  app.add_option("--kv-bytes", infer.kv_bytes, "bytes per cached K/V value (2 = fp16, 1 = fp8)")
      ->capture_default_str();
  app.add_option("--weights", weights, "inference weight precision for the total: fp16, int8, int4")
      ->capture_default_str();
  app.add_option("--gpu", gpu_name, "say whether it fits on this GPU: " + cost::KnownGpuNames());
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  auto recompute_mode = cost::ParseRecompute(recompute);
  if (!recompute_mode.ok()) return Fail("memory", recompute_mode.status());
  auto precision = cost::ParseWeightPrecision(weights);
  if (!precision.ok()) return Fail("memory", precision.status());
  std::optional<cost::GpuSpec> gpu;
  if (!gpu_name.empty()) {
    auto found = cost::FindGpu(gpu_name);
    if (!found.ok()) return Fail("memory", found.status());
    gpu = *found;
  }
  shape.kv_heads = kv_heads ? *kv_heads : shape.heads;
  const bool params_given = params.has_value();
  shape.params = params_given
                     ? *params
                     : cost::ApproxParams(shape.layers, shape.hidden, vocab, train.sequence);
  train.recompute = *recompute_mode;
  train.sequence_parallel = !no_sequence_parallel;
  infer.context = context ? *context : train.sequence;

  auto training = cost::EstimateTrainingMemory(shape, train);
  if (!training.ok()) return Fail("memory", training.status());
  auto inference = cost::EstimateInferenceMemory(shape, infer);
  if (!inference.ok()) return Fail("memory", inference.status());
  const cost::TrainingMemory& t = *training;
  const cost::InferenceMemory& i = *inference;
  const double weights_bytes = shape.params * cost::BytesPerParam(*precision);
  const double inference_total = weights_bytes + i.kv_cache;

  std::FILE* out = as_json ? stderr : stdout;
  std::fprintf(out, "model: %s parameters%s, %d layers, hidden %d, %d heads (%d KV heads)\n",
               FormatCount(shape.params).c_str(), params_given ? "" : " (estimated from shape)",
               shape.layers, shape.hidden, shape.heads, shape.kv_heads);
  std::fprintf(out,
               "training per GPU: %d GPUs = %d data parallel x %d tensor parallel, ZeRO stage %d, "
               "micro-batch %d x %d tokens, %s recomputation\n",
               train.gpus, t.data_parallel, train.tensor_parallel, train.zero_stage,
               train.micro_batch, train.sequence, recompute.c_str());
  PrintLine(out, "weights (bf16, 2 B/param)", t.weights, "");
  PrintLine(out, "gradients (bf16, 2 B/param)", t.gradients, "");
  PrintLine(out, "optimizer (fp32, 12 B/param)", t.optimizer, "master weights + Adam m + v");
  PrintLine(out, "activations", t.activations,
            FormatBytes(t.activations_per_layer) + " per layer x " + std::to_string(shape.layers));
  PrintLine(out, "total", t.total(), "before framework workspace and fragmentation");
  std::fprintf(out, "inference (whole model): batch %d x context %d\n", infer.batch, infer.context);
  PrintLine(out, "weights fp16 (2 B/param)", i.weights_fp16, "");
  PrintLine(out, "weights int8 (1 B/param)", i.weights_int8, "");
  PrintLine(out, "weights int4 (0.5 B/param)", i.weights_int4, "");
  PrintLine(out, "KV cache", i.kv_cache,
            FormatFixed(i.kv_cache_per_token / 1024, 1) + " KiB per token");
  PrintLine(out, "total (" + weights + " weights)", inference_total, "");
  if (gpu) {
    double capacity = gpu->memory_gib * kGiB;
    std::fprintf(out, "on one %s (%s GiB): training %s (%.0f%%), inference %s (%.0f%%)\n",
                 gpu->name.c_str(), FormatPlain(gpu->memory_gib).c_str(),
                 t.total() <= capacity ? "fits" : "does NOT fit", 100 * t.total() / capacity,
                 inference_total <= capacity ? "fits" : "does NOT fit",
                 100 * inference_total / capacity);
  }

  if (as_json) {
    json doc = {{"params", shape.params},
                {"params_estimated", !params_given},
                {"training",
                 {{"weights_bytes", t.weights},
                  {"gradients_bytes", t.gradients},
                  {"optimizer_bytes", t.optimizer},
                  {"activations_bytes", t.activations},
                  {"activations_per_layer_bytes", t.activations_per_layer},
                  {"total_bytes", t.total()},
                  {"bytes_per_param_state", cost::kTrainingStateBytesPerParam},
                  {"gpus", train.gpus},
                  {"data_parallel", t.data_parallel},
                  {"tensor_parallel", train.tensor_parallel},
                  {"zero_stage", train.zero_stage},
                  {"recompute", recompute}}},
                {"inference",
                 {{"weights_bytes",
                   {{"fp16", i.weights_fp16}, {"int8", i.weights_int8}, {"int4", i.weights_int4}}},
                  {"kv_cache_bytes", i.kv_cache},
                  {"kv_cache_bytes_per_token", i.kv_cache_per_token},
                  {"batch", infer.batch},
                  {"context", infer.context},
                  {"weights", weights},
                  {"total_bytes", inference_total}}}};
    if (gpu) {
      double capacity = gpu->memory_gib * kGiB;
      doc["gpu"] = {{"name", gpu->name},
                    {"memory_bytes", capacity},
                    {"training_fits", t.total() <= capacity},
                    {"inference_fits", inference_total <= capacity}};
    }
    EmitJson(doc);
  }
  return 0;
}

}  // namespace preflight::cli
