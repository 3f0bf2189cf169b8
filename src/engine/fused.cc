// The elementwise passes over activations, fused so that each (B,T,·) tensor is read and written
// as few times as possible, with an AVX2 and an AVX-512 path (simd.h). Row sums are taken in
// kLanes partial sums (lane j holds elements j, j + kLanes, ...) combined in lane order: GCC
// vectorises that form on either path and the bits are the same on both, and they depend on the
// shape only. The plain-loop statements are in namespace reference (kernels.cc).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "engine/kernels.h"
#include "engine/simd.h"

namespace preflight::engine {
namespace {

constexpr float kLayerNormEps = 1e-5f;
constexpr float kGeluScale = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluCubic = 0.044715f;
constexpr int kLanes = 16;

int NumBlocks(int n, int block) { return (n + block - 1) / block; }

// sum_c x[c], in kLanes partial sums combined in order.
[[gnu::always_inline]] inline float LaneSum(const float* x, int C) {
  float lanes[kLanes] = {};
  int c = 0;
  for (; c + kLanes <= C; c += kLanes) {
    for (int j = 0; j < kLanes; j++) lanes[j] += x[c + j];
  }
  for (int j = 0; c + j < C; j++) lanes[j] += x[c + j];
  float sum = 0.0f;
  for (int j = 0; j < kLanes; j++) sum += lanes[j];
  return sum;
}

// sum_c (x[c] - m)^2, in the same order as LaneSum.
[[gnu::always_inline]] inline float LaneSquares(const float* x, float m, int C) {
  float lanes[kLanes] = {};
  int c = 0;
  for (; c + kLanes <= C; c += kLanes) {
    for (int j = 0; j < kLanes; j++) lanes[j] += (x[c + j] - m) * (x[c + j] - m);
  }
  for (int j = 0; c + j < C; j++) lanes[j] += (x[c + j] - m) * (x[c + j] - m);
  float sum = 0.0f;
  for (int j = 0; j < kLanes; j++) sum += lanes[j];
  return sum;
}

// One row of LayerNorm: out = (x - mean) * rstd * weight + bias.
[[gnu::always_inline]] inline void LayerNormRow(float* out, float* mean, float* rstd,
                                                const float* x, const float* weight,
                                                const float* bias, int C) {
  const float m = LaneSum(x, C) / C;
  const float s = 1.0f / std::sqrt(LaneSquares(x, m, C) / C + kLayerNormEps);
  for (int c = 0; c < C; c++) out[c] = (x[c] - m) * s * weight[c] + bias[c];
  *mean = m;
  *rstd = s;
}

// Rows [i0, i1): res += skip + proj_bias (skip null: nothing added but the bias, which may be
// null too), then out = layernorm(res).
[[gnu::always_inline]] inline void ResidualLayerNormRows(float* out, float* mean, float* rstd,
                                                         float* res, const float* skip,
                                                         const float* proj_bias,
                                                         const float* weight, const float* bias,
                                                         int i0, int i1, int C) {
  for (int i = i0; i < i1; i++) {
    float* r = res + static_cast<size_t>(i) * C;
    if (skip != nullptr) {
      const float* k = skip + static_cast<size_t>(i) * C;
      for (int c = 0; c < C; c++) r[c] += k[c];
    }
    if (proj_bias != nullptr) {
      for (int c = 0; c < C; c++) r[c] += proj_bias[c];
    }
    LayerNormRow(out + static_cast<size_t>(i) * C, mean + i, rstd + i, r, weight, bias, C);
  }
}

// 0.5 x (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3): one Exp.
[[gnu::always_inline]] inline float Gelu(float x) {
  const float u = kGeluScale * (x + kGeluCubic * x * x * x);
  return x / (1.0f + simd::Exp(-2.0f * u));
}

// d/dx [0.5 x (1 + tanh u)] = s + 2 x s (1 - s) du/dx with s = sigmoid(2u).
[[gnu::always_inline]] inline float GeluGrad(float x) {
  const float u = kGeluScale * (x + kGeluCubic * x * x * x);
  const float s = 1.0f / (1.0f + simd::Exp(-2.0f * u));
  return s + 2.0f * x * s * (1.0f - s) * kGeluScale * (1.0f + 3.0f * kGeluCubic * x * x);
}

// Rows [i0, i1) of (·, OC): pre += bias (if any); out = gelu(pre).
[[gnu::always_inline]] inline void BiasGeluRows(float* out, float* pre, const float* bias, int i0,
                                                int i1, int OC) {
  for (int i = i0; i < i1; i++) {
    float* p = pre + static_cast<size_t>(i) * OC;
    float* o = out + static_cast<size_t>(i) * OC;
    if (bias != nullptr) {
      for (int j = 0; j < OC; j++) p[j] += bias[j];
    }
    for (int j = 0; j < OC; j++) o[j] = Gelu(p[j]);
  }
}

// Rows [i0, i1): dpre = dout * gelu'(pre); dbias_part (OC, or null) = column sums of dpre over
// these rows, row by row.
[[gnu::always_inline]] inline void GeluBackwardRows(float* dpre, float* dbias_part,
                                                    const float* pre, const float* dout, int i0,
                                                    int i1, int OC) {
  for (int i = i0; i < i1; i++) {
    const size_t row = static_cast<size_t>(i) * OC;
    for (int j = 0; j < OC; j++) dpre[row + j] = dout[row + j] * GeluGrad(pre[row + j]);
    if (dbias_part != nullptr) {
      for (int j = 0; j < OC; j++) dbias_part[j] += dpre[row + j];
    }
  }
}

// Rows [i0, i1): out = layernorm(inp).
[[gnu::always_inline]] inline void LayerNormRows(float* out, float* mean, float* rstd,
                                                 const float* inp, const float* weight,
                                                 const float* bias, int i0, int i1, int C) {
  for (int i = i0; i < i1; i++) {
    const size_t row = static_cast<size_t>(i) * C;
    LayerNormRow(out + row, mean + i, rstd + i, inp + row, weight, bias, C);
  }
}

// Rows [i0, i1) of the loss: lse = max + log sum e^(z - max) (lane-wise sums), loss = lse - z_t.
[[gnu::always_inline]] inline void CrossEntropyRows(float* losses, float* lse, const float* logits,
                                                    const int* targets, int i0, int i1, int V) {
  for (int i = i0; i < i1; i++) {
    const float* z = logits + static_cast<size_t>(i) * V;
    float lanes[kLanes];
    for (int j = 0; j < kLanes; j++) lanes[j] = z[0];
    int v = 0;
    for (; v + kLanes <= V; v += kLanes) {
      for (int j = 0; j < kLanes; j++) lanes[j] = std::max(lanes[j], z[v + j]);
    }
    for (int j = 0; v + j < V; j++) lanes[j] = std::max(lanes[j], z[v + j]);
    float maxv = lanes[0];
    for (int j = 1; j < kLanes; j++) maxv = std::max(maxv, lanes[j]);
    for (int j = 0; j < kLanes; j++) lanes[j] = 0.0f;
    for (v = 0; v + kLanes <= V; v += kLanes) {
      for (int j = 0; j < kLanes; j++) lanes[j] += simd::Exp(z[v + j] - maxv);
    }
    for (int j = 0; v + j < V; j++) lanes[j] += simd::Exp(z[v + j] - maxv);
    float sum = 0.0f;
    for (int j = 0; j < kLanes; j++) sum += lanes[j];
    const float l = maxv + std::log(sum);
    losses[i] = l - z[targets[i]];
    if (lse != nullptr) lse[i] = l;
  }
}

// Rows [i0, i1): z = dloss e^(z - lse) - dloss onehot(target).
[[gnu::always_inline]] inline void CrossEntropyBackwardRows(float* logits, const float* lse,
                                                            const int* targets, float dloss, int i0,
                                                            int i1, int V) {
  for (int i = i0; i < i1; i++) {
    float* z = logits + static_cast<size_t>(i) * V;
    const float shift = lse[i];
    for (int v = 0; v < V; v++) z[v] = dloss * simd::Exp(z[v] - shift);
    z[targets[i]] -= dloss;
  }
}

// Rows [i0, i1) of LayerNorm's backward. dnorm = dout * weight, norm = (x - mean) * rstd;
// dinp += (dnorm - mean(dnorm) - norm * mean(dnorm * norm)) * rstd (dinp may be null);
// pw += norm * dout and pb += dout (the block's partial weight and bias gradients, or null).
[[gnu::always_inline]] inline void LayerNormBackwardRows(float* dinp, float* pw, float* pb,
                                                         const float* dout, const float* inp,
                                                         const float* weight, const float* mean,
                                                         const float* rstd, int i0, int i1, int C) {
  for (int i = i0; i < i1; i++) {
    const float* d = dout + static_cast<size_t>(i) * C;
    const float* x = inp + static_cast<size_t>(i) * C;
    const float m = mean[i], s = rstd[i];
    float lanes_a[kLanes] = {}, lanes_b[kLanes] = {};
    int c = 0;
    for (; c + kLanes <= C; c += kLanes) {
      for (int j = 0; j < kLanes; j++) {
        const float dnorm = weight[c + j] * d[c + j];
        lanes_a[j] += dnorm;
        lanes_b[j] += dnorm * ((x[c + j] - m) * s);
      }
    }
    for (int j = 0; c + j < C; j++) {
      const float dnorm = weight[c + j] * d[c + j];
      lanes_a[j] += dnorm;
      lanes_b[j] += dnorm * ((x[c + j] - m) * s);
    }
    float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
    for (int j = 0; j < kLanes; j++) {
      dnorm_mean += lanes_a[j];
      dnorm_norm_mean += lanes_b[j];
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    if (pw != nullptr) {
      for (c = 0; c < C; c++) {
        pw[c] += (x[c] - m) * s * d[c];
        pb[c] += d[c];
      }
    }
    if (dinp == nullptr) continue;
    float* di = dinp + static_cast<size_t>(i) * C;
    for (c = 0; c < C; c++) {
      const float norm = (x[c] - m) * s;
      di[c] += (weight[c] * d[c] - dnorm_mean - norm * dnorm_norm_mean) * s;
    }
  }
}

using LayerNormBackwardFn = void (*)(float*, float*, float*, const float*, const float*,
                                     const float*, const float*, const float*, int, int, int);
using CrossEntropyFn = void (*)(float*, float*, const float*, const int*, int, int, int);
using CrossEntropyBackwardFn = void (*)(float*, const float*, const int*, float, int, int, int);
using LayerNormFn = void (*)(float*, float*, float*, const float*, const float*, const float*, int,
                             int, int);
using ResidualLayerNormFn = void (*)(float*, float*, float*, float*, const float*, const float*,
                                     const float*, const float*, int, int, int);
using BiasGeluFn = void (*)(float*, float*, const float*, int, int, int);
using GeluBackwardFn = void (*)(float*, float*, const float*, const float*, int, int, int);

void LayerNormBackwardAvx2(float* dinp, float* pw, float* pb, const float* dout, const float* inp,
                           const float* w, const float* mean, const float* rstd, int i0, int i1,
                           int C) {
  LayerNormBackwardRows(dinp, pw, pb, dout, inp, w, mean, rstd, i0, i1, C);
}
PREFLIGHT_TARGET_AVX512 void LayerNormBackwardAvx512(float* dinp, float* pw, float* pb,
                                                     const float* dout, const float* inp,
                                                     const float* w, const float* mean,
                                                     const float* rstd, int i0, int i1, int C) {
  LayerNormBackwardRows(dinp, pw, pb, dout, inp, w, mean, rstd, i0, i1, C);
}
void CrossEntropyAvx2(float* losses, float* lse, const float* logits, const int* targets, int i0,
                      int i1, int V) {
  CrossEntropyRows(losses, lse, logits, targets, i0, i1, V);
}
PREFLIGHT_TARGET_AVX512 void CrossEntropyAvx512(float* losses, float* lse, const float* logits,
                                                const int* targets, int i0, int i1, int V) {
  CrossEntropyRows(losses, lse, logits, targets, i0, i1, V);
}
void CrossEntropyBackwardAvx2(float* logits, const float* lse, const int* targets, float dloss,
                              int i0, int i1, int V) {
  CrossEntropyBackwardRows(logits, lse, targets, dloss, i0, i1, V);
}
PREFLIGHT_TARGET_AVX512 void CrossEntropyBackwardAvx512(float* logits, const float* lse,
                                                        const int* targets, float dloss, int i0,
                                                        int i1, int V) {
  CrossEntropyBackwardRows(logits, lse, targets, dloss, i0, i1, V);
}
void LayerNormAvx2(float* out, float* mean, float* rstd, const float* inp, const float* w,
                   const float* b, int i0, int i1, int C) {
  LayerNormRows(out, mean, rstd, inp, w, b, i0, i1, C);
}
PREFLIGHT_TARGET_AVX512 void LayerNormAvx512(float* out, float* mean, float* rstd, const float* inp,
                                             const float* w, const float* b, int i0, int i1,
                                             int C) {
  LayerNormRows(out, mean, rstd, inp, w, b, i0, i1, C);
}
void ResidualLayerNormAvx2(float* out, float* mean, float* rstd, float* res, const float* skip,
                           const float* pb, const float* w, const float* b, int i0, int i1, int C) {
  ResidualLayerNormRows(out, mean, rstd, res, skip, pb, w, b, i0, i1, C);
}
PREFLIGHT_TARGET_AVX512 void ResidualLayerNormAvx512(float* out, float* mean, float* rstd,
                                                     float* res, const float* skip, const float* pb,
                                                     const float* w, const float* b, int i0, int i1,
                                                     int C) {
  ResidualLayerNormRows(out, mean, rstd, res, skip, pb, w, b, i0, i1, C);
}
void BiasGeluAvx2(float* out, float* pre, const float* bias, int i0, int i1, int OC) {
  BiasGeluRows(out, pre, bias, i0, i1, OC);
}
PREFLIGHT_TARGET_AVX512 void BiasGeluAvx512(float* out, float* pre, const float* bias, int i0,
                                            int i1, int OC) {
  BiasGeluRows(out, pre, bias, i0, i1, OC);
}
void GeluBackwardAvx2(float* dpre, float* part, const float* pre, const float* dout, int i0, int i1,
                      int OC) {
  GeluBackwardRows(dpre, part, pre, dout, i0, i1, OC);
}
PREFLIGHT_TARGET_AVX512 void GeluBackwardAvx512(float* dpre, float* part, const float* pre,
                                                const float* dout, int i0, int i1, int OC) {
  GeluBackwardRows(dpre, part, pre, dout, i0, i1, OC);
}

bool Wide() { return ActiveSimd() == SimdPath::kAvx512; }

}  // namespace

void LayerNormForward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                      const float* bias, int N, int C) {
  // The same row routine as ResidualLayerNormForward, so both give the same bits for one row.
  const LayerNormFn rows = Wide() ? LayerNormAvx512 : LayerNormAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    rows(out, mean, rstd, inp, weight, bias, blk * kRowBlock, std::min(N, (blk + 1) * kRowBlock),
         C);
  }
}

