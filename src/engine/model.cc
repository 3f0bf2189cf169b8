#include "engine/model.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/kernels.h"
#include "engine/xoshiro.h"

namespace preflight::engine {

Gpt::Gpt(const ModelConfig& config) : config_(config) {
  const size_t L = config.layers, C = config.d_model, T = config.context, V = config.vocab;
  const size_t B = config.batch, NH = config.heads;
  struct Spec {
    const char* name;
    size_t size;
    bool decay, per_layer;
  };
  const Spec specs[kNumParamTensors] = {
      {"wte", V * C, true, false},
      {"wpe", T * C, true, false},
      {"ln1w", L * C, false, true},
      {"ln1b", L * C, false, true},
      {"qkvw", L * 3 * C * C, true, true},
      {"qkvb", L * 3 * C, false, true},
      {"attprojw", L * C * C, true, true},
      {"attprojb", L * C, false, true},
      {"ln2w", L * C, false, true},
      {"ln2b", L * C, false, true},
      {"fcw", L * 4 * C * C, true, true},
      {"fcb", L * 4 * C, false, true},
      {"fcprojw", L * C * 4 * C, true, true},
      {"fcprojb", L * C, false, true},
      {"lnfw", C, false, false},
      {"lnfb", C, false, false},
  };
  for (const Spec& s : specs) {
    tensors_.push_back({s.name, num_params_, s.size, s.decay, s.per_layer});
    num_params_ += s.size;
  }
  params_ = AllocateFloats(num_params_);  // zeros
  grads_ = AllocateFloats(num_params_);

  const size_t BT = B * T;
  const size_t sizes[] = {
      BT * C,  // encoded
      L * BT * C,
      L * BT,
      L * BT,          // ln1, mean, rstd
      L * BT * 3 * C,  // qkv
      L * B * NH * T,  // att_lse
      L * BT * C,
      L * BT * C,  // atty, residual2
      L * BT * C,
      L * BT,
      L * BT,  // ln2, mean, rstd
      L * BT * 4 * C,
      L * BT * 4 * C,  // fch, fch_gelu
      L * BT * C,      // residual3
      BT * C,
      BT,
      BT,  // lnf, mean, rstd
      BT * V,
      BT,
      BT,  // logits, losses, loss_lse
      BT * C,
      BT * C,
      BT * 3 * C,
      BT * 4 * C,  // dres, dbtc, dqkv, dfch
  };
  float** views[] = {
      &acts_.encoded,  &acts_.ln1,      &acts_.ln1_mean,  &acts_.ln1_rstd,  &acts_.qkv,
      &acts_.att_lse,  &acts_.atty,     &acts_.residual2, &acts_.ln2,       &acts_.ln2_mean,
      &acts_.ln2_rstd, &acts_.fch,      &acts_.fch_gelu,  &acts_.residual3, &acts_.lnf,
      &acts_.lnf_mean, &acts_.lnf_rstd, &acts_.logits,    &acts_.losses,    &acts_.loss_lse,
      &acts_.dres,     &acts_.dbtc,     &acts_.dqkv,      &acts_.dfch,
  };
  static_assert(sizeof(sizes) / sizeof(sizes[0]) == sizeof(views) / sizeof(views[0]));
  num_acts_ = 0;
  for (size_t s : sizes) num_acts_ += s;
  act_memory_ = AllocateFloats(num_acts_);
  float* p = act_memory_.get();
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    *views[i] = p;
    p += sizes[i];
  }
  inputs_.assign(BT, 0);
  targets_.assign(BT, 0);
  SetTrainable(Trainable::All(config.layers));
}

