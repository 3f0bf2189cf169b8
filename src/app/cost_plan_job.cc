#include "app/cost_plan_job.h"

#include <fmt/format.h>

#include "base/number_format.h"

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

Result<std::optional<cost::ServingLoad>> ServingLoadOf(const PlanRequest& r) {
  const bool described = r.prefill_tokens || r.decode_tokens || r.prefill_mfu || r.decode_mfu;
  if (!r.requests) {
    if (!described) return std::optional<cost::ServingLoad>();
    return Status::InvalidArgument(
        "--prefill-tokens, --decode-tokens, --prefill-mfu and --decode-mfu describe a serving "
        "load: give --requests N too");
  }
  cost::ServingLoad load;
  load.requests = *r.requests;
  load.prefill_tokens = r.prefill_tokens.value_or(0);
  load.decode_tokens = r.decode_tokens.value_or(0);
  load.prefill_mfu = r.prefill_mfu.value_or(load.prefill_mfu);
  load.decode_mfu = r.decode_mfu.value_or(load.decode_mfu);
  return std::optional<cost::ServingLoad>(load);
}

json AllocationJson(const cost::Allocation& a) {
  return {{"params", a.params},
          {"tokens", a.tokens},
          {"tokens_per_param", a.tokens_per_param()},
          {"loss", a.loss},
          {"flops", a.flops}};
}

// Training plus inference dollars of `a` serving `r`'s inference tokens, at the plan's prices.
double LifetimeUsd(const cost::PlanResult& p, const cost::InferenceAwareResult& r,
                   const cost::Allocation& a) {
  return a.flops * p.usd_per_training_flop +
         cost::InferenceFlops(a.params, r.inference_tokens) * p.usd_per_inference_flop;
}

json InferenceJson(const cost::PlanResult& p, const cost::InferenceAwareResult& r) {
  return {{"chosen", AllocationJson(r.chosen)},
          {"params_share", r.chosen.params / r.reference.params},
          {"tokens_share", r.chosen.tokens / r.reference.tokens},
          {"inference_weight", r.inference_weight},
          {"reference_total_flops", r.reference_total_flops},
          {"chosen_total_flops", r.chosen_total_flops},
          {"flops_saving", r.flops_saving()},
          {"objective_saving", r.saving()},
          {"chosen_lifetime_usd", LifetimeUsd(p, r, r.chosen)},
          {"reference_lifetime_usd", LifetimeUsd(p, r, r.reference)}};
}

json PhaseJson(const cost::InferencePhase& phase) {
  return {{"tokens", phase.tokens},
          {"flops", phase.flops},
          {"gpu_hours", phase.gpu_hours},
          {"usd", phase.usd}};
}

json ServingJson(const cost::ServingCost& s) {
  return {{"prefill", PhaseJson(s.prefill)}, {"decode", PhaseJson(s.decode)}};
}

json InferenceAwareJson(const PlanOutcome& o) {
  const cost::PlanResult& p = o.plan;
  json out = {{"inference_tokens", p.inference_tokens},
              {"inference_gpu", o.inference_gpu.name},
              {"inference_mfu", o.priced.inference_mfu},
              {"inference_price_usd_per_gpu_hour", o.priced.inference_price_usd_per_gpu_hour},
              {"by_flops", InferenceJson(p, *p.by_flops)},
              {"by_dollars", InferenceJson(p, *p.by_dollars)}};
  if (o.request.inference_dtype || o.priced.serving) {
    out["inference_dtype"] = cost::PeakDtypeName(o.priced.inference_dtype);
    out["inference_peak_ops_per_gpu"] = p.inference_peak;
  }
  if (const auto& load = o.priced.serving) {
    out.erase("inference_mfu");  // each phase has its own
    out["serving"] = {{"requests", load->requests},
                      {"prefill_tokens_per_request", load->prefill_tokens},
                      {"decode_tokens_per_request", load->decode_tokens},
                      {"prefill_mfu", load->prefill_mfu},
                      {"decode_mfu", load->decode_mfu},
                      {"reference", ServingJson(*p.serving_reference)},
                      {"by_flops", ServingJson(*p.serving_by_flops)},
                      {"by_dollars", ServingJson(*p.serving_by_dollars)}};
  }
  return out;
}

