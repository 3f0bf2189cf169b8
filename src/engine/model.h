#pragma once
// The GPT: parameters, gradients and activations, each ONE allocation carved into named views
// (llm.c's discipline), and the forward and backward passes that chain the layers of
// kernels.h. Not thread-safe: one caller at a time per Gpt (the kernels themselves use OpenMP).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/schedule.h"

namespace preflight::engine {

// The parameter tensors, in the order they sit in the parameter allocation. Per-layer tensors
// hold all L layers stacked (layer-major).
enum ParamIndex {
  kWte,       // (V, C)      token embedding, also the output head (tied)
  kWpe,       // (T, C)      position embedding
  kLn1w,      // (L, C)
  kLn1b,      // (L, C)
  kQkvw,      // (L, 3C, C)  rows: q of every head, then k, then v
  kQkvb,      // (L, 3C)
  kAttprojw,  // (L, C, C)
  kAttprojb,  // (L, C)
  kLn2w,      // (L, C)
  kLn2b,      // (L, C)
  kFcw,       // (L, 4C, C)
  kFcb,       // (L, 4C)
  kFcprojw,   // (L, C, 4C)
  kFcprojb,   // (L, C)
  kLnfw,      // (C)
  kLnfb,      // (C)
  kNumParamTensors
};

struct ParamTensor {
  std::string name;    // "wte", "qkvw", ... (the fixture and doc/checkpoint-format.md use these)
  size_t offset = 0;   // into the parameter (and gradient, and Adam) allocation, in floats
  size_t size = 0;     // floats
  bool decay = false;  // a matrix: AdamW weight decay applies (biases and LayerNorm: no)
  bool per_layer = false;
};

// Whether tensor i (its slice of block l, for per-layer tensors; l ignored otherwise) learns
// under `trainable`. wte (the tied head) and the final LayerNorm always do.
bool TensorTrainable(ParamIndex i, int l, const Trainable& trainable);

class Gpt {
 public:
  // Allocates everything for `config` (ValidateModel must pass). Parameters start at zero.
  explicit Gpt(const ModelConfig& config);
  Gpt(const Gpt&) = delete;
  Gpt& operator=(const Gpt&) = delete;

  // GPT-2 initialisation: matrices and embeddings N(0, 0.02), the two residual projections
  // (attproj, fcproj) N(0, 0.02/sqrt(2L)), biases 0, LayerNorm weight 1 and bias 0. Draws
  // come from Rng(seed) in parameter order.
  void InitWeights(uint64_t seed);

  // inputs, targets (B,T) token ids in [0, V). targets may be null (logits only).
  // Returns the mean loss over the B*T positions (0 without targets); losses() keeps each.
  float Forward(const int* inputs, const int* targets);
  // Sets every gradient to zero.
  void ZeroGrad();
  // Accumulates d(mean loss)/d(params) into grads(). Needs the last Forward to have had
  // targets; consumes logits() (they become d loss / d logits). Frozen parts (SetTrainable)
  // get no gradient (theirs stay as they were: zero after ZeroGrad), and the backward stops
  // at the lowest block that needs it (schedule.h, PlanBackward).
  void Backward();
  // Which parts learn from now on (default: all). `trainable` has one entry per block.
  void SetTrainable(const Trainable& trainable);
  const Trainable& trainable() const { return trainable_; }
  // Whether the tensor's slice of layer l (per-layer tensors) or the tensor (l ignored) learns.
  bool IsTrainable(ParamIndex i, int l) const { return TensorTrainable(i, l, trainable_); }

  const ModelConfig& config() const { return config_; }
  size_t num_params() const { return num_params_; }
  float* params() { return params_.get(); }
  const float* params() const { return params_.get(); }
  float* grads() { return grads_.get(); }
  const float* grads() const { return grads_.get(); }
  const std::vector<ParamTensor>& tensors() const { return tensors_; }
  float* param(ParamIndex i) { return params_.get() + tensors_[i].offset; }
  float* grad(ParamIndex i) { return grads_.get() + tensors_[i].offset; }
  const float* logits() const { return acts_.logits; }  // (B, T, V)
  const float* losses() const { return acts_.losses; }  // (B, T)
  // The last block's output of the last Forward, the input of the final LayerNorm. (B, T, C)
  const float* final_hidden() const;
  // Floats held for activations and backward scratch (for the memory report).
  size_t activation_floats() const { return num_acts_; }

 private:
  struct Activations {
    float* encoded;    // (B, T, C)     input of block 0
    float* ln1;        // (L, B, T, C)
    float* ln1_mean;   // (L, B, T)
    float* ln1_rstd;   // (L, B, T)
    float* qkv;        // (L, B, T, 3C)
    float* att_lse;    // (L, B, NH, T)  log-sum-exp of each attention row (attention.cc)
    float* atty;       // (L, B, T, C)
    float* residual2;  // (L, B, T, C)  block input + attention branch
    float* ln2;        // (L, B, T, C)
    float* ln2_mean;   // (L, B, T)
    float* ln2_rstd;   // (L, B, T)
    float* fch;        // (L, B, T, 4C)
    float* fch_gelu;   // (L, B, T, 4C)
    float* residual3;  // (L, B, T, C)  block output
    float* lnf;        // (B, T, C)
    float* lnf_mean;   // (B, T)
    float* lnf_rstd;   // (B, T)
    float* logits;     // (B, T, V)
    float* losses;     // (B, T)
    float* loss_lse;   // (B, T)  log-sum-exp of each row of logits (for the loss's backward)
    // Backward scratch, reused by every block (gradients of activations are not kept).
    float* dres;  // (B, T, C)  d loss / d residual stream at the current depth
    float* dbtc;  // (B, T, C)
    float* dqkv;  // (B, T, 3C)
    float* dfch;  // (B, T, 4C)
  };

  ModelConfig config_;
  std::vector<ParamTensor> tensors_;
  size_t num_params_ = 0, num_acts_ = 0;
  // Zeroed, 2 MiB-aligned allocations that ask for transparent huge pages (model.cc).
  struct FreeFloats {
    void operator()(float* p) const;
  };
  using FloatBuffer = std::unique_ptr<float[], FreeFloats>;
  static FloatBuffer AllocateFloats(size_t n);
  FloatBuffer params_, grads_, act_memory_;
  Activations acts_{};
  std::vector<int> inputs_, targets_;  // (B, T) of the last Forward
  bool have_targets_ = false;
  Trainable trainable_;
  BackwardPlan plan_;
};

}  // namespace preflight::engine
