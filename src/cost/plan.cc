#include "cost/plan.h"

#include <cmath>

#include "base/format.h"
#include "cost/cost_estimate.h"

namespace preflight::cost {
namespace {

bool PositiveFinite(double x) { return std::isfinite(x) && x > 0; }

Status CheckPositive(const char* flag, double x, const char* what) {
  if (!PositiveFinite(x)) {
    return Status::InvalidArgument(std::string(flag) + " must be a positive " + what + " (got " +
                                   FormatSci(x, 6) + ")");
  }
  return Status::Ok();
}

}  // namespace

Result<PlanResult> MakePlan(const PlanRequest& r) {
  PF_RETURN_IF_ERROR(ValidateLaw(r.law));
  int budgets = r.flops.has_value() + r.budget_usd.has_value() + r.params.has_value();
  if (budgets != 1) {
    return Status::InvalidArgument(
        "give exactly one budget: --flops C, --budget-usd X or --params N");
  }
  PF_RETURN_IF_ERROR(ValidateMfu(r.mfu, "--mfu"));
  PF_RETURN_IF_ERROR(CheckPositive("--price", r.price_usd_per_gpu_hour, "dollars per GPU-hour"));
  if (r.gpus) PF_RETURN_IF_ERROR(CheckPositive("--gpus", *r.gpus, "number of GPUs"));

  PlanResult p;
  p.usd_per_training_flop = r.price_usd_per_gpu_hour / (3600 * r.gpu.bf16_dense_flops * r.mfu);
  if (r.flops) {
    PF_RETURN_IF_ERROR(CheckPositive("--flops", *r.flops, "FLOP count"));
    p.optimal = ComputeOptimal(r.law, *r.flops);
  } else if (r.budget_usd) {
    PF_RETURN_IF_ERROR(CheckPositive("--budget-usd", *r.budget_usd, "number of dollars"));
    p.optimal = ComputeOptimal(r.law, *r.budget_usd / p.usd_per_training_flop);
  } else {
    PF_RETURN_IF_ERROR(CheckPositive("--params", *r.params, "parameter count"));
    p.optimal = ComputeOptimalForParams(r.law, *r.params);
  }
  if (!(p.optimal.params >= kMinPlanParams)) {
    return Status::InvalidArgument(
        "budget too small: it buys " + FormatSci(p.optimal.flops) +
        " FLOPs, whose compute-optimal model would have " + FormatSci(p.optimal.params) +
        " parameters, below the smallest model a plan names (" + FormatSci(kMinPlanParams) +
        "; the laws were fitted on 7e7 to 1.6e10). Raise the budget.");
  }
  p.rule_of_20 = TwentyTokensPerParam(r.law, p.optimal.flops);
  p.gpu_hours = p.optimal.flops / (r.gpu.bf16_dense_flops * r.mfu) / 3600;
  p.usd = p.gpu_hours * r.price_usd_per_gpu_hour;
  if (r.gpus) p.days = p.gpu_hours / *r.gpus / 24;
  p.extrapolated = p.optimal.params < kFittedParamsLow || p.optimal.params > kFittedParamsHigh;

  if (r.inference_tokens) {
    PF_RETURN_IF_ERROR(ValidateMfu(r.inference_mfu, "--inference-mfu"));
    PF_RETURN_IF_ERROR(CheckPositive("--inference-price", r.inference_price_usd_per_gpu_hour,
                                     "dollars per GPU-hour"));
    p.usd_per_inference_flop = r.inference_price_usd_per_gpu_hour /
                               (3600 * r.inference_gpu.bf16_dense_flops * r.inference_mfu);
    PF_ASSIGN_OR_RETURN(p.by_flops, InferenceAware(r.law, p.optimal, *r.inference_tokens, 1));
    PF_ASSIGN_OR_RETURN(p.by_dollars,
                        InferenceAware(r.law, p.optimal, *r.inference_tokens,
                                       p.usd_per_inference_flop / p.usd_per_training_flop));
  }
  return p;
}

}  // namespace preflight::cost
