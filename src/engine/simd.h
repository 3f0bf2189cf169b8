#pragma once
// The engine's vector code paths: the hot kernels are written once as templates over the vector
// width W (floats per register) and instantiated twice, an AVX2 path (W = 8, the build's own
// -mavx2 -mfma) and an AVX-512 path (W = 16, functions marked PREFLIGHT_TARGET_AVX512). The
// path is chosen once per process from the CPU (__builtin_cpu_supports); PREFLIGHT_SIMD=avx2 in
// the environment, or ForceSimd, keeps the AVX2 path. Results are deterministic per path; the
// two paths round differently (vector sums in different orders), like the BLAS kernels do.
//
// OpenMP regions stay outside the target-specific functions (GCC outlines a parallel region
// before inlining, so its body would not get the caller's target): the parallel loop calls a
// per-chunk function through the pointer of the chosen path.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace preflight::engine {

#define PREFLIGHT_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,prefer-vector-width=512")))

enum class SimdPath { kAvx2, kAvx512 };

// The path the kernels use (chosen at the first call).
SimdPath ActiveSimd();
// Tests: run the kernels on `path` (kAvx512 only where the CPU has it; returns whether it took).
bool ForceSimd(SimdPath path);
// "avx2" or "avx512".
const char* SimdName(SimdPath path);

namespace simd {

// e^x in float, written so that GCC vectorises loops that call it (libm's expf and tanhf are
// scalar calls and were a fifth of a step). Cephes' expf: x = n ln2 + r with |r| <= ln2/2 (ln2
// split in two for exactness), a degree-6 polynomial for e^r, 2^n built in the exponent bits.
// Relative error about 2e-7 on [-87, 88]; inputs outside are clamped (e^-87 ~ 1.6e-38 stands in
// for 0).
inline float Exp(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  return p * std::bit_cast<float>((static_cast<int>(n) + 127) << 23);
}

// W floats in one register; aligned(4) and may_alias make loads and stores through a float
// pointer legal at any float address. (memcpy into a vector went through the stack on the AVX2
// path: GCC's generic tuning splits 32-byte unaligned copies, and the reload stalled.)
template <int W>
struct Vec {
  typedef float V __attribute__((vector_size(4 * W), aligned(4), may_alias));
};

template <int W>
[[gnu::always_inline]] inline void Load(typename Vec<W>::V& v, const float* p) {
  v = *reinterpret_cast<const typename Vec<W>::V*>(p);
}
template <int W>
[[gnu::always_inline]] inline void Store(float* p, const typename Vec<W>::V& v) {
  *reinterpret_cast<typename Vec<W>::V*>(p) = v;
}

// C[m, n] (+)= sum_k A(m, k) B[k, n] for m < R, n < N, with A(m, k) = a[m * ars + k * acs]
// (any strides: A is read one broadcast element at a time, so a transposed A costs nothing) and
// B row-major with rows of at least N floats. N is a multiple of 2W. Every C element sums over k
// in order 0..K-1, onto its old value when `accumulate`.
template <int W, int R>
[[gnu::always_inline]] inline void GemmRows(float* c, int ldc, const float* a, int ars, int acs,
                                            const float* b, int ldb, int N, int K,
                                            bool accumulate) {
  using V = typename Vec<W>::V;
  for (int n = 0; n < N; n += 2 * W) {
    V s[R][2];
    for (int r = 0; r < R; r++) {
      if (accumulate) {
        Load<W>(s[r][0], c + r * ldc + n);
        Load<W>(s[r][1], c + r * ldc + n + W);
      } else {
        s[r][0] = V{};
        s[r][1] = V{};
      }
    }
    for (int k = 0; k < K; k++) {
      V b0, b1;
      Load<W>(b0, b + k * ldb + n);
      Load<W>(b1, b + k * ldb + n + W);
      for (int r = 0; r < R; r++) {
        const float x = a[r * ars + k * acs];
        s[r][0] += x * b0;
        s[r][1] += x * b1;
      }
    }
    for (int r = 0; r < R; r++) {
      Store<W>(c + r * ldc + n, s[r][0]);
      Store<W>(c + r * ldc + n + W, s[r][1]);
    }
  }
}

// GemmRows over M rows: four at a time (the register tile), then one at a time.
template <int W>
[[gnu::always_inline]] inline void SmallGemm(float* c, int ldc, const float* a, int ars, int acs,
                                             const float* b, int ldb, int M, int N, int K,
                                             bool accumulate) {
  int m = 0;
  for (; m + 4 <= M; m += 4) {
    GemmRows<W, 4>(c + m * ldc, ldc, a + m * ars, ars, acs, b, ldb, N, K, accumulate);
  }
  for (; m < M; m++)
    GemmRows<W, 1>(c + m * ldc, ldc, a + m * ars, ars, acs, b, ldb, N, K, accumulate);
}

}  // namespace simd
}  // namespace preflight::engine
