// preflight plan: flags -> app::PlanRequest -> app::RunPlan -> the report (stdout, or stderr
// under --json) and the JSON document. The job is in src/app/cost_plan_job.h.

#include <cstdio>
#include <string>

#include "app/cost_plan_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/hardware_catalog.h"

namespace preflight::cli {
namespace {

// A serving load instead of --inference-tokens: T = requests x (prefill + decode tokens).
void AddServingFlags(CLI::App& app, app::PlanRequest& r, CLI::Option* inference_tokens) {
  app.add_option("--requests", r.requests,
                 "lifetime inference requests; with --prefill-tokens and --decode-tokens instead "
                 "of --inference-tokens")
      ->excludes(inference_tokens);
  app.add_option("--prefill-tokens", r.prefill_tokens, "prompt tokens per request");
  app.add_option("--decode-tokens", r.decode_tokens, "generated tokens per request");
  app.add_option("--prefill-mfu", r.prefill_mfu,
                 "prefill utilisation (default 0.5: large matrix products)");
  app.add_option("--decode-mfu", r.decode_mfu,
                 "decode utilisation (default 0.1: memory-bound, about a batch of 30 on an H100)");
}

}  // namespace

int RunPlan(int argc, char** argv) {
  CLI::App app;
  Describe(app, "plan",
           "Compute-optimal model size and tokens for a budget (--flops, --budget-usd, --params) "
           "or a target loss (--loss), from L(N, D) = E + A/N^alpha + B/D^beta with C = 6ND; the "
           "20-tokens-per-parameter rule beside it; with --inference-tokens or a serving load "
           "(--requests), the smaller model that reaches the same loss with the fewest lifetime "
           "FLOPs and the fewest lifetime dollars (Sardana et al. 2024).");
  app::PlanRequest r;
  bool as_json = false;
  auto* flops_opt = app.add_option("--flops", r.flops, "training compute budget C in FLOPs");
  auto* budget_opt = app.add_option("--budget-usd", r.budget_usd, "training budget in dollars")
                         ->excludes(flops_opt);
  app.add_option("--params", r.params,
                 "plan the compute-optimal model of this many parameters (with --tokens: that "
                 "fixed point)")
      ->excludes(flops_opt)
      ->excludes(budget_opt);
  app.add_option("--loss", r.loss,
                 "plan the compute-optimal model that reaches this loss (in the law's units, e.g. "
                 "nats per token for the published fits); with a serving load, the cheapest "
                 "model of this loss")
      ->excludes(flops_opt)
      ->excludes(budget_opt)
      ->excludes("--params");
  app.add_option("--tokens", r.tokens,
                 "with --params: plan this (N, D) point as given, e.g. an over-trained model, "
                 "instead of the compute-optimal tokens")
      ->excludes(flops_opt)
      ->excludes(budget_opt);
  app.add_option("--fit", r.fit,
                 "loss law: epoch (Besiroglu et al. 2024) or chinchilla "
                 "(Hoffmann et al. 2022, approach 3 as printed)")
      ->capture_default_str();
  app.add_option("--law-json", r.law_json, "use the law in this file (from preflight fit --json)");
  app.add_option("--E", r.E, "override the law's E");
  app.add_option("--A", r.A, "override the law's A");
  app.add_option("--B", r.B, "override the law's B");
  app.add_option("--alpha", r.alpha, "override the law's alpha");
  app.add_option("--beta", r.beta, "override the law's beta");
  app.add_option("--gpu", r.gpu, "training GPU: " + cost::KnownGpuNames())->capture_default_str();
  app.add_option("--gpus", r.gpus, "cluster size, for wall-clock days");
  app.add_option("--mfu", r.mfu, "training model-FLOP utilisation, in (0, 1]")
      ->capture_default_str();
  app.add_option("--price", r.price, "dollars per training GPU-hour (default: catalogue)");
  auto* tokens_opt = app.add_option("--inference-tokens", r.inference_tokens,
                                    "lifetime inference tokens T: size the model for 6ND + 2NT");
  app.add_option("--inference-gpu", r.inference_gpu, "inference GPU (default: --gpu)");
  app.add_option("--inference-mfu", r.inference_mfu,
                 "inference utilisation (assumed 0.2: decoding is memory-bound)")
      ->capture_default_str();
  app.add_option("--inference-price", r.inference_price,
                 "dollars per inference GPU-hour (default: catalogue)");
  app.add_option("--inference-dtype", r.inference_dtype,
                 "inference number format, choosing the GPU's dense peak: bf16 (default), fp8, "
                 "int8");
  AddServingFlags(app, r, tokens_opt);
  app.add_option("--from-ladder", r.from_ladder,
                 "a keep ladder's ladder.json or receipt: plan the fraction it recommends, at "
                 "the compute it was made for unless a budget is given");
  app.add_option("--pool-tokens", r.pool_tokens,
                 "with --from-ladder: tokens in the pool the fraction is kept from (for the "
                 "epochs over the kept part)");
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  auto outcome = app::RunPlan(r);
  if (!outcome.ok()) return Fail("plan", outcome.status());
  std::fputs(app::PlanText(*outcome).c_str(), as_json ? stderr : stdout);
  if (as_json) EmitJson(app::PlanToJson(*outcome));
  return 0;
}

}  // namespace preflight::cli
