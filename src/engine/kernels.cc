#include "engine/kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/blas.h"
#include "engine/simd.h"

namespace preflight::engine {
namespace {

constexpr float kLayerNormEps = 1e-5f;
constexpr int kColBlock = 64;

using simd::Exp;

int NumBlocks(int n, int block) { return (n + block - 1) / block; }

// sums[c] += sum over rows of x[row, c], summed row by row within column blocks: the order of
// additions depends only on the shape. x (N,C)
void AddColumnSums(float* sums, const float* x, int N, int C) {
  const int nblocks = NumBlocks(C, kColBlock);
#pragma omp parallel for schedule(static)
  for (int blk = 0; blk < nblocks; blk++) {
    const int c0 = blk * kColBlock, c1 = std::min(C, c0 + kColBlock);
    float acc[kColBlock] = {};
    for (int i = 0; i < N; i++) {
      const float* row = x + static_cast<size_t>(i) * C;
      for (int c = c0; c < c1; c++) acc[c - c0] += row[c];
    }
    for (int c = c0; c < c1; c++) sums[c] += acc[c - c0];
  }
}

}  // namespace

void EncoderForward(float* out, const int* inp, const float* wte, const float* wpe, int B, int T,
                    int C) {
#pragma omp parallel for schedule(static)
  for (int bt = 0; bt < B * T; bt++) {
    const int t = bt % T;
    float* o = out + static_cast<size_t>(bt) * C;
    const float* e = wte + static_cast<size_t>(inp[bt]) * C;
    const float* p = wpe + static_cast<size_t>(t) * C;
    for (int c = 0; c < C; c++) o[c] = e[c] + p[c];
  }
}

void EncoderBackward(float* dwte, float* dwpe, const float* dout, const int* inp, int B, int T,
                     int C) {
  // Serial: tokens repeat, so rows of dwte collide; the cost is one pass over (B,T,C).
  for (int bt = 0; bt < B * T; bt++) {
    const int t = bt % T;
    const float* d = dout + static_cast<size_t>(bt) * C;
    if (dwte != nullptr) {
      float* e = dwte + static_cast<size_t>(inp[bt]) * C;
      for (int c = 0; c < C; c++) e[c] += d[c];
    }
    if (dwpe != nullptr) {
      float* p = dwpe + static_cast<size_t>(t) * C;
      for (int c = 0; c < C; c++) p[c] += d[c];
    }
  }
}

void MatmulForward(float* out, const float* inp, const float* weight, const float* bias, int N,
                   int C, int OC, float beta) {
  if (bias != nullptr) {
    // Put the bias into out first, then let the GEMM accumulate onto it (beta = 1).
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
      float* o = out + static_cast<size_t>(i) * OC;
      if (beta == 0.0f) {
        std::memcpy(o, bias, sizeof(float) * OC);
      } else {
        for (int j = 0; j < OC; j++) o[j] += bias[j];
      }
    }
    beta = 1.0f;
  }
  Sgemm(false, true, N, OC, C, 1.0f, inp, C, weight, C, beta, out, OC);
}

void MatmulBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                    const float* weight, int N, int C, int OC) {
  if (dinp != nullptr) Sgemm(false, false, N, C, OC, 1.0f, dout, OC, weight, C, 0.0f, dinp, C);
  if (dweight != nullptr) Sgemm(true, false, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f, dweight, C);
  if (dbias != nullptr) AddColumnSums(dbias, dout, N, OC);
}

// ---------------------------------------------------------------------------------------------
namespace reference {

void LayerNormForward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                      const float* bias, int N, int C) {
  for (int i = 0; i < N; i++) {
    const float* x = inp + static_cast<size_t>(i) * C;
    double m = 0, v = 0;
    for (int c = 0; c < C; c++) m += x[c];
    m /= C;
    for (int c = 0; c < C; c++) v += (x[c] - m) * (x[c] - m);
    v /= C;
    const double s = 1.0 / std::sqrt(v + kLayerNormEps);
    for (int c = 0; c < C; c++) {
      out[static_cast<size_t>(i) * C + c] =
          static_cast<float>((x[c] - m) * s * weight[c] + bias[c]);
    }
    mean[i] = static_cast<float>(m);
    rstd[i] = static_cast<float>(s);
  }
}

