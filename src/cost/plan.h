#pragma once
// A training plan: the compute-optimal model for a compute or dollar budget under a named loss
// law, with wall-clock days on a cluster and dollars, the 20-tokens-per-parameter rule beside
// it, and optionally the inference-aware model (by FLOPs, and by dollars when inference runs
// on other hardware, at another utilisation or price).

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

struct PlanRequest {
  // Exactly one of these sets the budget.
  std::optional<double> flops;
  std::optional<double> budget_usd;
  std::optional<double> params;  // "the compute-optimal model of this size"
  LossLaw law;
  GpuSpec gpu;
  double price_usd_per_gpu_hour = 0;
  double mfu = 0.4;
  std::optional<double> gpus;  // wall-clock days need a cluster size
  // Inference-aware sizing, when set.
  std::optional<double> inference_tokens;
  GpuSpec inference_gpu;
  double inference_price_usd_per_gpu_hour = 0;
  double inference_mfu = 0.2;
};

struct PlanResult {
  Allocation optimal;
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
};

// InvalidArgument for: not exactly one budget, a non-positive budget, MFU outside (0, 1],
// non-positive GPUs or prices, or a budget too small for any model (kMinPlanParams).
Result<PlanResult> MakePlan(const PlanRequest& request);

}  // namespace preflight::cost
