#include "cost/plan.h"

#include <cmath>

#include "base/number_format.h"
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

// The allocation the budget buys: compute-optimal for FLOPs, dollars or a model size, or the
// fixed point (N, D) as given.
Status Allocate(const PlanRequest& r, PlanResult* p) {
  if (r.tokens && !r.params) {
    return Status::InvalidArgument(
        "--tokens D needs --params N: together they plan a fixed model and data size");
  }
  if (r.flops) {
    PF_RETURN_IF_ERROR(CheckPositive("--flops", *r.flops, "FLOP count"));
    p->optimal = ComputeOptimal(r.law, *r.flops);
  } else if (r.budget_usd) {
    PF_RETURN_IF_ERROR(CheckPositive("--budget-usd", *r.budget_usd, "number of dollars"));
    p->optimal = ComputeOptimal(r.law, *r.budget_usd / p->usd_per_training_flop);
  } else if (r.loss) {
    PF_ASSIGN_OR_RETURN(p->optimal, ComputeOptimalForLoss(r.law, *r.loss));
  } else if (r.tokens) {
    PF_RETURN_IF_ERROR(CheckPositive("--params", *r.params, "parameter count"));
    PF_RETURN_IF_ERROR(CheckPositive("--tokens", *r.tokens, "number of training tokens"));
    Allocation given;
    given.params = *r.params;
    given.tokens = *r.tokens;
    given.flops = TrainingFlops(given.params, given.tokens);
    given.loss = r.law.Loss(given.params, given.tokens);
    p->optimal = given;
    p->fixed_point = true;
    p->compute_optimal = ComputeOptimal(r.law, given.flops);
  } else {
    PF_RETURN_IF_ERROR(CheckPositive("--params", *r.params, "parameter count"));
    p->optimal = ComputeOptimalForParams(r.law, *r.params);
  }
  if (!(p->optimal.params >= kMinPlanParams) && r.loss) {
    return Status::InvalidArgument(
        "--loss " + FormatPlain(*r.loss, 4) + " is reached by a compute-optimal model of " +
        FormatSci(p->optimal.params) + " parameters, below the smallest model a plan names (" +
        FormatSci(kMinPlanParams) +
        "; the laws were fitted on 7e7 to 1.6e10). Ask for a lower loss.");
  }
  if (!(p->optimal.params >= kMinPlanParams)) {
    return Status::InvalidArgument(
        "budget too small: it buys " + FormatSci(p->optimal.flops) +
        " FLOPs, whose compute-optimal model would have " + FormatSci(p->optimal.params) +
        " parameters, below the smallest model a plan names (" + FormatSci(kMinPlanParams) +
        "; the laws were fitted on 7e7 to 1.6e10). Raise the budget.");
  }
  return Status::Ok();
}

Status CheckServing(const ServingLoad& s) {
  PF_RETURN_IF_ERROR(CheckPositive("--requests", s.requests, "number of requests"));
  if (!(std::isfinite(s.prefill_tokens) && s.prefill_tokens >= 0 &&
        std::isfinite(s.decode_tokens) && s.decode_tokens >= 0 &&
        s.prefill_tokens + s.decode_tokens > 0)) {
    return Status::InvalidArgument(
        "--prefill-tokens and --decode-tokens are tokens per request, >= 0 and not both 0 (got " +
        FormatSci(s.prefill_tokens, 6) + " and " + FormatSci(s.decode_tokens, 6) + ")");
  }
  PF_RETURN_IF_ERROR(ValidateMfu(s.prefill_mfu, "--prefill-mfu"));
  return ValidateMfu(s.decode_mfu, "--decode-mfu");
}

