#pragma once
// The `preflight plan` job: the compute-optimal model for a budget under a named (or fitted)
// loss law, the 20-tokens-per-parameter rule beside it, and inference-aware sizing. The
// arithmetic is in src/cost/plan.h and loss_law.h; this resolves the law and the hardware,
// runs the plan, and says what came out: typed (PlanOutcome), as --json (PlanToJson) and as
// the report a person reads (PlanText).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "cost/hardware_catalog.h"
#include "cost/ladder_keep.h"
#include "cost/loss_law.h"
#include "cost/plan.h"

namespace preflight::app {

struct PlanRequest {
  // Exactly one budget: FLOPs, dollars, the compute-optimal model of `params` parameters
  // (with `tokens` too: that fixed point, e.g. an over-trained model, as given), or the
  // compute-optimal model that reaches `loss`.
  std::optional<double> flops;
  std::optional<double> budget_usd;
  std::optional<double> params;
  std::optional<double> tokens;
  std::optional<double> loss;
  // The law: `fit` by name ("epoch", "chinchilla") unless `law_json` names a file from
  // `preflight fit --out`; then any constant overridden.
  std::string fit = "epoch";
  std::string law_json;
  std::optional<double> E, A, B, alpha, beta;
  std::string gpu = "H100-SXM";
  std::optional<double> gpus;
  double mfu = 0.4;
  std::optional<double> price;  // per training GPU-hour; the catalogue's when unset
  // Inference-aware sizing: lifetime tokens at one utilisation, or a serving load of
  // `requests` x (prefill + decode tokens) with a utilisation for each phase.
  std::optional<double> inference_tokens;
  std::string inference_gpu;  // empty: the training GPU
  double inference_mfu = 0.2;
  std::optional<double> inference_price;
  std::optional<std::string> inference_dtype;  // bf16 (when unset), fp8 or int8
  std::optional<double> requests;
  std::optional<double> prefill_tokens, decode_tokens;  // per request
  std::optional<double> prefill_mfu, decode_mfu;        // cost::ServingLoad's defaults if unset
  // `--from-ladder FILE`: the fraction a keep ladder recommended (cost/ladder_keep.h), planned
  // at the compute it was made for unless a budget is given; with `pool_tokens`, the epochs the
  // planned tokens make over the kept part of that pool.
  std::string from_ladder;
  std::optional<double> pool_tokens;
};

struct PlanOutcome {
  PlanRequest request;
  cost::LossLaw law;  // as used, overrides applied
  cost::GpuSpec gpu;
  cost::GpuSpec inference_gpu;
  cost::PlanRequest priced;  // prices and utilisations as used
  cost::PlanResult plan;
  std::optional<cost::LadderKeep> keep;  // with from_ladder
  std::optional<cost::KeptData> kept;    // with from_ladder and pool_tokens
};

Result<PlanOutcome> RunPlan(const PlanRequest& request);

// {"params","tokens","tokens_per_param","loss","flops","days","usd","gpu_hours","gpu","gpus",
//  "mfu","price_usd_per_gpu_hour","fit":{...},"rule_of_20":{...},"extrapolated"} and, with
// inference tokens, "inference_aware":{...}; for a fixed point, "fixed_point" and
// "compute_optimal"; for a target loss, "target_loss"; with a serving load,
// "inference_aware":{"serving":{...}}; with --from-ladder, "keep" (cost::LadderKeepJson).
nlohmann::json PlanToJson(const PlanOutcome& outcome);

// The human report, ending in a newline.
std::string PlanText(const PlanOutcome& outcome);

}  // namespace preflight::app