// The activations (hundreds of MB) are streamed through every step; on 2 MiB pages the GEMMs'
// packing and the elementwise sweeps take a TLB miss per 2 MiB instead of per 4 KiB, and the
// first touch faults 512 times less. madvise is a request: without THP the pages stay small.
Gpt::FloatBuffer Gpt::AllocateFloats(size_t n) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t bytes =
      std::max<size_t>(1, (n * sizeof(float) + kHugePage - 1) / kHugePage) * kHugePage;
  void* p = std::aligned_alloc(kHugePage, bytes);
  if (p == nullptr) throw std::bad_alloc();
  madvise(p, bytes, MADV_HUGEPAGE);
  std::memset(p, 0, bytes);
  return FloatBuffer(static_cast<float*>(p));
}

void Gpt::FreeFloats::operator()(float* p) const { std::free(p); }

void Gpt::SetTrainable(const Trainable& trainable) {
  trainable_ = trainable;
  if (trainable_.attn.empty()) trainable_.attn.assign(config_.layers, 1);
  if (trainable_.mlp.empty()) trainable_.mlp.assign(config_.layers, 1);
  plan_ = PlanBackward(config_.layers, trainable_);
}

bool TensorTrainable(ParamIndex i, int l, const Trainable& t) {
  switch (i) {
    case kWte:  // the tied head always learns
    case kLnfw:
    case kLnfb:
      return true;
    case kWpe:
      return t.embeddings;
    case kLn1w:
    case kLn1b:
    case kQkvw:
    case kQkvb:
    case kAttprojw:
    case kAttprojb:
      return t.AttnTrainable(l);
    default:
      return t.MlpTrainable(l);
  }
}

const float* Gpt::final_hidden() const {
  return acts_.residual3 + static_cast<size_t>(config_.layers - 1) * config_.batch *
                               config_.context * config_.d_model;
}

void Gpt::InitWeights(uint64_t seed) {
  Rng rng(seed);
  const double residual_std = 0.02 / std::sqrt(2.0 * config_.layers);
  for (int i = 0; i < kNumParamTensors; i++) {
    const ParamTensor& t = tensors_[i];
    float* w = params_.get() + t.offset;
    if (i == kLn1w || i == kLn2w || i == kLnfw) {
      for (size_t j = 0; j < t.size; j++) w[j] = 1.0f;
    } else if (!t.decay) {
      for (size_t j = 0; j < t.size; j++) w[j] = 0.0f;
    } else {
      const double std = (i == kAttprojw || i == kFcprojw) ? residual_std : 0.02;
      for (size_t j = 0; j < t.size; j++) w[j] = static_cast<float>(rng.Normal() * std);
    }
  }
}