// Inference-aware sizing by FLOPs and by dollars; with a serving load, each phase's cost.
Status PlanInference(const PlanRequest& r, PlanResult* p) {
  if (r.inference_tokens && r.serving) {
    return Status::InvalidArgument(
        "give --inference-tokens T or a serving load (--requests with --prefill-tokens and "
        "--decode-tokens), not both");
  }
  if (!r.serving) PF_RETURN_IF_ERROR(ValidateMfu(r.inference_mfu, "--inference-mfu"));
  PF_RETURN_IF_ERROR(CheckPositive("--inference-price", r.inference_price_usd_per_gpu_hour,
                                   "dollars per GPU-hour"));
  PF_ASSIGN_OR_RETURN(p->inference_peak,
                      DensePeak(r.inference_gpu, r.inference_dtype, "--inference-dtype"));
  const double usd_per_peak_flop = r.inference_price_usd_per_gpu_hour / (3600 * p->inference_peak);
  if (r.serving) {
    const ServingLoad& s = *r.serving;
    PF_RETURN_IF_ERROR(CheckServing(s));
    p->inference_tokens = s.tokens();
    // Dollars per inference FLOP, averaged over the load's prefill and decode tokens.
    p->usd_per_inference_flop =
        usd_per_peak_flop * (s.prefill_tokens / s.prefill_mfu + s.decode_tokens / s.decode_mfu) /
        (s.prefill_tokens + s.decode_tokens);
  } else {
    p->inference_tokens = *r.inference_tokens;
    p->usd_per_inference_flop =
        r.inference_price_usd_per_gpu_hour / (3600 * p->inference_peak * r.inference_mfu);
  }
  PF_ASSIGN_OR_RETURN(p->by_flops, InferenceAware(r.law, p->optimal, p->inference_tokens, 1));
  PF_ASSIGN_OR_RETURN(p->by_dollars,
                      InferenceAware(r.law, p->optimal, p->inference_tokens,
                                     p->usd_per_inference_flop / p->usd_per_training_flop));
  if (r.serving) {
    auto serve = [&](double params) {
      return CostOfServing(params, *r.serving, p->inference_peak,
                           r.inference_price_usd_per_gpu_hour);
    };
    p->serving_reference = serve(p->optimal.params);
    p->serving_by_flops = serve(p->by_flops->chosen.params);
    p->serving_by_dollars = serve(p->by_dollars->chosen.params);
  }
  return Status::Ok();
}

}  // namespace

Result<Allocation> ComputeOptimalForLoss(const LossLaw& law, double loss) {
  if (!(std::isfinite(loss) && loss > law.E)) {
    return Status::InvalidArgument(
        "--loss " + FormatSci(loss, 6) + " is not above the '" + law.name +
        "' law's irreducible loss E = " + FormatSci(law.E, 6) + ": no model reaches it");
  }
  const double excess = loss - law.E, sum = law.alpha + law.beta;
  Allocation a;
  a.params = std::pow(law.A * sum / (law.beta * excess), 1 / law.alpha);
  a.tokens = std::pow(law.B * sum / (law.alpha * excess), 1 / law.beta);
  a.flops = TrainingFlops(a.params, a.tokens);
  a.loss = law.Loss(a.params, a.tokens);
  return a;
}

ServingCost CostOfServing(double params, const ServingLoad& load, double peak, double price) {
  auto phase = [&](double tokens_per_request, double mfu) {
    InferencePhase out;
    out.tokens = load.requests * tokens_per_request;
    out.flops = InferenceFlops(params, out.tokens);
    out.gpu_hours = out.flops / (peak * mfu) / 3600;
    out.usd = out.gpu_hours * price;
    return out;
  };
  return {phase(load.prefill_tokens, load.prefill_mfu), phase(load.decode_tokens, load.decode_mfu)};
}

Result<PlanResult> MakePlan(const PlanRequest& r) {
  PF_RETURN_IF_ERROR(ValidateLaw(r.law));
  int budgets =
      r.flops.has_value() + r.budget_usd.has_value() + r.params.has_value() + r.loss.has_value();
  if (budgets != 1) {
    return Status::InvalidArgument(
        "give exactly one budget: --flops C, --budget-usd X, --params N or --loss L");
  }
  PF_RETURN_IF_ERROR(ValidateMfu(r.mfu, "--mfu"));
  PF_RETURN_IF_ERROR(CheckPositive("--price", r.price_usd_per_gpu_hour, "dollars per GPU-hour"));
  if (r.gpus) PF_RETURN_IF_ERROR(CheckPositive("--gpus", *r.gpus, "number of GPUs"));

  PlanResult p;
  p.usd_per_training_flop = r.price_usd_per_gpu_hour / (3600 * r.gpu.bf16_dense_flops * r.mfu);
  PF_RETURN_IF_ERROR(Allocate(r, &p));
  p.rule_of_20 = TwentyTokensPerParam(r.law, p.optimal.flops);
  p.gpu_hours = p.optimal.flops / (r.gpu.bf16_dense_flops * r.mfu) / 3600;
  p.usd = p.gpu_hours * r.price_usd_per_gpu_hour;
  if (r.gpus) p.days = p.gpu_hours / *r.gpus / 24;
  p.extrapolated = p.optimal.params < kFittedParamsLow || p.optimal.params > kFittedParamsHigh;
  if (r.inference_tokens || r.serving) PF_RETURN_IF_ERROR(PlanInference(r, &p));
  return p;
}

}  // namespace preflight::cost
