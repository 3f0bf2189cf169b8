// Causal self-attention as tiled small GEMMs with an online softmax (flash-attention style):
// per (batch, head), queries and keys in tiles of kTile; a tile above the diagonal is skipped,
// the diagonal tile is masked. The T x T matrix is never stored: the forward keeps the
// log-sum-exp of each row, and the backward recomputes each tile's probabilities from it.
// Work per (b, h) runs on one thread in a fixed order, so results do not depend on the thread
// count. The plain-loop statement of what this computes is reference::AttentionForward/Backward
// in kernels.cc.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "train/kernels.h"
#include "train/simd.h"

namespace preflight::train {
namespace {

constexpr int kTile = 32;  // queries and keys per tile; a multiple of 2W for both paths

int RoundUp(int n, int m) { return (n + m - 1) / m * m; }

// One head's operands, gathered from the packed (B,T,3C) layout into contiguous, zero-padded
// buffers: rows padded to Tp = RoundUp(T, kTile), head channels to hsp = RoundUp(hs, kTile).
struct HeadShape {
  int T, C, hs, hsp, Tp;
  float scale;
};

HeadShape MakeShape(int T, int C, int NH) {
  const int hs = C / NH;
  return {
      T, C, hs, RoundUp(hs, kTile), RoundUp(T, kTile), 1.0f / std::sqrt(static_cast<float>(hs))};
}

// rows (Tp, hsp) = src[t, 0:hs] for t < T (row stride ld); pads are left as they are (zero).
void GatherRows(float* rows, const float* src, size_t ld, const HeadShape& s) {
  for (int t = 0; t < s.T; t++) std::memcpy(rows + t * s.hsp, src + t * ld, sizeof(float) * s.hs);
}
// cols (hsp, Tp) = src[t, 0:hs] transposed.
void GatherCols(float* cols, const float* src, size_t ld, const HeadShape& s) {
  for (int t = 0; t < s.T; t++) {
    for (int i = 0; i < s.hs; i++) cols[i * s.Tp + t] = src[t * ld + i];
  }
}

// Scales one score row by `scale` and returns its maximum over the first c entries, c >= 1.
// Lane-wise maxima (a vectorisable form); the maximum itself is exact whatever the order.
template <int W>
[[gnu::always_inline]] inline float ScaleAndMax(float* row, int c, float scale) {
  float lanes[W];
  for (int j = 0; j < W; j++) lanes[j] = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < kTile; j++) row[j] *= scale;
  for (int j0 = 0; j0 < c; j0 += W) {
    const int n = std::min(W, c - j0);
    for (int j = 0; j < n; j++) lanes[j] = std::max(lanes[j], row[j0 + j]);
  }
  float m = lanes[0];
  for (int j = 1; j < W; j++) m = std::max(m, lanes[j]);
  return m;
}

// row[j] = e^(row[j] - shift) for j < c, 0 for c <= j < kTile; returns their sum, taken lane-wise
// (W partial sums, then the lanes in order): the order depends on W only.
template <int W>
[[gnu::always_inline]] inline float ExpRow(float* row, int c, float shift) {
  for (int j = 0; j < kTile; j++) row[j] = simd::Exp(row[j] - shift);
  for (int j = c; j < kTile; j++) row[j] = 0.0f;
  float lanes[W] = {};
  for (int j0 = 0; j0 < kTile; j0 += W) {
    for (int j = 0; j < W; j++) lanes[j] += row[j0 + j];
  }
  float sum = 0.0f;
  for (int j = 0; j < W; j++) sum += lanes[j];
  return sum;
}

// Scratch per thread for one head: q, v (Tp, hsp); kt (hsp, Tp); o (kTile, hsp); s (kTile^2);
// m, l (kTile).
struct ForwardScratch {
  std::vector<float> q, kt, v, o, s, m, l;
  explicit ForwardScratch(const HeadShape& sh)
      : q(static_cast<size_t>(sh.Tp) * sh.hsp),
        kt(q.size()),
        v(q.size()),
        o(static_cast<size_t>(kTile) * sh.hsp),
        s(kTile * kTile),
        m(kTile),
        l(kTile) {}
};

// The forward of one query tile [t0, t0 + rows): online softmax over the key tiles up to the
// diagonal. For each key tile: s = scale q kᵀ; m' = max(m, rowmax s); p = e^(s - m');
// l = l e^(m - m') + rowsum p; o = o e^(m - m') + p v. Finally out = o / l, lse = m + ln l.
template <int W>
[[gnu::always_inline]] inline void ForwardTile(float* out, size_t ld_out, float* lse, int t0,
                                               int rows, const HeadShape& sh, ForwardScratch& w) {
  const int hsp = sh.hsp;
  std::fill(w.o.begin(), w.o.end(), 0.0f);
  std::fill(w.m.begin(), w.m.end(), std::numeric_limits<float>::lowest());
  std::fill(w.l.begin(), w.l.end(), 0.0f);
  for (int s0 = 0; s0 < t0 + rows; s0 += kTile) {
    const int nk = std::min(kTile, sh.T - s0);
    simd::SmallGemm<W>(w.s.data(), kTile, w.q.data() + t0 * hsp, hsp, 1, w.kt.data() + s0, sh.Tp,
                       rows, kTile, hsp, false);
    for (int r = 0; r < rows; r++) {
      float* row = w.s.data() + r * kTile;
      const int c = std::min(nk, t0 + r - s0 + 1);  // keys s0..t0+r are visible
      const float m = std::max(w.m[r], ScaleAndMax<W>(row, c, sh.scale));
      const float correction = simd::Exp(w.m[r] - m);
      w.l[r] = w.l[r] * correction + ExpRow<W>(row, c, m);
      w.m[r] = m;
      float* o = w.o.data() + r * hsp;
      for (int i = 0; i < hsp; i++) o[i] *= correction;
    }
    simd::SmallGemm<W>(w.o.data(), hsp, w.s.data(), kTile, 1, w.v.data() + s0 * hsp, hsp, rows, hsp,
                       nk, true);
  }
  for (int r = 0; r < rows; r++) {
    const float inv = 1.0f / w.l[r];
    float* dst = out + (t0 + r) * ld_out;
    const float* o = w.o.data() + r * hsp;
    for (int i = 0; i < sh.hs; i++) dst[i] = o[i] * inv;
    lse[t0 + r] = w.m[r] + std::log(w.l[r]);
  }
}

template <int W>
[[gnu::always_inline]] inline void ForwardHead(float* out, float* lse, const float* qkv, int b,
                                               int h, const HeadShape& sh, ForwardScratch& w) {
  const size_t C3 = 3 * static_cast<size_t>(sh.C);
  const float* base = qkv + b * sh.T * C3 + h * sh.hs;
  GatherRows(w.q.data(), base, C3, sh);
  GatherCols(w.kt.data(), base + sh.C, C3, sh);
  GatherRows(w.v.data(), base + 2 * sh.C, C3, sh);
  float* o = out + static_cast<size_t>(b) * sh.T * sh.C + h * sh.hs;
  for (int t0 = 0; t0 < sh.T; t0 += kTile) {
    ForwardTile<W>(o, sh.C, lse, t0, std::min(kTile, sh.T - t0), sh, w);
  }
}

// Scratch per thread for one head's backward: q, k, dout, dq, dk, dv (Tp, hsp); kt, vt (hsp,
// Tp); p, ds (kTile^2); delta (Tp).
struct BackwardScratch {
  std::vector<float> q, k, dout, dq, dk, dv, kt, vt, p, ds, delta;
  explicit BackwardScratch(const HeadShape& sh)
      : q(static_cast<size_t>(sh.Tp) * sh.hsp),
        k(q.size()),
        dout(q.size()),
        dq(q.size()),
        dk(q.size()),
        dv(q.size()),
        kt(q.size()),
        vt(q.size()),
        p(kTile * kTile),
        ds(kTile * kTile),
        delta(sh.Tp) {}
};

// The backward of one (query tile, key tile) pair, restating the forward p = e^(scale q kᵀ -
// lse), o = p v:  dp = dout vᵀ; ds = p (dp - delta) scale with delta = rowsum(dout * o);
// dv += pᵀ dout; dq += ds k; dk += dsᵀ q.
template <int W>
[[gnu::always_inline]] inline void BackwardTilePair(const float* lse, int t0, int rows, int s0,
                                                    const HeadShape& sh, BackwardScratch& w) {
  const int hsp = sh.hsp, nk = std::min(kTile, sh.T - s0);
  simd::SmallGemm<W>(w.p.data(), kTile, w.q.data() + t0 * hsp, hsp, 1, w.kt.data() + s0, sh.Tp,
                     rows, kTile, hsp, false);
  simd::SmallGemm<W>(w.ds.data(), kTile, w.dout.data() + t0 * hsp, hsp, 1, w.vt.data() + s0, sh.Tp,
                     rows, kTile, hsp, false);
  for (int r = 0; r < rows; r++) {
    float* p = w.p.data() + r * kTile;
    float* ds = w.ds.data() + r * kTile;
    const int c = std::min(nk, t0 + r - s0 + 1);
    const float shift = lse[t0 + r], delta = w.delta[t0 + r];
    for (int j = 0; j < kTile; j++) p[j] = simd::Exp(p[j] * sh.scale - shift);
    for (int j = c; j < kTile; j++) p[j] = 0.0f;
    for (int j = 0; j < kTile; j++) ds[j] = p[j] * (ds[j] - delta) * sh.scale;
  }
  simd::SmallGemm<W>(w.dv.data() + s0 * hsp, hsp, w.p.data(), 1, kTile, w.dout.data() + t0 * hsp,
                     hsp, nk, hsp, rows, true);
  simd::SmallGemm<W>(w.dq.data() + t0 * hsp, hsp, w.ds.data(), kTile, 1, w.k.data() + s0 * hsp, hsp,
                     rows, hsp, nk, true);
  simd::SmallGemm<W>(w.dk.data() + s0 * hsp, hsp, w.ds.data(), 1, kTile, w.q.data() + t0 * hsp, hsp,
                     nk, hsp, rows, true);
}

template <int W>
[[gnu::always_inline]] inline void BackwardHead(float* dqkv, const float* dout, const float* qkv,
                                                const float* out, const float* lse, int b, int h,
                                                const HeadShape& sh, BackwardScratch& w) {
  const size_t C3 = 3 * static_cast<size_t>(sh.C), bt = static_cast<size_t>(b) * sh.T;
  const float* base = qkv + bt * C3 + h * sh.hs;
  const float* dbase = dout + bt * sh.C + h * sh.hs;
  const float* obase = out + bt * sh.C + h * sh.hs;
  GatherRows(w.q.data(), base, C3, sh);
  GatherRows(w.k.data(), base + sh.C, C3, sh);
  GatherCols(w.kt.data(), base + sh.C, C3, sh);
  GatherCols(w.vt.data(), base + 2 * sh.C, C3, sh);
  GatherRows(w.dout.data(), dbase, sh.C, sh);
  for (int t = 0; t < sh.T; t++) {
    float sum = 0.0f;
    for (int i = 0; i < sh.hs; i++) sum += dbase[t * sh.C + i] * obase[t * sh.C + i];
    w.delta[t] = sum;
  }
  std::fill(w.dq.begin(), w.dq.end(), 0.0f);
  std::fill(w.dk.begin(), w.dk.end(), 0.0f);
  std::fill(w.dv.begin(), w.dv.end(), 0.0f);
  for (int t0 = 0; t0 < sh.T; t0 += kTile) {
    const int rows = std::min(kTile, sh.T - t0);
    for (int s0 = 0; s0 < t0 + rows; s0 += kTile) BackwardTilePair<W>(lse, t0, rows, s0, sh, w);
  }
  float* d = dqkv + bt * C3 + h * sh.hs;
  for (int t = 0; t < sh.T; t++) {
    std::memcpy(d + t * C3, w.dq.data() + t * sh.hsp, sizeof(float) * sh.hs);
    std::memcpy(d + t * C3 + sh.C, w.dk.data() + t * sh.hsp, sizeof(float) * sh.hs);
    std::memcpy(d + t * C3 + 2 * sh.C, w.dv.data() + t * sh.hsp, sizeof(float) * sh.hs);
  }
}

void ForwardHeadAvx2(float* out, float* lse, const float* qkv, int b, int h, const HeadShape& sh,
                     ForwardScratch& w) {
  ForwardHead<8>(out, lse, qkv, b, h, sh, w);
}
PREFLIGHT_TARGET_AVX512 void ForwardHeadAvx512(float* out, float* lse, const float* qkv, int b,
                                               int h, const HeadShape& sh, ForwardScratch& w) {
  ForwardHead<16>(out, lse, qkv, b, h, sh, w);
}
void BackwardHeadAvx2(float* dqkv, const float* dout, const float* qkv, const float* out,
                      const float* lse, int b, int h, const HeadShape& sh, BackwardScratch& w) {
  BackwardHead<8>(dqkv, dout, qkv, out, lse, b, h, sh, w);
}
PREFLIGHT_TARGET_AVX512 void BackwardHeadAvx512(float* dqkv, const float* dout, const float* qkv,
                                                const float* out, const float* lse, int b, int h,
                                                const HeadShape& sh, BackwardScratch& w) {
  BackwardHead<16>(dqkv, dout, qkv, out, lse, b, h, sh, w);
}

}  // namespace