std::string Row(const char* label, const cost::Allocation& a) {
  return fmt::format("  {:<26} {:>9} {:>9} {:>12} {:>9} {:>11}\n", label, FormatCount(a.params),
                     FormatCount(a.tokens), FormatFixed(a.tokens_per_param(), 1),
                     FormatFixed(a.loss, 4), FormatSci(a.flops));
}

std::string PhaseText(const char* name, const cost::InferencePhase& phase) {
  return fmt::format("{}: {} tokens x 2N = {} FLOPs, {} GPU-hours, {}", name,
                     FormatSci(phase.tokens), FormatSci(phase.flops),
                     FormatFixed(phase.gpu_hours, 0), FormatUsd(phase.usd));
}

std::string ServingText(const char* indent, const cost::ServingCost& s) {
  return fmt::format("{}{}\n{}{}\n", indent, PhaseText("prefill", s.prefill), indent,
                     PhaseText("decode ", s.decode));
}

std::string InferenceText(const char* label, const cost::InferenceAwareResult& r,
                          const PlanOutcome& o, const std::optional<cost::ServingCost>& serving) {
  const cost::PlanResult& p = o.plan;
  const cost::Allocation& c = r.chosen;
  std::string out = fmt::format("  {}: {} params trained on {} tokens ({} tokens/param), loss {}\n",
                                label, FormatCount(c.params), FormatCount(c.tokens),
                                FormatFixed(c.tokens_per_param(), 1), FormatFixed(c.loss, 4));
  const char* reference = p.fixed_point ? "given" : "compute-optimal";
  out += fmt::format("    {}% of the parameters and {}% of the tokens of the {} model\n",
                     FormatFixed(100 * c.params / r.reference.params, 2),
                     FormatFixed(100 * c.tokens / r.reference.tokens, 2), reference);
  out += fmt::format(
      "    training {} + inference {} = {} FLOPs, against {} for the {} model: {}% fewer\n",
      FormatSci(c.flops), FormatSci(cost::InferenceFlops(c.params, r.inference_tokens)),
      FormatSci(r.chosen_total_flops), FormatSci(r.reference_total_flops), reference,
      FormatFixed(100 * r.flops_saving(), 1));
  const double chosen_usd = LifetimeUsd(p, r, c), reference_usd = LifetimeUsd(p, r, r.reference);
  out +=
      fmt::format("    lifetime dollars {} against {}: {}% fewer\n", FormatUsd(chosen_usd),
                  FormatUsd(reference_usd), FormatFixed(100 * (1 - chosen_usd / reference_usd), 1));
  if (serving) out += ServingText("    ", *serving);
  return out;
}

// "MFU 0.20" as before; "MFU 0.20 of the fp8 peak" when a dtype was asked for; "prefill MFU
// 0.50 and decode MFU 0.10 of the bf16 peak" with a serving load.
std::string InferenceUtilisation(const PlanOutcome& o) {
  const std::string dtype = cost::PeakDtypeName(o.priced.inference_dtype);
  if (const auto& load = o.priced.serving) {
    return fmt::format("prefill MFU {} and decode MFU {} of the {} peak",
                       FormatFixed(load->prefill_mfu, 2), FormatFixed(load->decode_mfu, 2), dtype);
  }
  std::string out = "MFU " + FormatFixed(o.priced.inference_mfu, 2);
  return o.request.inference_dtype ? out + " of the " + dtype + " peak" : out;
}