void LayerNormBackward(float* dinp, float* dweight, float* dbias, const float* dout,
                       const float* inp, const float* weight, const float* mean, const float* rstd,
                       int N, int C) {
  for (int i = 0; i < N; i++) {
    const float* d = dout + static_cast<size_t>(i) * C;
    const float* x = inp + static_cast<size_t>(i) * C;
    double a = 0, b = 0;
    for (int c = 0; c < C; c++) {
      const double norm = (x[c] - mean[i]) * static_cast<double>(rstd[i]);
      a += weight[c] * d[c];
      b += weight[c] * d[c] * norm;
    }
    a /= C;
    b /= C;
    for (int c = 0; c < C; c++) {
      const double norm = (x[c] - mean[i]) * static_cast<double>(rstd[i]);
      dweight[c] += static_cast<float>(norm * d[c]);
      dbias[c] += d[c];
      dinp[static_cast<size_t>(i) * C + c] +=
          static_cast<float>((weight[c] * d[c] - a - norm * b) * rstd[i]);
    }
  }
}

void ResidualLayerNormForward(float* out, float* mean, float* rstd, float* res, const float* skip,
                              const float* proj_bias, const float* weight, const float* bias, int N,
                              int C) {
  for (int i = 0; i < N; i++) {
    for (int c = 0; c < C; c++) {
      float& r = res[static_cast<size_t>(i) * C + c];
      if (skip != nullptr) r += skip[static_cast<size_t>(i) * C + c];
      if (proj_bias != nullptr) r += proj_bias[c];
    }
  }
  LayerNormForward(out, mean, rstd, res, weight, bias, N, C);
}

void BiasGeluForward(float* out, float* pre, const float* bias, int N, int OC) {
  for (size_t i = 0; i < static_cast<size_t>(N) * OC; i++) {
    if (bias != nullptr) pre[i] += bias[i % OC];
    const double x = pre[i];
    out[i] = static_cast<float>(
        0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))));
  }
}

void GeluBackwardBias(float* dpre, float* dbias, const float* pre, const float* dout, int N,
                      int OC) {
  for (size_t i = 0; i < static_cast<size_t>(N) * OC; i++) {
    const double x = pre[i], k = std::sqrt(2.0 / M_PI);
    const double u = k * (x + 0.044715 * x * x * x), th = std::tanh(u);
    const double grad =
        0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * k * (1.0 + 3.0 * 0.044715 * x * x);
    dpre[i] = static_cast<float>(dout[i] * grad);
  }
  if (dbias == nullptr) return;
  for (int j = 0; j < OC; j++) {
    double sum = 0;
    for (int i = 0; i < N; i++) sum += dpre[static_cast<size_t>(i) * OC + j];
    dbias[j] += static_cast<float>(sum);
  }
}

void CrossEntropyForward(float* losses, float* lse, const float* logits, const int* targets, int N,
                         int V) {
  for (int i = 0; i < N; i++) {
    const float* z = logits + static_cast<size_t>(i) * V;
    double maxv = z[0], sum = 0;
    for (int v = 1; v < V; v++) maxv = std::max(maxv, static_cast<double>(z[v]));
    for (int v = 0; v < V; v++) sum += std::exp(z[v] - maxv);
    const double l = maxv + std::log(sum);
    losses[i] = static_cast<float>(l - z[targets[i]]);
    if (lse != nullptr) lse[i] = static_cast<float>(l);
  }
}

void CrossEntropyBackward(float* logits, const float* lse, const int* targets, float dloss, int N,
                          int V) {
  for (int i = 0; i < N; i++) {
    float* z = logits + static_cast<size_t>(i) * V;
    for (int v = 0; v < V; v++) z[v] = static_cast<float>(dloss * std::exp(z[v] - lse[i]));
    z[targets[i]] -= dloss;
  }
}

void MatmulForward(float* out, const float* inp, const float* weight, const float* bias, int N,
                   int C, int OC, float beta) {
  for (int i = 0; i < N; i++) {
    for (int o = 0; o < OC; o++) {
      double sum = bias != nullptr ? bias[o] : 0.0;
      for (int c = 0; c < C; c++) {
        sum += static_cast<double>(inp[static_cast<size_t>(i) * C + c]) *
               weight[static_cast<size_t>(o) * C + c];
      }
      float& dst = out[static_cast<size_t>(i) * OC + o];
      dst = static_cast<float>(sum + (beta != 0.0f ? beta * dst : 0.0));
    }
  }
}

void MatmulBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                    const float* weight, int N, int C, int OC) {
  for (int i = 0; i < N; i++) {
    for (int c = 0; c < C; c++) {
      double sum = 0;
      for (int o = 0; o < OC; o++) {
        sum += static_cast<double>(dout[static_cast<size_t>(i) * OC + o]) *
               weight[static_cast<size_t>(o) * C + c];
      }
      dinp[static_cast<size_t>(i) * C + c] = static_cast<float>(sum);
    }
  }
  for (int o = 0; o < OC; o++) {
    for (int c = 0; c < C; c++) {
      double sum = 0;
      for (int i = 0; i < N; i++) {
        sum += static_cast<double>(dout[static_cast<size_t>(i) * OC + o]) *
               inp[static_cast<size_t>(i) * C + c];
      }
      dweight[static_cast<size_t>(o) * C + c] += static_cast<float>(sum);
    }
    double sum = 0;
    for (int i = 0; i < N; i++) sum += dout[static_cast<size_t>(i) * OC + o];
    dbias[o] += static_cast<float>(sum);
  }
}

void AttentionForward(float* out, float* att, const float* qkv, int B, int T, int C, int NH) {
  const int C3 = 3 * C, hs = C / NH;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hs));
  for (int b = 0; b < B; b++) {
    for (int t = 0; t < T; t++) {
      for (int h = 0; h < NH; h++) {
        const float* q = qkv + (static_cast<size_t>(b) * T + t) * C3 + h * hs;
        float* row = att + ((static_cast<size_t>(b) * NH + h) * T + t) * T;
        std::vector<double> s(t + 1);
        double maxv = -1e300;
        for (int t2 = 0; t2 <= t; t2++) {
          const float* k = qkv + (static_cast<size_t>(b) * T + t2) * C3 + C + h * hs;
          double dot = 0;
          for (int i = 0; i < hs; i++) dot += static_cast<double>(q[i]) * k[i];
          s[t2] = dot * scale;
          maxv = std::max(maxv, s[t2]);
        }
        double sum = 0;
        for (int t2 = 0; t2 <= t; t2++) sum += std::exp(s[t2] - maxv);
        for (int t2 = 0; t2 <= t; t2++) row[t2] = static_cast<float>(std::exp(s[t2] - maxv) / sum);
        float* o = out + (static_cast<size_t>(b) * T + t) * C + h * hs;
        for (int i = 0; i < hs; i++) {
          double acc = 0;
          for (int t2 = 0; t2 <= t; t2++) {
            acc += static_cast<double>(row[t2]) *
                   qkv[(static_cast<size_t>(b) * T + t2) * C3 + 2 * C + h * hs + i];
          }
          o[i] = static_cast<float>(acc);
        }
      }
    }
  }
}

void AttentionBackward(float* dqkv, const float* dout, const float* qkv, const float* att, int B,
                       int T, int C, int NH) {
  const int C3 = 3 * C, hs = C / NH;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hs));
  std::fill(dqkv, dqkv + static_cast<size_t>(B) * T * C3, 0.0f);
  auto at = [&](int b, int t, int part, int h, int i) {
    return (static_cast<size_t>(b) * T + t) * C3 + part * C + h * hs + i;
  };
  for (int b = 0; b < B; b++) {
    for (int h = 0; h < NH; h++) {
      for (int t = 0; t < T; t++) {
        const float* row = att + ((static_cast<size_t>(b) * NH + h) * T + t) * T;
        const float* d = dout + (static_cast<size_t>(b) * T + t) * C + h * hs;
        std::vector<double> da(t + 1);
        double dot = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          double acc = 0;
          for (int i = 0; i < hs; i++) {
            acc += static_cast<double>(d[i]) * qkv[at(b, t2, 2, h, i)];
            dqkv[at(b, t2, 2, h, i)] += row[t2] * d[i];
          }
          da[t2] = acc;
          dot += row[t2] * acc;
        }
        for (int t2 = 0; t2 <= t; t2++) {
          const double ds = row[t2] * (da[t2] - dot) * scale;
          for (int i = 0; i < hs; i++) {
            dqkv[at(b, t, 0, h, i)] += static_cast<float>(ds * qkv[at(b, t2, 1, h, i)]);
            dqkv[at(b, t2, 1, h, i)] += static_cast<float>(ds * qkv[at(b, t, 0, h, i)]);
          }
        }
      }
    }
  }
}

}  // namespace reference
}  // namespace preflight::engine