void AttentionForward(float* out, float* lse, const float* qkv, int B, int T, int C, int NH) {
  const HeadShape sh = MakeShape(T, C, NH);
  const auto head = ActiveSimd() == SimdPath::kAvx512 ? ForwardHeadAvx512 : ForwardHeadAvx2;
#pragma omp parallel
  {
    ForwardScratch w(sh);
#pragma omp for schedule(static)
    for (int bh = 0; bh < B * NH; bh++) {
      head(out, lse + static_cast<size_t>(bh) * T, qkv, bh / NH, bh % NH, sh, w);
    }
  }
}

void AttentionBackward(float* dqkv, const float* dout, const float* qkv, const float* out,
                       const float* lse, int B, int T, int C, int NH) {
  const HeadShape sh = MakeShape(T, C, NH);
  const auto head = ActiveSimd() == SimdPath::kAvx512 ? BackwardHeadAvx512 : BackwardHeadAvx2;
#pragma omp parallel
  {
    BackwardScratch w(sh);
#pragma omp for schedule(static)
    for (int bh = 0; bh < B * NH; bh++) {
      head(dqkv, dout, qkv, out, lse + static_cast<size_t>(bh) * T, bh / NH, bh % NH, sh, w);
    }
  }
}

}  // namespace preflight::train
