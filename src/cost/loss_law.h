#pragma once
// Loss laws L(N, D) = E + A / N^alpha + B / D^beta (N parameters, D training tokens) and what
// follows from them under the training-compute approximation C = 6 N D:
//   - the compute-optimal split of a budget C (closed form),
//   - the plain 20-tokens-per-parameter rule, for comparison,
//   - inference-aware sizing (Sardana et al. 2024, "Beyond Chinchilla-Optimal"): the model that
//     reaches the same loss as a reference model with the fewest lifetime FLOPs
//     6 N D + 2 N T (T inference tokens), solved numerically; with a weight on the inference
//     term it minimises dollars instead when inference runs at another price or utilisation.
// Pure functions, thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight::cost {

struct LossLaw {
  std::string name;
  std::string citation;
  double E = 0, A = 0, B = 0, alpha = 0, beta = 0;

  double Loss(double params, double tokens) const;
};

// Besiroglu et al. 2024 (Epoch AI), "Chinchilla Scaling: A replication attempt": the default.
LossLaw EpochFit();
// Hoffmann et al. 2022, approach 3, the constants as printed in the paper.
LossLaw ChinchillaFit();
// "epoch" or "chinchilla"; NotFound lists the names.
Result<LossLaw> FindLaw(std::string_view name);
// A law written by `preflight fit --json` (constants under "law") or a plain object with keys
// E, A, B, alpha, beta. NotFound for a missing file, InvalidArgument for a bad constant.
Result<LossLaw> ReadLawJson(const std::string& path);
// InvalidArgument unless every constant is a positive finite number.
Status ValidateLaw(const LossLaw& law);

// Training compute in the usual approximation C = 6 N D (forward 2ND, backward 4ND; attention
// and embeddings left out, as in the published laws).
inline double TrainingFlops(double params, double tokens) { return 6 * params * tokens; }
// Inference compute: a forward pass costs about 2 N FLOPs per token (prefill and decode alike;
// attention over the context left out, as above).
inline double InferenceFlops(double params, double tokens) { return 2 * params * tokens; }

struct Allocation {
  double params = 0;
  double tokens = 0;
  double flops = 0;  // TrainingFlops(params, tokens)
  double loss = 0;
  double tokens_per_param() const { return tokens / params; }
};

// Minimises L(N, D) subject to 6 N D = flops:
//   N* = G (C/6)^(beta/(alpha+beta)),  D* = (C/6) / N*,  G = (alpha A / (beta B))^(1/(alpha+beta)).
Allocation ComputeOptimal(const LossLaw& law, double flops);
// The compute-optimal allocation whose model has `params` parameters (inverts the above).
Allocation ComputeOptimalForParams(const LossLaw& law, double params);
// D = 20 N with 6 N D = flops, its loss under `law`.
Allocation TwentyTokensPerParam(const LossLaw& law, double flops);

// The tokens a `params` model needs to reach `loss`: D = (B / (loss - E - A/N^alpha))^(1/beta).
// InvalidArgument when the model is too small to reach that loss with any amount of data.
Result<double> TokensForLoss(const LossLaw& law, double params, double loss);

struct InferenceAwareResult {
  Allocation reference;  // the model it replaces (usually compute-optimal)
  Allocation chosen;     // same loss, fewest lifetime FLOPs (or dollars)
  double inference_tokens = 0;
  double inference_weight = 1;       // cost of an inference FLOP in training-FLOP units
  double reference_total_flops = 0;  // 6 N D + 2 N T of the reference
  double chosen_total_flops = 0;
  double reference_objective = 0;  // 6 N D + w 2 N T (FLOPs when w = 1)
  double chosen_objective = 0;
  double saving() const { return 1 - chosen_objective / reference_objective; }
  double flops_saving() const { return 1 - chosen_total_flops / reference_total_flops; }
};

// Minimises 6 N D(N) + w * 2 N T over N, where D(N) keeps L(N, D) = reference.loss. The
// minimiser lies between the smallest model that can reach the loss at all and the reference
// (where the training term is already minimal, if the reference is compute-optimal; a larger
// bracket is searched otherwise): a log-spaced scan finds its basin and golden-section search
// refines it to a relative 1e-9 in N. InvalidArgument for T < 0, w <= 0 or a reference whose
// loss is at or below E.
Result<InferenceAwareResult> InferenceAware(const LossLaw& law, const Allocation& reference,
                                            double inference_tokens, double inference_weight = 1);

}  // namespace preflight::cost