std::string InferenceAwareText(const PlanOutcome& o) {
  const cost::PlanResult& p = o.plan;
  std::string out = fmt::format(
      "inference-aware (Sardana et al. 2024), {} lifetime inference tokens, same loss {}:\n",
      FormatSci(p.inference_tokens), FormatFixed(p.optimal.loss, 4));
  if (const auto& load = o.priced.serving) {
    out += fmt::format(
        "  serving load: {} requests x ({} prefill + {} decode tokens), 2N FLOPs per token at "
        "{} ({} FLOP/s dense on {})\n",
        FormatSci(load->requests), FormatPlain(load->prefill_tokens),
        FormatPlain(load->decode_tokens), InferenceUtilisation(o), FormatSci(p.inference_peak),
        o.inference_gpu.name);
    out += fmt::format("  the {} model serving it:\n", p.fixed_point ? "given" : "compute-optimal");
    out += ServingText("    ", *p.serving_reference);
  }
  out += InferenceText("fewest FLOPs", *p.by_flops, o, p.serving_by_flops);
  out += InferenceText("fewest dollars", *p.by_dollars, o, p.serving_by_dollars);
  out += fmt::format(
      "    (dollars: training at MFU {} and {}/GPU-hour on {}; inference at {} and {}/GPU-hour on "
      "{})\n",
      FormatFixed(o.priced.mfu, 2), FormatUsd(o.priced.price_usd_per_gpu_hour), o.gpu.name,
      InferenceUtilisation(o), FormatUsd(o.priced.inference_price_usd_per_gpu_hour),
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
  if (request.inference_dtype) {
    PF_ASSIGN_OR_RETURN(p.inference_dtype,
                        cost::ParsePeakDtype(*request.inference_dtype, "--inference-dtype"));
  }
  PF_ASSIGN_OR_RETURN(p.serving, ServingLoadOf(request));
  p.flops = request.flops;
  p.budget_usd = request.budget_usd;
  p.params = request.params;
  p.tokens = request.tokens;
  p.loss = request.loss;
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
  if (!request.from_ladder.empty()) {
    PF_ASSIGN_OR_RETURN(o.keep, cost::ReadLadderKeep(request.from_ladder));
    if (!p.flops && !p.budget_usd && !p.params && !p.loss) p.flops = o.keep->flops;
  }
  if (request.pool_tokens && !(*request.pool_tokens > 0)) {
    return Status::InvalidArgument("--pool-tokens must be a positive number of tokens");
  }
  PF_ASSIGN_OR_RETURN(o.plan, cost::MakePlan(p));
  if (o.keep && request.pool_tokens) {
    o.kept = cost::KeptDataOf(*o.keep, o.plan.optimal.tokens, *request.pool_tokens);
  }
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
  if (p.fixed_point) {
    doc["fixed_point"] = true;
    doc["compute_optimal"] = AllocationJson(*p.compute_optimal);
  }
  if (o.request.loss) doc["target_loss"] = *o.request.loss;
  if (p.by_flops) doc["inference_aware"] = InferenceAwareJson(o);
  if (o.keep) doc["keep"] = cost::LadderKeepJson(*o.keep, o.kept, o.request.pool_tokens);
  return doc;
}

std::string PlanText(const PlanOutcome& o) {
  const cost::PlanResult& p = o.plan;
  const cost::LossLaw& law = o.law;
  std::string out = o.request.loss
                        ? fmt::format("plan for loss {} ({} FLOPs) under the '{}' law: {}\n",
                                      FormatPlain(*o.request.loss, 4), FormatSci(p.optimal.flops),
                                      law.name, law.citation)
                        : fmt::format("plan for {} FLOPs under the '{}' law: {}\n",
                                      FormatSci(p.optimal.flops), law.name, law.citation);
  out += fmt::format("  L(N, D) = {} + {}/N^{} + {}/D^{}\n", FormatG(law.E), FormatG(law.A),
                     FormatG(law.alpha), FormatG(law.B), FormatG(law.beta));
  out += fmt::format("  {:<26} {:>9} {:>9} {:>12} {:>9} {:>11}\n", "", "params", "tokens",
                     "tokens/param", "loss", "FLOPs");
  if (p.fixed_point) {
    out += Row("given (--params, --tokens)", p.optimal);
    out += Row("optimal at the same FLOPs", *p.compute_optimal);
  } else {
    out += Row("compute-optimal", p.optimal);
  }
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
  if (o.keep) out += cost::LadderKeepText(*o.keep, o.kept);
  return out;
}

}  // namespace preflight::app
