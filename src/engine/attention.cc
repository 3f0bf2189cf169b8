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

#include "engine/kernels.h"
#include "engine/simd.h"

namespace preflight::engine {
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
  // Plain loops, not memcpy: a library call per 128-byte row was a fifth of the attention time.
  for (int t = 0; t < s.T; t++) {
    for (int i = 0; i < s.hs; i++) rows[t * s.hsp + i] = src[t * ld + i];
  }
}
// cols (hsp, Tp) = src[t, 0:hs] transposed.
void GatherCols(float* cols, const float* src, size_t ld, const HeadShape& s) {
  for (int t = 0; t < s.T; t++) {
    for (int i = 0; i < s.hs; i++) cols[i * s.Tp + t] = src[t * ld + i];
  }
}

// Scales one score row by `scale`, masks entries c..kTile-1 (to the lowest float; ExpRow zeroes
// them), and returns its maximum over the first c entries, c >= 1. Lane-wise maxima over whole
// vectors (the maximum itself is exact whatever the order).
template <int W>
[[gnu::always_inline]] inline float ScaleAndMax(float* row, int c, float scale) {
  using V = typename simd::Vec<W>::V;
  for (int j = 0; j < kTile; j++) row[j] *= scale;
  for (int j = c; j < kTile; j++) row[j] = std::numeric_limits<float>::lowest();
  V lanes, x;
  simd::Load<W>(lanes, row);
  for (int j0 = W; j0 < kTile; j0 += W) {
    simd::Load<W>(x, row + j0);
    lanes = lanes > x ? lanes : x;
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

// A matrix operand in place: row r at p + r * ld.
struct View {
  const float* p;
  size_t ld;
};
struct OutView {
  float* p;
  size_t ld;
};

// Scratch per thread for one head: q, v (Tp, hsp) (used only when hs is not a multiple of kTile;
// otherwise q and v are read in place from qkv); kt (hsp, Tp); o (kTile, hsp); s (kTile^2);
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
[[gnu::always_inline]] inline void ForwardTile(OutView out, float* lse, View q, View v, int t0,
                                               int rows, const HeadShape& sh, ForwardScratch& w) {
  const int hsp = sh.hsp;
  std::fill(w.o.begin(), w.o.end(), 0.0f);
  std::fill(w.m.begin(), w.m.end(), std::numeric_limits<float>::lowest());
  std::fill(w.l.begin(), w.l.end(), 0.0f);
  for (int s0 = 0; s0 < t0 + rows; s0 += kTile) {
    const int nk = std::min(kTile, sh.T - s0);
    simd::SmallGemm<W>(w.s.data(), kTile, q.p + t0 * q.ld, q.ld, 1, w.kt.data() + s0, sh.Tp, rows,
                       kTile, hsp, false);
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
    simd::SmallGemm<W>(w.o.data(), hsp, w.s.data(), kTile, 1, v.p + s0 * v.ld, v.ld, rows, hsp, nk,
                       true);
  }
  for (int r = 0; r < rows; r++) {
    const float inv = 1.0f / w.l[r];
    float* dst = out.p + (t0 + r) * out.ld;
    const float* o = w.o.data() + r * hsp;
    for (int i = 0; i < sh.hs; i++) dst[i] = o[i] * inv;
    lse[t0 + r] = w.m[r] + std::log(w.l[r]);
  }
}

// Whether q, k, v (and their gradients) can be used in place in the packed layout: the small
// GEMMs need rows of a multiple of kTile floats where the head channels are the output dimension.
bool InPlace(const HeadShape& sh) { return sh.hs == sh.hsp; }

template <int W>
[[gnu::always_inline]] inline void ForwardHead(float* out, float* lse, const float* qkv, int b,
                                               int h, const HeadShape& sh, ForwardScratch& w) {
  const size_t C3 = 3 * static_cast<size_t>(sh.C);
  const float* base = qkv + b * sh.T * C3 + h * sh.hs;
  View q{base, C3}, v{base + 2 * sh.C, C3};
  if (!InPlace(sh)) {
    GatherRows(w.q.data(), base, C3, sh);
    GatherRows(w.v.data(), base + 2 * sh.C, C3, sh);
    q = {w.q.data(), static_cast<size_t>(sh.hsp)};
    v = {w.v.data(), static_cast<size_t>(sh.hsp)};
  }
  GatherCols(w.kt.data(), base + sh.C, C3, sh);
  const OutView o{out + static_cast<size_t>(b) * sh.T * sh.C + h * sh.hs,
                  static_cast<size_t>(sh.C)};
  for (int t0 = 0; t0 < sh.T; t0 += kTile) {
    ForwardTile<W>(o, lse, q, v, t0, std::min(kTile, sh.T - t0), sh, w);
  }
}

// Scratch per thread for one head's backward: q, k, dout, dq, dk, dv (Tp, hsp) (only when hs is
// not a multiple of kTile); kt, vt (hsp, Tp); p, ds (kTile^2); delta (Tp).
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

// One head's operands for the backward: inputs q, k, dout and outputs dq, dk, dv.
struct BackwardViews {
  View q, k, dout;
  OutView dq, dk, dv;
};

// The backward of one (query tile, key tile) pair, restating the forward p = e^(scale q kᵀ -
// lse), o = p v:  dp = dout vᵀ; ds = p (dp - delta) scale with delta = rowsum(dout * o);
// dv += pᵀ dout; dq += ds k; dk += dsᵀ q. Tiles are visited query tile by query tile, key tiles
// from 0 to the diagonal: dq's first term is at key tile 0, dk's and dv's at the diagonal; those
// overwrite, the rest accumulate.
template <int W>
[[gnu::always_inline]] inline void BackwardTilePair(const BackwardViews& x, const float* lse,
                                                    int t0, int rows, int s0, const HeadShape& sh,
                                                    BackwardScratch& w) {
  const int hsp = sh.hsp, nk = std::min(kTile, sh.T - s0);
  simd::SmallGemm<W>(w.p.data(), kTile, x.q.p + t0 * x.q.ld, x.q.ld, 1, w.kt.data() + s0, sh.Tp,
                     rows, kTile, hsp, false);
  simd::SmallGemm<W>(w.ds.data(), kTile, x.dout.p + t0 * x.dout.ld, x.dout.ld, 1, w.vt.data() + s0,
                     sh.Tp, rows, kTile, hsp, false);
  for (int r = 0; r < rows; r++) {
    float* p = w.p.data() + r * kTile;
    float* ds = w.ds.data() + r * kTile;
    const int c = std::min(nk, t0 + r - s0 + 1);
    const float shift = lse[t0 + r], delta = w.delta[t0 + r];
    for (int j = 0; j < kTile; j++) p[j] = simd::Exp(p[j] * sh.scale - shift);
    for (int j = c; j < kTile; j++) p[j] = 0.0f;
    for (int j = 0; j < kTile; j++) ds[j] = p[j] * (ds[j] - delta) * sh.scale;
  }
  const bool diagonal = s0 == t0;
  simd::SmallGemm<W>(x.dv.p + s0 * x.dv.ld, x.dv.ld, w.p.data(), 1, kTile,
                     x.dout.p + t0 * x.dout.ld, x.dout.ld, nk, hsp, rows, !diagonal);
  simd::SmallGemm<W>(x.dq.p + t0 * x.dq.ld, x.dq.ld, w.ds.data(), kTile, 1, x.k.p + s0 * x.k.ld,
                     x.k.ld, rows, hsp, nk, s0 != 0);
  simd::SmallGemm<W>(x.dk.p + s0 * x.dk.ld, x.dk.ld, w.ds.data(), 1, kTile, x.q.p + t0 * x.q.ld,
                     x.q.ld, nk, hsp, rows, !diagonal);
}

// The views of one head: in place in qkv, dout and dqkv, or gathered into the scratch.
BackwardViews MakeBackwardViews(float* dqkv, const float* dout, const float* qkv, int b, int h,
                                const HeadShape& sh, BackwardScratch& w) {
  const size_t C3 = 3 * static_cast<size_t>(sh.C), bt = static_cast<size_t>(b) * sh.T;
  const float* base = qkv + bt * C3 + h * sh.hs;
  const float* dbase = dout + bt * sh.C + h * sh.hs;
  float* d = dqkv + bt * C3 + h * sh.hs;
  if (InPlace(sh)) {
    return {{base, C3}, {base + sh.C, C3}, {dbase, static_cast<size_t>(sh.C)},
            {d, C3},    {d + sh.C, C3},    {d + 2 * sh.C, C3}};
  }
  GatherRows(w.q.data(), base, C3, sh);
  GatherRows(w.k.data(), base + sh.C, C3, sh);
  GatherRows(w.dout.data(), dbase, sh.C, sh);
  const size_t hsp = sh.hsp;
  return {{w.q.data(), hsp},  {w.k.data(), hsp},  {w.dout.data(), hsp},
          {w.dq.data(), hsp}, {w.dk.data(), hsp}, {w.dv.data(), hsp}};
}

template <int W>
[[gnu::always_inline]] inline void BackwardHead(float* dqkv, const float* dout, const float* qkv,
                                                const float* out, const float* lse, int b, int h,
                                                const HeadShape& sh, BackwardScratch& w) {
  const size_t C3 = 3 * static_cast<size_t>(sh.C), bt = static_cast<size_t>(b) * sh.T;
  const float* base = qkv + bt * C3 + h * sh.hs;
  const float* dbase = dout + bt * sh.C + h * sh.hs;
  const float* obase = out + bt * sh.C + h * sh.hs;
  const BackwardViews x = MakeBackwardViews(dqkv, dout, qkv, b, h, sh, w);
  GatherCols(w.kt.data(), base + sh.C, C3, sh);
  GatherCols(w.vt.data(), base + 2 * sh.C, C3, sh);
  for (int t = 0; t < sh.T; t++) {
    float sum = 0.0f;
    for (int i = 0; i < sh.hs; i++) sum += dbase[t * sh.C + i] * obase[t * sh.C + i];
    w.delta[t] = sum;
  }
  for (int t0 = 0; t0 < sh.T; t0 += kTile) {
    const int rows = std::min(kTile, sh.T - t0);
    for (int s0 = 0; s0 < t0 + rows; s0 += kTile) BackwardTilePair<W>(x, lse, t0, rows, s0, sh, w);
  }
  if (InPlace(sh)) return;
  float* d = dqkv + bt * C3 + h * sh.hs;
  for (int t = 0; t < sh.T; t++) {
    for (int i = 0; i < sh.hs; i++) {
      d[t * C3 + i] = w.dq[t * sh.hsp + i];
      d[t * C3 + sh.C + i] = w.dk[t * sh.hsp + i];
      d[t * C3 + 2 * sh.C + i] = w.dv[t * sh.hsp + i];
    }
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
#pragma omp for schedule(dynamic)
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
#pragma omp for schedule(dynamic)
    for (int bh = 0; bh < B * NH; bh++) {
      head(dqkv, dout, qkv, out, lse + static_cast<size_t>(bh) * T, bh / NH, bh % NH, sh, w);
    }
  }
}

}  // namespace preflight::engine
