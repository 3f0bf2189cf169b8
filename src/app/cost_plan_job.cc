#include "app/cost_plan_job.h"

#include <fmt/format.h>

#include "base/format.h"

namespace preflight::app {
namespace {

using nlohmann::json;

// A named fit or a file, then any constant overridden (and the citation says so).
Result<cost::LossLaw> ResolveLaw(const PlanRequest& r) {
  PF_ASSIGN_OR_RETURN(cost::LossLaw law,
                      r.law_json.empty() ? cost::FindLaw(r.fit) : cost::ReadLawJson(r.law_json));
  std::string overrides;
  const struct {
    const char* name;
    const std::optional<double>& value;
    double* dest;
  } constants[] = {{"E", r.E, &law.E},
                   {"A", r.A, &law.A},
                   {"B", r.B, &law.B},
                   {"alpha", r.alpha, &law.alpha},
                   {"beta", r.beta, &law.beta}};
  for (const auto& c : constants) {
    if (!c.value) continue;
    *c.dest = *c.value;
    overrides += std::string(overrides.empty() ? "" : ", ") + c.name + " " + FormatG(*c.value);
  }
  if (!overrides.empty()) {
    law.name += "+overrides";
    law.citation += "; overridden on the command line: " + overrides;
  }
  return law;
}

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

std::string Row(const char* label, const cost::Allocation& a) {
  return fmt::format("  {:<26} {:>9} {:>9} {:>12} {:>9} {:>11}\n", label, FormatCount(a.params),
                     FormatCount(a.tokens), FormatFixed(a.tokens_per_param(), 1),
                     FormatFixed(a.loss, 4), FormatSci(a.flops));
}

std::string InferenceText(const char* label, const cost::InferenceAwareResult& r,
                          const cost::PlanResult& p) {
  const cost::Allocation& c = r.chosen;
  std::string out = fmt::format("  {}: {} params trained on {} tokens ({} tokens/param), loss {}\n",
                                label, FormatCount(c.params), FormatCount(c.tokens),
                                FormatFixed(c.tokens_per_param(), 1), FormatFixed(c.loss, 4));
  out += fmt::format(
      "    training {} + inference {} = {} FLOPs, against {} for the compute-optimal model: {}% "
      "fewer\n",
      FormatSci(c.flops), FormatSci(2 * c.params * r.inference_tokens),
      FormatSci(r.chosen_total_flops), FormatSci(r.reference_total_flops),
      FormatFixed(100 * r.flops_saving(), 1));
  double chosen_usd = c.flops * p.usd_per_training_flop +
                      2 * c.params * r.inference_tokens * p.usd_per_inference_flop;
  double reference_usd = r.reference.flops * p.usd_per_training_flop +
                         2 * r.reference.params * r.inference_tokens * p.usd_per_inference_flop;
  out +=
      fmt::format("    lifetime dollars {} against {}: {}% fewer\n", FormatUsd(chosen_usd),
                  FormatUsd(reference_usd), FormatFixed(100 * (1 - chosen_usd / reference_usd), 1));
  return out;
}

std::string InferenceAwareText(const PlanOutcome& o) {
  const cost::PlanResult& p = o.plan;
  std::string out = fmt::format(
      "inference-aware (Sardana et al. 2024), {} lifetime inference tokens, same loss {}:\n",
      FormatSci(*o.request.inference_tokens), FormatFixed(p.optimal.loss, 4));
  out += InferenceText("fewest FLOPs", *p.by_flops, p);
  out += InferenceText("fewest dollars", *p.by_dollars, p);
  out += fmt::format(
      "    (dollars: training at MFU {} and {}/GPU-hour on {}; inference at MFU {} and "
      "{}/GPU-hour on {})\n",
      FormatFixed(o.priced.mfu, 2), FormatUsd(o.priced.price_usd_per_gpu_hour), o.gpu.name,
      FormatFixed(o.priced.inference_mfu, 2), FormatUsd(o.priced.inference_price_usd_per_gpu_hour),
      o.inference_gpu.name);
  return out;
}

}  // namespace

Result<PlanOutcome> RunPlan(const PlanRequest& request) {
  PlanOutcome o;
  o.request = request;
  PF_ASSIGN_OR_RETURN(o.law, ResolveLaw(request));
  PF_ASSIGN_OR_RETURN(o.gpu, cost::FindGpu(request.gpu));
  PF_ASSIGN_OR_RETURN(
      o.inference_gpu,
      cost::FindGpu(request.inference_gpu.empty() ? o.gpu.name : request.inference_gpu));
  cost::PlanRequest& p = o.priced;
  p.flops = request.flops;
  p.budget_usd = request.budget_usd;
  p.params = request.params;
  p.law = o.law;
  p.gpu = o.gpu;
  p.price_usd_per_gpu_hour = request.price ? *request.price : o.gpu.price_usd_per_gpu_hour;
  p.mfu = request.mfu;
  p.gpus = request.gpus;
  p.inference_tokens = request.inference_tokens;
  p.inference_gpu = o.inference_gpu;
  p.inference_price_usd_per_gpu_hour =
      request.inference_price ? *request.inference_price : o.inference_gpu.price_usd_per_gpu_hour;
  p.inference_mfu = request.inference_mfu;
  PF_ASSIGN_OR_RETURN(o.plan, cost::MakePlan(p));
  return o;
}

json PlanToJson(const PlanOutcome& o) {
  const cost::PlanResult& p = o.plan;
  const cost::LossLaw& law = o.law;
  json doc = AllocationJson(p.optimal);
  doc["days"] = p.days ? json(*p.days) : json(nullptr);
  doc["usd"] = p.usd;
  doc["gpu_hours"] = p.gpu_hours;
  doc["gpu"] = o.gpu.name;
  doc["gpus"] = o.request.gpus ? json(*o.request.gpus) : json(nullptr);
  doc["mfu"] = o.priced.mfu;
  doc["price_usd_per_gpu_hour"] = o.priced.price_usd_per_gpu_hour;
  doc["fit"] = {{"name", law.name}, {"citation", law.citation}, {"E", law.E},      {"A", law.A},
                {"B", law.B},       {"alpha", law.alpha},       {"beta", law.beta}};
  doc["rule_of_20"] = AllocationJson(p.rule_of_20);
  doc["extrapolated"] = p.extrapolated;
  if (p.by_flops) {
    doc["inference_aware"] = {
        {"inference_tokens", *o.request.inference_tokens},
        {"inference_gpu", o.inference_gpu.name},
        {"inference_mfu", o.priced.inference_mfu},
        {"inference_price_usd_per_gpu_hour", o.priced.inference_price_usd_per_gpu_hour},
        {"by_flops", InferenceJson(*p.by_flops)},
        {"by_dollars", InferenceJson(*p.by_dollars)}};
  }
  return doc;
}

std::string PlanText(const PlanOutcome& o) {
  const cost::PlanResult& p = o.plan;
  const cost::LossLaw& law = o.law;
  std::string out = fmt::format("plan for {} FLOPs under the '{}' law: {}\n",
                                FormatSci(p.optimal.flops), law.name, law.citation);
  out += fmt::format("  L(N, D) = {} + {}/N^{} + {}/D^{}\n", FormatG(law.E), FormatG(law.A),
                     FormatG(law.alpha), FormatG(law.B), FormatG(law.beta));
  out += fmt::format("  {:<26} {:>9} {:>9} {:>12} {:>9} {:>11}\n", "", "params", "tokens",
                     "tokens/param", "loss", "FLOPs");
  out += Row("compute-optimal", p.optimal);
  out += Row("20 tokens/param (rule)", p.rule_of_20);
  out += "  (the 20:1 row is the rule of thumb, not a fit: same FLOPs, loss from the law)\n";
  out += fmt::format("  {} GPU-hours on {} at MFU {} = {} at {}/GPU-hour",
                     FormatFixed(p.gpu_hours, 0), o.gpu.name, FormatFixed(o.priced.mfu, 2),
                     FormatUsd(p.usd), FormatUsd(o.priced.price_usd_per_gpu_hour));
  if (p.days) {
    out += fmt::format("; {} days on {} GPUs\n", FormatFixed(*p.days, 1),
                       FormatPlain(*o.request.gpus, 1));
  } else {
    out += "; give --gpus N for wall-clock days\n";
  }
  if (p.extrapolated) {
    out += fmt::format(
        "  note: {} parameters is outside the 7e7-1.6e10 range the published laws were fitted "
        "on: an extrapolation\n",
        FormatCount(p.optimal.params));
  }
  if (p.by_flops) out += InferenceAwareText(o);
  return out;
}

}  // namespace preflight::app
