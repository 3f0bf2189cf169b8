#include "cost/memory_estimate.h"

#include <cmath>

namespace preflight::cost {

Result<Recompute> ParseRecompute(std::string_view name) {
  if (name == "none") return Recompute::kNone;
  if (name == "selective") return Recompute::kSelective;
  if (name == "full") return Recompute::kFull;
  return Status::InvalidArgument("--recompute must be none, selective or full (got '" +
                                 std::string(name) + "')");
}

Result<WeightPrecision> ParseWeightPrecision(std::string_view name) {
  if (name == "fp16" || name == "bf16") return WeightPrecision::kFp16;
  if (name == "int8") return WeightPrecision::kInt8;
  if (name == "int4") return WeightPrecision::kInt4;
  return Status::InvalidArgument("weight precision must be fp16, bf16, int8 or int4 (got '" +
                                 std::string(name) + "')");
}

double BytesPerParam(WeightPrecision p) {
  switch (p) {
    case WeightPrecision::kFp16:
      return 2;
    case WeightPrecision::kInt8:
      return 1;
    case WeightPrecision::kInt4:
      return 0.5;
  }
  return 0;
}

double ApproxParams(int layers, int hidden, int vocab, int context) {
  double l = layers, h = hidden;
  return 12 * l * h * h + 13 * l * h + (static_cast<double>(vocab) + context) * h;
}

Status ValidateShape(const ModelShape& m) {
  if (!(std::isfinite(m.params) && m.params > 0)) {
    return Status::InvalidArgument("--params must be a positive number");
  }
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.kv_heads <= 0) {
    return Status::InvalidArgument("--layers, --hidden, --heads and --kv-heads must be positive");
  }
  if (m.hidden % m.heads != 0) {
    return Status::InvalidArgument("--hidden (" + std::to_string(m.hidden) +
                                   ") must be divisible by --heads (" + std::to_string(m.heads) +
                                   ")");
  }
  if (m.heads % m.kv_heads != 0) {
    return Status::InvalidArgument("--heads (" + std::to_string(m.heads) +
                                   ") must be divisible by --kv-heads (" +
                                   std::to_string(m.kv_heads) + ")");
  }
  return Status::Ok();
}

Result<TrainingMemory> EstimateTrainingMemory(const ModelShape& m, const TrainingSetup& s) {
  PF_RETURN_IF_ERROR(ValidateShape(m));
  if (s.micro_batch <= 0 || s.sequence <= 0) {
    return Status::InvalidArgument("--micro-batch and --seq must be positive");
  }
  if (s.zero_stage < 0 || s.zero_stage > 3) {
    return Status::InvalidArgument("--zero must be 0, 1, 2 or 3 (got " +
                                   std::to_string(s.zero_stage) + ")");
  }
  if (s.gpus <= 0 || s.tensor_parallel <= 0 || s.gpus % s.tensor_parallel != 0) {
    return Status::InvalidArgument("--gpus (" + std::to_string(s.gpus) +
                                   ") must be a positive multiple of --tensor-parallel (" +
                                   std::to_string(s.tensor_parallel) + ")");
  }
  TrainingMemory out;
  const double t = s.tensor_parallel;
  const double dp = s.gpus / s.tensor_parallel;
  out.data_parallel = s.gpus / s.tensor_parallel;
  // Each tensor-parallel rank holds 1/t of the model; ZeRO splits that over data parallel.
  const double psi = m.params / t;
  out.weights = kWeightBytesPerParam * psi / (s.zero_stage >= 3 ? dp : 1);
  out.gradients = kGradientBytesPerParam * psi / (s.zero_stage >= 2 ? dp : 1);
  out.optimizer = kOptimizerBytesPerParam * psi / (s.zero_stage >= 1 ? dp : 1);

  const double sbh = static_cast<double>(s.sequence) * s.micro_batch * m.hidden;
  const double attention = 5.0 * m.heads * s.sequence / m.hidden;  // the a s^2 score terms
  const bool sp = s.sequence_parallel && s.tensor_parallel > 1;
  double per_layer = 0;
  switch (s.recompute) {
    case Recompute::kNone:
      per_layer = sp ? sbh * (34 / t + attention / t) : sbh * (10 + 24 / t + attention / t);
      break;
    case Recompute::kSelective:
      per_layer = sp ? sbh * 34 / t : sbh * (10 + 24 / t);
      break;
    case Recompute::kFull:
      per_layer = 2 * sbh;
      break;
  }
  out.activations_per_layer = per_layer;
  out.activations = per_layer * m.layers;
  return out;
}

Result<InferenceMemory> EstimateInferenceMemory(const ModelShape& m, const InferenceSetup& s) {
  PF_RETURN_IF_ERROR(ValidateShape(m));
  if (s.batch <= 0 || s.context <= 0) {
    return Status::InvalidArgument("--batch and --context must be positive");
  }
  if (!(std::isfinite(s.kv_bytes) && s.kv_bytes > 0)) {
    return Status::InvalidArgument("--kv-bytes must be positive");
  }
  InferenceMemory out;
  out.weights_fp16 = m.params * BytesPerParam(WeightPrecision::kFp16);
  out.weights_int8 = m.params * BytesPerParam(WeightPrecision::kInt8);
  out.weights_int4 = m.params * BytesPerParam(WeightPrecision::kInt4);
  const double head_dim = static_cast<double>(m.hidden) / m.heads;
  out.kv_cache_per_token = 2.0 * m.layers * m.kv_heads * head_dim * s.kv_bytes;
  out.kv_cache = out.kv_cache_per_token * s.batch * s.context;
  return out;
}

}  // namespace preflight::cost