float Gpt::Forward(const int* inputs, const int* targets) {
  const int B = config_.batch, T = config_.context, C = config_.d_model, L = config_.layers;
  const int NH = config_.heads, V = config_.vocab, BT = B * T;
  const size_t btc = static_cast<size_t>(BT) * C;
  std::memcpy(inputs_.data(), inputs, sizeof(int) * BT);
  have_targets_ = targets != nullptr;
  if (have_targets_) std::memcpy(targets_.data(), targets, sizeof(int) * BT);

  Activations& a = acts_;
  EncoderForward(a.encoded, inputs_.data(), param(kWte), param(kWpe), B, T, C);
  for (int l = 0; l < L; l++) {
    const float* residual = l == 0 ? a.encoded : a.residual3 + (l - 1) * btc;
    float* ln1 = a.ln1 + l * btc;
    float* ln1_mean = a.ln1_mean + static_cast<size_t>(l) * BT;
    float* ln1_rstd = a.ln1_rstd + static_cast<size_t>(l) * BT;
    float* qkv = a.qkv + l * 3 * btc;
    float* lse = a.att_lse + static_cast<size_t>(l) * B * NH * T;
    float* atty = a.atty + l * btc;
    float* residual2 = a.residual2 + l * btc;
    float* ln2 = a.ln2 + l * btc;
    float* ln2_mean = a.ln2_mean + static_cast<size_t>(l) * BT;
    float* ln2_rstd = a.ln2_rstd + static_cast<size_t>(l) * BT;
    float* fch = a.fch + l * 4 * btc;
    float* fch_gelu = a.fch_gelu + l * 4 * btc;
    float* residual3 = a.residual3 + l * btc;

    // ln1 of block 0 here; every later LayerNorm is fused into the residual add before it.
    if (l == 0) {
      LayerNormForward(ln1, ln1_mean, ln1_rstd, residual, param(kLn1w), param(kLn1b), BT, C);
    }
    MatmulForward(qkv, ln1, param(kQkvw) + static_cast<size_t>(l) * 3 * C * C,
                  param(kQkvb) + l * 3 * C, BT, C, 3 * C);
    AttentionForward(atty, lse, qkv, B, T, C, NH);
    // residual2 = atty @ attprojw^T + residual + attprojb; ln2 = layernorm(residual2)
    MatmulForward(residual2, atty, param(kAttprojw) + static_cast<size_t>(l) * C * C, nullptr, BT,
                  C, C);
    ResidualLayerNormForward(ln2, ln2_mean, ln2_rstd, residual2, residual, param(kAttprojb) + l * C,
                             param(kLn2w) + l * C, param(kLn2b) + l * C, BT, C);
    // fch = ln2 @ fcw^T + fcb; fch_gelu = gelu(fch)
    MatmulForward(fch, ln2, param(kFcw) + static_cast<size_t>(l) * 4 * C * C, nullptr, BT, C,
                  4 * C);
    BiasGeluForward(fch_gelu, fch, param(kFcb) + l * 4 * C, BT, 4 * C);
    // residual3 = fch_gelu @ fcprojw^T + residual2 + fcprojb; then the next block's ln1, or lnf
    MatmulForward(residual3, fch_gelu, param(kFcprojw) + static_cast<size_t>(l) * 4 * C * C,
                  nullptr, BT, 4 * C, C);
    const bool top = l == L - 1;
    const size_t next = static_cast<size_t>(l + 1);
    ResidualLayerNormForward(top ? a.lnf : a.ln1 + next * btc,
                             top ? a.lnf_mean : a.ln1_mean + next * BT,
                             top ? a.lnf_rstd : a.ln1_rstd + next * BT, residual3, residual2,
                             param(kFcprojb) + l * C, top ? param(kLnfw) : param(kLn1w) + next * C,
                             top ? param(kLnfb) : param(kLn1b) + next * C, BT, C);
  }
  MatmulForward(a.logits, a.lnf, param(kWte), nullptr, BT, C, V);
  if (!have_targets_) return 0.0f;
  CrossEntropyForward(a.losses, a.loss_lse, a.logits, targets_.data(), BT, V);
  double sum = 0.0;  // in position order: deterministic
  for (int i = 0; i < BT; i++) sum += a.losses[i];
  return static_cast<float>(sum / BT);
}

void Gpt::ZeroGrad() { std::memset(grads_.get(), 0, sizeof(float) * num_params_); }

