#include "app/cost_memory_job.h"

#include <fmt/format.h>

#include "base/number_format.h"

namespace preflight::app {
namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string Line(const std::string& label, double bytes, const std::string& note) {
  return fmt::format("  {:<28} {:>12}{}{}\n", label, FormatGiB(bytes), note.empty() ? "" : "   ",
                     note);
}

std::string TrainingText(const MemoryOutcome& o) {
  const cost::TrainingMemory& t = o.training;
  const cost::TrainingSetup& s = o.train;
  std::string out = fmt::format(
      "training per GPU: {} GPUs = {} data parallel x {} tensor parallel, ZeRO stage {}, "
      "micro-batch {} x {} tokens, {} recomputation\n",
      s.gpus, t.data_parallel, s.tensor_parallel, s.zero_stage, s.micro_batch, s.sequence,
      o.request.recompute);
  out += Line("weights (bf16, 2 B/param)", t.weights, "");
  out += Line("gradients (bf16, 2 B/param)", t.gradients, "");
  out += Line("optimizer (fp32, 12 B/param)", t.optimizer, "master weights + Adam m + v");
  out +=
      Line("activations", t.activations,
           FormatBytes(t.activations_per_layer) + " per layer x " + std::to_string(o.shape.layers));
  out += Line("total", t.total(), "before framework workspace and fragmentation");
  return out;
}

std::string InferenceText(const MemoryOutcome& o) {
  const cost::InferenceMemory& i = o.inference;
  std::string out = fmt::format("inference (whole model): batch {} x context {}\n", o.infer.batch,
                                o.infer.context);
  out += Line("weights fp16 (2 B/param)", i.weights_fp16, "");
  out += Line("weights int8 (1 B/param)", i.weights_int8, "");
  out += Line("weights int4 (0.5 B/param)", i.weights_int4, "");
  out +=
      Line("KV cache", i.kv_cache, FormatFixed(i.kv_cache_per_token / 1024, 1) + " KiB per token");
  out += Line("total (" + o.request.weights + " weights)", o.inference_total, "");
  return out;
}

}  // namespace

Result<MemoryOutcome> RunMemory(const MemoryRequest& request) {
  MemoryOutcome o;
  o.request = request;
  PF_ASSIGN_OR_RETURN(cost::Recompute recompute, cost::ParseRecompute(request.recompute));
  PF_ASSIGN_OR_RETURN(cost::WeightPrecision precision, cost::ParseWeightPrecision(request.weights));
  if (!request.gpu.empty()) {
    PF_ASSIGN_OR_RETURN(cost::GpuSpec gpu, cost::FindGpu(request.gpu));
    o.gpu = gpu;
  }
  o.shape = request.shape;
  o.train = request.train;
  o.infer = request.infer;
  o.shape.kv_heads = request.kv_heads ? *request.kv_heads : o.shape.heads;
  o.params_estimated = !request.params.has_value();
  o.shape.params = request.params ? *request.params
                                  : cost::ApproxParams(o.shape.layers, o.shape.hidden,
                                                       request.vocab, o.train.sequence);
  o.train.recompute = recompute;
  o.train.sequence_parallel = request.sequence_parallel;
  o.infer.context = request.context ? *request.context : o.train.sequence;

  PF_ASSIGN_OR_RETURN(o.training, cost::EstimateTrainingMemory(o.shape, o.train));
  PF_ASSIGN_OR_RETURN(o.inference, cost::EstimateInferenceMemory(o.shape, o.infer));
  o.inference_total = o.shape.params * cost::BytesPerParam(precision) + o.inference.kv_cache;
  return o;
}

json MemoryToJson(const MemoryOutcome& o) {
  const cost::TrainingMemory& t = o.training;
  const cost::InferenceMemory& i = o.inference;
  json doc = {{"params", o.shape.params},
              {"params_estimated", o.params_estimated},
              {"training",
               {{"weights_bytes", t.weights},
                {"gradients_bytes", t.gradients},
                {"optimizer_bytes", t.optimizer},
                {"activations_bytes", t.activations},
                {"activations_per_layer_bytes", t.activations_per_layer},
                {"total_bytes", t.total()},
                {"bytes_per_param_state", cost::kTrainingStateBytesPerParam},
                {"gpus", o.train.gpus},
                {"data_parallel", t.data_parallel},
                {"tensor_parallel", o.train.tensor_parallel},
                {"zero_stage", o.train.zero_stage},
                {"recompute", o.request.recompute}}},
              {"inference",
               {{"weights_bytes",
                 {{"fp16", i.weights_fp16}, {"int8", i.weights_int8}, {"int4", i.weights_int4}}},
                {"kv_cache_bytes", i.kv_cache},
                {"kv_cache_bytes_per_token", i.kv_cache_per_token},
                {"batch", o.infer.batch},
                {"context", o.infer.context},
                {"weights", o.request.weights},
                {"total_bytes", o.inference_total}}}};
  if (o.gpu) {
    double capacity = o.gpu->memory_gib * kGiB;
    doc["gpu"] = {{"name", o.gpu->name},
                  {"memory_bytes", capacity},
                  {"training_fits", t.total() <= capacity},
                  {"inference_fits", o.inference_total <= capacity}};
  }
  return doc;
}

std::string MemoryText(const MemoryOutcome& o) {
  const cost::ModelShape& m = o.shape;
  std::string out =
      fmt::format("model: {} parameters{}, {} layers, hidden {}, {} heads ({} KV heads)\n",
                  FormatCount(m.params), o.params_estimated ? " (estimated from shape)" : "",
                  m.layers, m.hidden, m.heads, m.kv_heads);
  out += TrainingText(o);
  out += InferenceText(o);
  if (o.gpu) {
    double capacity = o.gpu->memory_gib * kGiB;
    double train = o.training.total(), infer = o.inference_total;
    out += fmt::format("on one {} ({} GiB): training {} ({:.0f}%), inference {} ({:.0f}%)\n",
                       o.gpu->name, FormatPlain(o.gpu->memory_gib),
                       train <= capacity ? "fits" : "does NOT fit", 100 * train / capacity,
                       infer <= capacity ? "fits" : "does NOT fit", 100 * infer / capacity);
  }
  return out;
}

}  // namespace preflight::app
