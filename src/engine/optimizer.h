#pragma once
// AdamW, the learning-rate schedule and gradient clipping, each written to match PyTorch 1.13
// (torch.optim.AdamW, torch.nn.utils.clip_grad_norm_) operation for operation, so that the
// fixture test can hold the engine to PyTorch's first ten steps.

#include <cstddef>
#include <cstdint>

namespace preflight::engine {

class Gpt;

struct AdamWConfig {
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;  // applied only to tensors with decay = true (matrices)
};

// One AdamW step on n floats. t is the 1-based step count (for bias correction).
//   p *= 1 - lr*wd;  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
//   p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps)
void AdamWUpdate(float* params, const float* grads, float* m, float* v, size_t n, float lr,
                 const AdamWConfig& config, int64_t t, bool decay);

// The global L2 norm of n gradients. Squares are summed in double over fixed blocks combined in
// order: the result depends on the values only, not on the thread count.
double GradNorm(const float* grads, size_t n);
// Scales the gradients by max_norm / (norm + 1e-6) when that is below 1 (PyTorch's rule).
// Returns the norm before clipping.
double ClipGradNorm(float* grads, size_t n, double max_norm);

// Linear warm-up over `warmup` steps to max_lr, then cosine decay to min_ratio * max_lr at
// `steps`. step is 0-based (the step about to be taken).
float LearningRate(int64_t step, int64_t steps, int64_t warmup, float max_lr, float min_ratio);

struct StepStats {
  float loss = 0;        // the batch's mean training loss before the update
  double grad_norm = 0;  // before clipping; 0 when the step stopped at a non-finite loss
};
// One optimizer step exactly as Train takes it: forward; if the loss is not finite, stop there
// (nothing changes); else zero the gradients, backward, clip to grad_clip, AdamW on every
// trainable tensor (or per-layer slice) with its own decay flag; frozen ones are untouched.
// adam_m/adam_v hold num_params floats; t is 1-based.
StepStats TrainStep(Gpt& model, float* adam_m, float* adam_v, const int* inputs, const int* targets,
                    float lr, int64_t t, const AdamWConfig& config, float grad_clip);

}  // namespace preflight::engine
