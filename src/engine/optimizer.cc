#include "engine/optimizer.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/model.h"

namespace preflight::engine {

void AdamWUpdate(float* params, const float* grads, float* m, float* v, size_t n, float lr,
                 const AdamWConfig& c, int64_t t, bool decay) {
  const float bias1 = static_cast<float>(1.0 - std::pow(static_cast<double>(c.beta1), t));
  const float bias2_sqrt =
      static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(c.beta2), t)));
  const float step_size = lr / bias1;
  const float shrink = decay ? 1.0f - lr * c.weight_decay : 1.0f;
  const int64_t count = static_cast<int64_t>(n);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; i++) {
    const float g = grads[i];
    const float mi = m[i] * c.beta1 + (1.0f - c.beta1) * g;
    const float vi = v[i] * c.beta2 + (1.0f - c.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    const float denom = std::sqrt(vi) / bias2_sqrt + c.eps;
    params[i] = params[i] * shrink - step_size * (mi / denom);
  }
}

double GradNorm(const float* grads, size_t n) {
  constexpr size_t kBlock = 1 << 14;
  const int64_t nblocks = static_cast<int64_t>((n + kBlock - 1) / kBlock);
  std::vector<double> partial(nblocks, 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < nblocks; b++) {
    const size_t i1 = std::min(n, static_cast<size_t>(b + 1) * kBlock);
    double s = 0.0;
    for (size_t i = static_cast<size_t>(b) * kBlock; i < i1; i++) {
      s += static_cast<double>(grads[i]) * grads[i];
    }
    partial[b] = s;
  }
  double total = 0.0;
  for (double s : partial) total += s;
  return std::sqrt(total);
}

double ClipGradNorm(float* grads, size_t n, double max_norm) {
  const double norm = GradNorm(grads, n);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    const float scale = static_cast<float>(coef);
    const int64_t count = static_cast<int64_t>(n);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++) grads[i] *= scale;
  }
  return norm;
}

float LearningRate(int64_t step, int64_t steps, int64_t warmup, float max_lr, float min_ratio) {
  if (step < warmup) return max_lr * static_cast<float>(step + 1) / static_cast<float>(warmup);
  const double min_lr = static_cast<double>(max_lr) * min_ratio;
  const int64_t span = std::max<int64_t>(1, steps - warmup);
  const double progress = std::min(1.0, static_cast<double>(step - warmup) / span);
  return static_cast<float>(min_lr + 0.5 * (max_lr - min_lr) * (1.0 + std::cos(M_PI * progress)));
}

StepStats TrainStep(Gpt& model, float* adam_m, float* adam_v, const int* inputs, const int* targets,
                    float lr, int64_t t, const AdamWConfig& config, float grad_clip) {
  StepStats stats;
  stats.loss = model.Forward(inputs, targets);
  if (!std::isfinite(stats.loss)) return stats;
  model.ZeroGrad();
  model.Backward();
  stats.grad_norm = ClipGradNorm(model.grads(), model.num_params(), grad_clip);
  if (!std::isfinite(stats.grad_norm)) return stats;
  // Frozen parts are not touched at all: no update, no weight decay, moments kept as they were.
  const int L = model.config().layers;
  const std::vector<ParamTensor>& tensors = model.tensors();
  for (int i = 0; i < kNumParamTensors; i++) {
    const ParamTensor& p = tensors[i];
    const ParamIndex index = static_cast<ParamIndex>(i);
    const int slices = p.per_layer ? L : 1;
    const size_t slice = p.size / static_cast<size_t>(slices);
    bool all = true;
    for (int l = 0; l < slices; l++) all = all && model.IsTrainable(index, l);
    if (all) {
      AdamWUpdate(model.params() + p.offset, model.grads() + p.offset, adam_m + p.offset,
                  adam_v + p.offset, p.size, lr, config, t, p.decay);
      continue;
    }
    for (int l = 0; l < slices; l++) {
      if (!model.IsTrainable(index, l)) continue;
      const size_t at = p.offset + static_cast<size_t>(l) * slice;
      AdamWUpdate(model.params() + at, model.grads() + at, adam_m + at, adam_v + at, slice, lr,
                  config, t, p.decay);
    }
  }
  return stats;
}

}  // namespace preflight::engine