void LayerNormBackward(float* dinp, float* dweight, float* dbias, const float* dout,
                       const float* inp, const float* weight, const float* mean, const float* rstd,
                       int N, int C) {
  // dweight/dbias are sums over rows: each block of kRowBlock rows sums into its own slot, and
  // the slots are added in block order afterwards.
  const LayerNormBackwardFn rows = Wide() ? LayerNormBackwardAvx512 : LayerNormBackwardAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
  const bool want_w = dweight != nullptr || dbias != nullptr;
  std::vector<float> partial(want_w ? static_cast<size_t>(nblocks) * 2 * C : 0, 0.0f);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    float* pw = want_w ? partial.data() + static_cast<size_t>(blk) * 2 * C : nullptr;
    rows(dinp, pw, want_w ? pw + C : nullptr, dout, inp, weight, mean, rstd, blk * kRowBlock,
         std::min(N, (blk + 1) * kRowBlock), C);
  }
  if (!want_w) return;
  for (int blk = 0; blk < nblocks; blk++) {
    const float* pw = partial.data() + static_cast<size_t>(blk) * 2 * C;
    for (int c = 0; c < C; c++) {
      if (dweight != nullptr) dweight[c] += pw[c];
      if (dbias != nullptr) dbias[c] += pw[C + c];
    }
  }
}