void Gpt::Backward() {
  const int B = config_.batch, T = config_.context, C = config_.d_model, L = config_.layers;
  const int NH = config_.heads, V = config_.vocab, BT = B * T;
  const size_t btc = static_cast<size_t>(BT) * C;
  Activations& a = acts_;

  // loss = mean_i losses[i]  =>  dlogits = (softmax - onehot) / BT, in place over logits.
  CrossEntropyBackward(a.logits, a.loss_lse, targets_.data(), 1.0f / BT, BT, V);
  // logits = lnf @ wte^T   (the head always learns)
  MatmulBackward(a.dbtc, grad(kWte), nullptr, a.logits, a.lnf, param(kWte), BT, C, V);
  std::memset(a.dres, 0, sizeof(float) * btc);
  const float* last = a.residual3 + (L - 1) * btc;
  LayerNormBackward(plan_.lnf_dinp ? a.dres : nullptr, grad(kLnfw), grad(kLnfb), a.dbtc, last,
                    param(kLnfw), a.lnf_mean, a.lnf_rstd, BT, C);

  // Blocks from the top down to plan_.lowest, the lowest block that needs a backward. dres holds
  // d loss / d (block output) on entry and d loss / d (block input) on exit. A frozen sublayer
  // passes null weight gradients (the kernels skip that work); below plan_.lowest nothing runs.
  auto g = [&](ParamIndex i, bool on, size_t offset) -> float* {
    return on ? grad(i) + offset : nullptr;
  };
  for (int l = L - 1; l >= plan_.lowest; l--) {
    const BlockPlan& p = plan_.blocks[l];
    const bool mw = p.mlp_weights, aw = p.attn_weights;
    const size_t lc = static_cast<size_t>(l) * C;
    const float* residual = l == 0 ? a.encoded : a.residual3 + (l - 1) * btc;
    const float* ln1 = a.ln1 + l * btc;
    const float* qkv = a.qkv + l * 3 * btc;
    const float* lse = a.att_lse + static_cast<size_t>(l) * B * NH * T;
    const float* atty = a.atty + l * btc;
    const float* residual2 = a.residual2 + l * btc;
    const float* ln2 = a.ln2 + l * btc;
    const float* fch = a.fch + l * 4 * btc;
    const float* fch_gelu = a.fch_gelu + l * 4 * btc;

    if (p.run_mlp) {
      // residual3 = residual2 + fch_gelu @ fcprojw^T + fcprojb: dresidual2 = dres (same buffer)
      MatmulBackward(a.dfch, g(kFcprojw, mw, lc * 4 * C), g(kFcprojb, mw, lc), a.dres, fch_gelu,
                     param(kFcprojw) + lc * 4 * C, BT, 4 * C, C);
      // fch_gelu = gelu(fch), fch = ln2 @ fcw^T + fcb: the bias gradient in the GELU pass
      GeluBackwardBias(a.dfch, g(kFcb, mw, lc * 4), fch, a.dfch, BT, 4 * C);
      MatmulBackward(a.dbtc, g(kFcw, mw, lc * 4 * C), nullptr, a.dfch, ln2,
                     param(kFcw) + lc * 4 * C, BT, C, 4 * C);
      // ln2 = layernorm(residual2): dresidual2 += ...
      LayerNormBackward(p.run_attn ? a.dres : nullptr, g(kLn2w, mw, lc), g(kLn2b, mw, lc), a.dbtc,
                        residual2, param(kLn2w) + lc, a.ln2_mean + static_cast<size_t>(l) * BT,
                        a.ln2_rstd + static_cast<size_t>(l) * BT, BT, C);
    }
    if (!p.run_attn) continue;  // only reachable for the lowest block
    // residual2 = residual + atty @ attprojw^T + attprojb: dresidual = dres (same buffer)
    MatmulBackward(a.dbtc, g(kAttprojw, aw, lc * C), g(kAttprojb, aw, lc), a.dres, atty,
                   param(kAttprojw) + lc * C, BT, C, C);
    // atty = attention(qkv)
    AttentionBackward(a.dqkv, a.dbtc, qkv, atty, lse, B, T, C, NH);
    // qkv = ln1 @ qkvw^T + qkvb
    MatmulBackward(a.dbtc, g(kQkvw, aw, lc * 3 * C), g(kQkvb, aw, lc * 3), a.dqkv, ln1,
                   param(kQkvw) + lc * 3 * C, BT, C, 3 * C);
    // ln1 = layernorm(residual): dresidual += ...
    LayerNormBackward(p.ln1_dinp ? a.dres : nullptr, g(kLn1w, aw, lc), g(kLn1b, aw, lc), a.dbtc,
                      residual, param(kLn1w) + lc, a.ln1_mean + static_cast<size_t>(l) * BT,
                      a.ln1_rstd + static_cast<size_t>(l) * BT, BT, C);
  }
  // encoded = wte[inputs] + wpe[t]
  if (plan_.encoder) EncoderBackward(grad(kWte), grad(kWpe), a.dres, inputs_.data(), B, T, C);
}

}  // namespace preflight::engine
