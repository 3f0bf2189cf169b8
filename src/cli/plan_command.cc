// preflight plan: the compute-optimal model for a compute or dollar budget under a named loss
// law, the 20-tokens-per-parameter rule beside it, and inference-aware sizing. The work is in
// src/cost/ (loss_law.h, plan.h).

#include <cstdio>
#include <optional>
#include <string>

#include "base/format.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/hardware_catalog.h"
#include "cost/plan.h"

namespace preflight::cli {
namespace {

using nlohmann::json;

json AllocationJson(const cost::Allocation& a) {
  return {{"params", a.params},
          {"tokens", a.tokens},
          {"tokens_per_param", a.tokens_per_param()},
          {"loss", a.loss},
          {"flops", a.flops}};
}

json InferenceJson(const cost::InferenceAwareResult& r) {
  return {{"chosen", AllocationJson(r.chosen)},
          {"inference_weight", r.inference_weight},
          {"reference_total_flops", r.reference_total_flops},
          {"chosen_total_flops", r.chosen_total_flops},
          {"flops_saving", r.flops_saving()},
          {"objective_saving", r.saving()}};
}

void PrintRow(std::FILE* out, const char* label, const cost::Allocation& a) {
  std::fprintf(out, "  %-26s %9s %9s %12s %9s %11s\n", label, FormatCount(a.params).c_str(),
               FormatCount(a.tokens).c_str(), FormatFixed(a.tokens_per_param(), 1).c_str(),
               FormatFixed(a.loss, 4).c_str(), FormatSci(a.flops).c_str());
}

void PrintInference(std::FILE* out, const char* label, const cost::InferenceAwareResult& r,
                    const cost::PlanResult& p) {
  const cost::Allocation& c = r.chosen;
  std::fprintf(out, "  %s: %s params trained on %s tokens (%s tokens/param), loss %s\n", label,
               FormatCount(c.params).c_str(), FormatCount(c.tokens).c_str(),
               FormatFixed(c.tokens_per_param(), 1).c_str(), FormatFixed(c.loss, 4).c_str());
  std::fprintf(out,
               "    training %s + inference %s = %s FLOPs, against %s for the compute-optimal "
               "model: %s%% fewer\n",
               FormatSci(c.flops).c_str(), FormatSci(2 * c.params * r.inference_tokens).c_str(),
               FormatSci(r.chosen_total_flops).c_str(), FormatSci(r.reference_total_flops).c_str(),
               FormatFixed(100 * r.flops_saving(), 1).c_str());
  double chosen_usd = c.flops * p.usd_per_training_flop +
                      2 * c.params * r.inference_tokens * p.usd_per_inference_flop;
  double reference_usd = r.reference.flops * p.usd_per_training_flop +
                         2 * r.reference.params * r.inference_tokens * p.usd_per_inference_flop;
  std::fprintf(out, "    lifetime dollars %s against %s: %s%% fewer\n",
               FormatUsd(chosen_usd).c_str(), FormatUsd(reference_usd).c_str(),
               FormatFixed(100 * (1 - chosen_usd / reference_usd), 1).c_str());
}

}  // namespace

int RunPlan(int argc, char** argv) {
  CLI::App app;
  Describe(app, "plan",
           "Compute-optimal model size and tokens for a budget, from L(N, D) = E + A/N^alpha + "
           "B/D^beta with C = 6ND; the 20-tokens-per-parameter rule beside it; with "
           "--inference-tokens, the smaller model that reaches the same loss with fewer lifetime "
           "FLOPs (Sardana et al. 2024).");
  cost::PlanRequest request;
  std::optional<double> flops, budget, params, gpus, price, inference_tokens, inference_price;
  std::optional<double> e, a, b, alpha, beta;
  std::string fit = "epoch", gpu_name = "H100-SXM", inference_gpu_name, law_json;
  double mfu = 0.4, inference_mfu = 0.2;
  bool as_json = false;
  auto* flops_opt = app.add_option("--flops", flops, "training compute budget C in FLOPs");
  auto* budget_opt =
      app.add_option("--budget-usd", budget, "training budget in dollars")->excludes(flops_opt);
  app.add_option("--params", params, "plan the compute-optimal model of this many parameters")
      ->excludes(flops_opt)
      ->excludes(budget_opt);
  app.add_option("--fit", fit,
                 "loss law: epoch (Besiroglu et al. 2024) or chinchilla "
                 "(Hoffmann et al. 2022, approach 3 as printed)")
      ->capture_default_str();
  app.add_option("--law-json", law_json, "use the law in this file (from preflight fit --json)");
  app.add_option("--E", e, "override the law's E");
  app.add_option("--A", a, "override the law's A");
  app.add_option("--B", b, "override the law's B");
  app.add_option("--alpha", alpha, "override the law's alpha");
  app.add_option("--beta", beta, "override the law's beta");
  app.add_option("--gpu", gpu_name, "training GPU: " + cost::KnownGpuNames())
      ->capture_default_str();
  app.add_option("--gpus", gpus, "cluster size, for wall-clock days");
  app.add_option("--mfu", mfu, "training model-FLOP utilisation, in (0, 1]")->capture_default_str();
  app.add_option("--price", price, "dollars per training GPU-hour (default: catalogue)");
  app.add_option("--inference-tokens", inference_tokens,
                 "lifetime inference tokens T: size the model for 6ND + 2NT");
  app.add_option("--inference-gpu", inference_gpu_name, "inference GPU (default: --gpu)");
  app.add_option("--inference-mfu", inference_mfu,
                 "inference utilisation (assumed 0.2: decoding is memory-bound)")
      ->capture_default_str();
  app.add_option("--inference-price", inference_price,
                 "dollars per inference GPU-hour (default: catalogue)");
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  // The law: a named fit or a file, then any constant overridden.
  Result<cost::LossLaw> law = law_json.empty() ? cost::FindLaw(fit) : cost::ReadLawJson(law_json);
  if (!law.ok()) return Fail("plan", law.status());
  std::string overrides;
  const struct {
    const char* name;
    const std::optional<double>& value;
    double* dest;
  } constants[] = {{"E", e, &law->E},
                   {"A", a, &law->A},
                   {"B", b, &law->B},
                   {"alpha", alpha, &law->alpha},
                   {"beta", beta, &law->beta}};
  for (const auto& c : constants) {
    if (!c.value) continue;
    *c.dest = *c.value;
    overrides += std::string(overrides.empty() ? "" : ", ") + c.name + " " + FormatG(*c.value);
  }
  if (!overrides.empty()) {
    law->name += "+overrides";
    law->citation += "; overridden on the command line: " + overrides;
  }
  auto gpu = cost::FindGpu(gpu_name);
  if (!gpu.ok()) return Fail("plan", gpu.status());
  auto inference_gpu = cost::FindGpu(inference_gpu_name.empty() ? gpu->name : inference_gpu_name);
  if (!inference_gpu.ok()) return Fail("plan", inference_gpu.status());

  request.flops = flops;
  request.budget_usd = budget;
  request.params = params;
  request.law = *law;
  request.gpu = *gpu;
  request.price_usd_per_gpu_hour = price ? *price : gpu->price_usd_per_gpu_hour;
  request.mfu = mfu;
  request.gpus = gpus;
  request.inference_tokens = inference_tokens;
  request.inference_gpu = *inference_gpu;
  request.inference_price_usd_per_gpu_hour =
      inference_price ? *inference_price : inference_gpu->price_usd_per_gpu_hour;
  request.inference_mfu = inference_mfu;
  auto plan = cost::MakePlan(request);
  if (!plan.ok()) return Fail("plan", plan.status());
  const cost::PlanResult& p = *plan;

  std::FILE* out = as_json ? stderr : stdout;
  std::fprintf(out, "plan for %s FLOPs under the '%s' law: %s\n",
               FormatSci(p.optimal.flops).c_str(), law->name.c_str(), law->citation.c_str());
  std::fprintf(out, "  L(N, D) = %s + %s/N^%s + %s/D^%s\n", FormatG(law->E).c_str(),
               FormatG(law->A).c_str(), FormatG(law->alpha).c_str(), FormatG(law->B).c_str(),
               FormatG(law->beta).c_str());
  std::fprintf(out, "  %-26s %9s %9s %12s %9s %11s\n", "", "params", "tokens", "tokens/param",
               "loss", "FLOPs");
  PrintRow(out, "compute-optimal", p.optimal);
  PrintRow(out, "20 tokens/param (rule)", p.rule_of_20);
  std::fprintf(out,
               "  (the 20:1 row is the rule of thumb, not a fit: same FLOPs, loss from the law)\n");
  std::fprintf(out, "  %s GPU-hours on %s at MFU %s = %s at %s/GPU-hour",
               FormatFixed(p.gpu_hours, 0).c_str(), gpu->name.c_str(), FormatFixed(mfu, 2).c_str(),
               FormatUsd(p.usd).c_str(), FormatUsd(request.price_usd_per_gpu_hour).c_str());
  if (p.days) {
    std::fprintf(out, "; %s days on %s GPUs\n", FormatFixed(*p.days, 1).c_str(),
                 FormatPlain(*gpus, 1).c_str());
  } else {
    std::fprintf(out, "; give --gpus N for wall-clock days\n");
  }
  if (p.extrapolated) {
    std::fprintf(out,
                 "  note: %s parameters is outside the 7e7-1.6e10 range the published laws were "
                 "fitted on: an extrapolation\n",
                 FormatCount(p.optimal.params).c_str());
  }
  if (p.by_flops) {
    std::fprintf(out,
                 "inference-aware (Sardana et al. 2024), %s lifetime inference tokens, same loss "
                 "%s:\n",
                 FormatSci(*inference_tokens).c_str(), FormatFixed(p.optimal.loss, 4).c_str());
    PrintInference(out, "fewest FLOPs", *p.by_flops, p);
    PrintInference(out, "fewest dollars", *p.by_dollars, p);
    std::fprintf(out,
                 "    (dollars: training at MFU %s and %s/GPU-hour on %s; inference at MFU %s and "
                 "%s/GPU-hour on %s)\n",
                 FormatFixed(mfu, 2).c_str(), FormatUsd(request.price_usd_per_gpu_hour).c_str(),
                 gpu->name.c_str(), FormatFixed(inference_mfu, 2).c_str(),
                 FormatUsd(request.inference_price_usd_per_gpu_hour).c_str(),
                 inference_gpu->name.c_str());
  }

  if (as_json) {
    json doc = AllocationJson(p.optimal);
    doc["days"] = p.days ? json(*p.days) : json(nullptr);
    doc["usd"] = p.usd;
    doc["gpu_hours"] = p.gpu_hours;
    doc["gpu"] = gpu->name;
    doc["gpus"] = gpus ? json(*gpus) : json(nullptr);
    doc["mfu"] = mfu;
    doc["price_usd_per_gpu_hour"] = request.price_usd_per_gpu_hour;
    doc["fit"] = {
        {"name", law->name}, {"citation", law->citation}, {"E", law->E},      {"A", law->A},
        {"B", law->B},       {"alpha", law->alpha},       {"beta", law->beta}};
    doc["rule_of_20"] = AllocationJson(p.rule_of_20);
    doc["extrapolated"] = p.extrapolated;
    if (p.by_flops) {
      doc["inference_aware"] = {
          {"inference_tokens", *inference_tokens},
          {"inference_gpu", inference_gpu->name},
          {"inference_mfu", inference_mfu},
          {"inference_price_usd_per_gpu_hour", request.inference_price_usd_per_gpu_hour},
          {"by_flops", InferenceJson(*p.by_flops)},
          {"by_dollars", InferenceJson(*p.by_dollars)}};
    }
    EmitJson(doc);
  }
  return 0;
}

}  // namespace preflight::cli
