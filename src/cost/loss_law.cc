#include "cost/loss_law.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/file.h"
#include "base/number_format.h"

namespace preflight::cost {

double LossLaw::Loss(double params, double tokens) const {
  return E + A / std::pow(params, alpha) + B / std::pow(tokens, beta);
}

LossLaw EpochFit() {
  return {"epoch",
          "Besiroglu, Erdil, Barnett, You 2024, \"Chinchilla Scaling: A replication attempt\" "
          "(Epoch AI), the refit of Hoffmann et al.'s approach 3",
          1.8172,
          482.01,
          2085.43,
          0.3478,
          0.3658};
}

LossLaw ChinchillaFit() {
  return {"chinchilla",
          "Hoffmann et al. 2022, \"Training Compute-Optimal Large Language Models\", approach 3 "
          "as printed (E 1.69, A 406.4, B 410.7, alpha 0.34, beta 0.28)",
          1.69,
          406.4,
          410.7,
          0.34,
          0.28};
}

Result<LossLaw> FindLaw(std::string_view name) {
  if (name == "epoch") return EpochFit();
  if (name == "chinchilla" || name == "hoffmann") return ChinchillaFit();
  return Status::NotFound("unknown fit '" + std::string(name) +
                          "'; known fits: epoch (default), chinchilla");
}

Status ValidateLaw(const LossLaw& law) {
  const struct {
    const char* name;
    double value;
  } constants[] = {
      {"E", law.E}, {"A", law.A}, {"B", law.B}, {"alpha", law.alpha}, {"beta", law.beta}};
  for (const auto& [name, value] : constants) {
    if (!std::isfinite(value) || value <= 0) {
      return Status::InvalidArgument("loss law '" + law.name + "': " + name +
                                     " must be a positive number (got " + FormatSci(value, 6) +
                                     ")");
    }
  }
  return Status::Ok();
}

Result<LossLaw> ReadLawJson(const std::string& path) {
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::InvalidArgument(path + ": not a JSON object");
  }
  const nlohmann::json& law_json = doc.contains("law") && doc["law"].is_object() ? doc["law"] : doc;
  LossLaw law;
  law.name = "file";
  law.citation = path;
  const struct {
    const char* key;
    double* dest;
  } fields[] = {
      {"E", &law.E}, {"A", &law.A}, {"B", &law.B}, {"alpha", &law.alpha}, {"beta", &law.beta}};
  for (const auto& f : fields) {
    if (!law_json.contains(f.key) || !law_json[f.key].is_number()) {
      return Status::InvalidArgument(path + ": no number '" + f.key +
                                     "' (expected E, A, B, alpha, beta, as `preflight fit "
                                     "--json` writes under \"law\")");
    }
    *f.dest = law_json[f.key].get<double>();
  }
  PF_RETURN_IF_ERROR(ValidateLaw(law));
  return law;
}

namespace {

// G = (alpha A / (beta B))^(1/(alpha+beta)); N* = G (C/6)^(beta/(alpha+beta)).
double OptimalScale(const LossLaw& law) {
  return std::pow(law.alpha * law.A / (law.beta * law.B), 1 / (law.alpha + law.beta));
}

Allocation Make(const LossLaw& law, double params, double tokens) {
  return {params, tokens, TrainingFlops(params, tokens), law.Loss(params, tokens)};
}

}  // namespace

Allocation ComputeOptimal(const LossLaw& law, double flops) {
  double params = OptimalScale(law) * std::pow(flops / 6, law.beta / (law.alpha + law.beta));
  return Make(law, params, flops / 6 / params);
}

Allocation ComputeOptimalForParams(const LossLaw& law, double params) {
  double c_over_6 = std::pow(params / OptimalScale(law), (law.alpha + law.beta) / law.beta);
  return Make(law, params, c_over_6 / params);
}

Allocation TwentyTokensPerParam(const LossLaw& law, double flops) {
  double params = std::sqrt(flops / (6 * 20));
  return Make(law, params, 20 * params);
}

Result<double> TokensForLoss(const LossLaw& law, double params, double loss) {
  double room = loss - law.E - law.A / std::pow(params, law.alpha);
  if (!(room > 0)) {
    return Status::InvalidArgument("a " + FormatCount(params) +
                                   "-parameter model cannot reach loss " + FormatFixed(loss, 4) +
                                   " under the '" + law.name + "' law with any amount of data");
  }
  return std::pow(law.B / room, 1 / law.beta);
}

Result<InferenceAwareResult> InferenceAware(const LossLaw& law, const Allocation& reference,
                                            double inference_tokens, double inference_weight) {
  PF_RETURN_IF_ERROR(ValidateLaw(law));
  if (!std::isfinite(inference_tokens) || inference_tokens < 0) {
    return Status::InvalidArgument("--inference-tokens must be a number >= 0 (got " +
                                   FormatSci(inference_tokens) + ")");
  }
  if (!std::isfinite(inference_weight) || inference_weight <= 0) {
    return Status::InvalidArgument("the inference cost weight must be positive");
  }
  const double loss = reference.loss;
  if (!(loss > law.E)) {
    return Status::InvalidArgument("the reference loss is not above the law's floor E");
  }
  const double t = inference_tokens, w = inference_weight;
  // Objective over x = ln N. Below N_min the loss is out of reach; there D(N) -> infinity.
  auto objective = [&](double x) {
    double n = std::exp(x);
    double room = loss - law.E - law.A / std::pow(n, law.alpha);
    if (!(room > 0)) return std::numeric_limits<double>::infinity();
    double d = std::pow(law.B / room, 1 / law.beta);
    return 6 * n * d + w * 2 * n * t;
  };
  const double x_min = std::log(std::pow(law.A / (loss - law.E), 1 / law.alpha));
  // The training term alone is smallest at the compute-optimal N for this loss; the inference
  // term only pushes the optimum lower. Search up to well past both.
  const double x_hi = std::max(std::log(reference.params), x_min) + std::log(100.0);
  const double x_lo = x_min + 1e-9;

  constexpr int kScan = 4000;
  int best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  std::vector<double> xs(kScan + 1);
  for (int i = 0; i <= kScan; ++i) {
    xs[i] = x_lo + (x_hi - x_lo) * i / kScan;
    double v = objective(xs[i]);
    if (v < best_value) best_value = v, best = i;
  }
  // Golden-section search inside the scan cell either side of the best point.
  double a = xs[std::max(best - 1, 0)], b = xs[std::min(best + 1, kScan)];
  const double inv_phi = (std::sqrt(5.0) - 1) / 2;
  double c = b - inv_phi * (b - a), d = a + inv_phi * (b - a);
  double fc = objective(c), fd = objective(d);
  while (b - a > 1e-10) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - inv_phi * (b - a), fc = objective(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + inv_phi * (b - a), fd = objective(d);
    }
  }
  double n = std::exp((a + b) / 2);
  PF_ASSIGN_OR_RETURN(double tokens, TokensForLoss(law, n, loss));

  InferenceAwareResult r;
  r.reference = reference;
  r.chosen = Make(law, n, tokens);
  r.inference_tokens = t;
  r.inference_weight = w;
  r.reference_total_flops = reference.flops + 2 * reference.params * t;
  r.chosen_total_flops = r.chosen.flops + 2 * n * t;
  r.reference_objective = reference.flops + w * 2 * reference.params * t;
  r.chosen_objective = r.chosen.flops + w * 2 * n * t;
  return r;
}

}  // namespace preflight::cost
