#pragma once
// A training plan: the compute-optimal model for a compute or dollar budget, a model size or a
// target loss under a named loss law, with wall-clock days on a cluster and dollars, the
// 20-tokens-per-parameter rule beside it, and optionally the inference-aware model (by FLOPs,
// and by dollars when inference runs on other hardware, at another utilisation or price).

#include <optional>
#include <string>

#include "base/status.h"
#include "cost/hardware_catalog.h"
#include "cost/loss_law.h"

namespace preflight::cost {

// The smallest compute-optimal model a plan will name. Below it the laws say nothing useful
// (the published fits were made on models from about 7e7 to 1.6e10 parameters); a budget whose
// optimum falls below it is refused as too small.
inline constexpr double kMinPlanParams = 1e6;
// The range of model sizes Hoffmann et al. fitted on; a plan outside it is an extrapolation.
inline constexpr double kFittedParamsLow = 7e7;
inline constexpr double kFittedParamsHigh = 1.6e10;

// A serving workload: `requests` requests of `prefill_tokens` prompt tokens and `decode_tokens`
// generated tokens each. Prefill runs large matrix products and reaches a high utilisation;
// decoding reads every weight for each step of a batch and is memory-bound, so its MFU is low.
// The defaults are assumptions, stated in doc/cost.md: prefill 0.5; decode 0.1 (on an H100,
// bf16 weights give about batch/295 of peak, so 0.1 is a batch near 30).
struct ServingLoad {
  double requests = 0;
  double prefill_tokens = 0;  // per request
  double decode_tokens = 0;   // per request
  double prefill_mfu = 0.5;
  double decode_mfu = 0.1;
  double tokens() const { return requests * (prefill_tokens + decode_tokens); }
};

// One phase of serving a model: tokens, 2 N FLOPs per token, GPU-hours at the phase's MFU of
// the inference peak, dollars at the inference price.
struct InferencePhase {
  double tokens = 0;
  double flops = 0;
  double gpu_hours = 0;
  double usd = 0;
};
struct ServingCost {
  InferencePhase prefill, decode;
  double flops() const { return prefill.flops + decode.flops; }
  double usd() const { return prefill.usd + decode.usd; }
};
// `peak` in operations per second (the inference dtype's dense peak); `price` per GPU-hour.
ServingCost CostOfServing(double params, const ServingLoad& load, double peak, double price);

// The compute-optimal allocation whose predicted loss is `loss`. Along the compute-optimal
// path alpha A / N^alpha = beta B / D^beta, so L - E splits in the ratio beta : alpha:
//   N = (A (alpha+beta) / (beta (L-E)))^(1/alpha),  D = (B (alpha+beta) / (alpha (L-E)))^(1/beta).
// InvalidArgument unless E < loss (no model reaches the law's floor) and loss is finite.
Result<Allocation> ComputeOptimalForLoss(const LossLaw& law, double loss);

struct PlanRequest {
  // Exactly one of these sets the budget.
  std::optional<double> flops;
  std::optional<double> budget_usd;
  std::optional<double> params;  // "the compute-optimal model of this size"
  std::optional<double> loss;    // "the compute-optimal model that reaches this loss"
  // With `params`: a fixed point (N, D), e.g. an over-trained model, planned as given instead
  // of at the compute-optimal tokens for N.
  std::optional<double> tokens;
  LossLaw law;
  GpuSpec gpu;
  double price_usd_per_gpu_hour = 0;
  double mfu = 0.4;
  std::optional<double> gpus;  // wall-clock days need a cluster size
  // Inference-aware sizing, when one of these is set: lifetime tokens at one utilisation, or a
  // serving load with separate prefill and decode utilisations (not both).
  std::optional<double> inference_tokens;
  std::optional<ServingLoad> serving;
  GpuSpec inference_gpu;
  double inference_price_usd_per_gpu_hour = 0;
  double inference_mfu = 0.2;
  PeakDtype inference_dtype = PeakDtype::kBf16;  // which of the inference GPU's peaks
};

struct PlanResult {
  Allocation optimal;  // the compute-optimal allocation, or the fixed point when tokens was set
  bool fixed_point = false;
  std::optional<Allocation> compute_optimal;  // for a fixed point: the optimum at its FLOPs
  Allocation rule_of_20;
  double gpu_hours = 0;  // for the optimal model at the stated MFU
  double usd = 0;
  std::optional<double> days;  // when gpus was given
  bool extrapolated = false;   // optimal.params outside [kFittedParamsLow, kFittedParamsHigh]
  // Dollars per training FLOP and per inference FLOP at the stated hardware, MFU and price.
  double usd_per_training_flop = 0;
  double usd_per_inference_flop = 0;
  std::optional<InferenceAwareResult> by_flops;    // minimises 6ND + 2NT
  std::optional<InferenceAwareResult> by_dollars;  // minimises training $ + inference $
  double inference_tokens = 0;                     // lifetime tokens the sizing used
  double inference_peak = 0;                       // ops/s at the inference dtype
  // With a serving load: prefill and decode for the reference and for each chosen model.
  std::optional<ServingCost> serving_reference, serving_by_flops, serving_by_dollars;
};

// InvalidArgument for: not exactly one budget, tokens without params, a loss at or below E, a
// non-positive budget, MFU outside (0, 1], non-positive GPUs or prices, both inference tokens and a
// serving load, a serving load without requests or tokens, an inference dtype the GPU has no peak
// for, or a budget too small for any model (kMinPlanParams).
Result<PlanResult> MakePlan(const PlanRequest& request);

}  // namespace preflight::cost