void ResidualLayerNormForward(float* out, float* mean, float* rstd, float* res, const float* skip,
                              const float* proj_bias, const float* weight, const float* bias, int N,
                              int C) {
  const ResidualLayerNormFn rows = Wide() ? ResidualLayerNormAvx512 : ResidualLayerNormAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    rows(out, mean, rstd, res, skip, proj_bias, weight, bias, blk * kRowBlock,
         std::min(N, (blk + 1) * kRowBlock), C);
  }
}

void BiasGeluForward(float* out, float* pre, const float* bias, int N, int OC) {
  const BiasGeluFn rows = Wide() ? BiasGeluAvx512 : BiasGeluAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    rows(out, pre, bias, blk * kRowBlock, std::min(N, (blk + 1) * kRowBlock), OC);
  }
}

void GeluForward(float* out, const float* inp, int N) {
  // Without a bias, BiasGeluRows only reads `pre`.
  BiasGeluForward(out, const_cast<float*>(inp), nullptr, 1, N);
}

void GeluBackward(float* dinp, const float* inp, const float* dout, int N) {
  GeluBackwardBias(dinp, nullptr, inp, dout, 1, N);
}

void GeluBackwardBias(float* dpre, float* dbias, const float* pre, const float* dout, int N,
                      int OC) {
  // dbias: each block of kRowBlock rows sums into its own slot; slots are added in block order.
  const GeluBackwardFn rows = Wide() ? GeluBackwardAvx512 : GeluBackwardAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
  std::vector<float> partial(dbias != nullptr ? static_cast<size_t>(nblocks) * OC : 0, 0.0f);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    float* part = dbias != nullptr ? partial.data() + static_cast<size_t>(blk) * OC : nullptr;
    rows(dpre, part, pre, dout, blk * kRowBlock, std::min(N, (blk + 1) * kRowBlock), OC);
  }
  if (dbias == nullptr) return;
  for (int blk = 0; blk < nblocks; blk++) {
    for (int j = 0; j < OC; j++) dbias[j] += partial[static_cast<size_t>(blk) * OC + j];
  }
}

void CrossEntropyForward(float* losses, float* lse, const float* logits, const int* targets, int N,
                         int V) {
  const CrossEntropyFn rows = Wide() ? CrossEntropyAvx512 : CrossEntropyAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    rows(losses, lse, logits, targets, blk * kRowBlock, std::min(N, (blk + 1) * kRowBlock), V);
  }
}

void CrossEntropyBackward(float* logits, const float* lse, const int* targets, float dloss, int N,
                          int V) {
  const CrossEntropyBackwardFn rows =
      Wide() ? CrossEntropyBackwardAvx512 : CrossEntropyBackwardAvx2;
  const int nblocks = NumBlocks(N, kRowBlock);
#pragma omp parallel for schedule(dynamic)
  for (int blk = 0; blk < nblocks; blk++) {
    rows(logits, lse, targets, dloss, blk * kRowBlock, std::min(N, (blk + 1) * kRowBlock), V);
  }
}

}  // namespace preflight::engine
