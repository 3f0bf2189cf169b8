#include "engine/blas.h"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#if defined(PREFLIGHT_BLAS_BLIS)
#include <blis.h>  // cblas.h of the BLIS package, and bli_thread_set_num_threads
#elif defined(PREFLIGHT_BLAS_OPENBLAS)
#include <cblas.h>
#else
#error "configure with a BLAS (cmake/Dependencies.cmake defines PREFLIGHT_BLAS_*)"
#endif

namespace preflight::engine {
namespace {

// The engine threads GEMMs itself (single-threaded BLAS calls on slabs of C) rather than through
// the BLAS's own pool: BLIS's pool synchronises by pure spinning and collapses (to a tenth of
// its speed, measured) when the machine is shared and a thread is descheduled, and one OpenMP
// pool for everything avoids two pools fighting over two cores.
// Per calling thread: runs trained side by side in one process each set their own (a run on one
// thread beside another, trial/concurrent_runs.h).
thread_local int g_threads = 1;
std::mutex g_set_threads;               // the BLAS's thread setting is process-wide
constexpr double kMinSplitFlops = 4e6;  // below this, one thread is faster than a fork-join
constexpr int kSlabsPerThread = 4;
constexpr int kMinSlab = 128;

#if defined(PREFLIGHT_BLAS_BLIS)
// Debian's BLIS 0.9 does not recognise AMD Zen 4 (AVX-512) and falls back to its 'generic'
// kernels at about 20 GFLOP/s per core, a third of what its 'skx' (AVX-512) or 'haswell' (AVX2)
// kernels reach on the same CPU (bench/engine/sgemm_bench; doc/train.md). Before BLIS's first
// call, point it at the kernels the CPU can run, unless the user chose with BLIS_ARCH_TYPE.
// BLIS 0.9 reads BLIS_ARCH_TYPE as a number (its arch_t) and takes a name such as "zen3" for 0,
// skx, without a word; a family's name is turned into its number here, so either works.
void ChooseBlisKernels() {
  if (const char* chosen = std::getenv("BLIS_ARCH_TYPE"); chosen != nullptr) {
    for (int id = 0; id < BLIS_NUM_ARCHS; id++) {
      if (std::strcmp(chosen, bli_arch_string(static_cast<arch_t>(id))) == 0) {
        setenv("BLIS_ARCH_TYPE", std::to_string(id).c_str(), 1);
        break;
      }
    }
    return;
  }
  int arch = -1;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    arch = BLIS_ARCH_SKX;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    arch = __builtin_cpu_is("amd") ? BLIS_ARCH_ZEN3 : BLIS_ARCH_HASWELL;
  }
  if (arch >= 0) setenv("BLIS_ARCH_TYPE", std::to_string(arch).c_str(), 0);
}
#endif

void ConfigureOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(PREFLIGHT_BLAS_BLIS)
    ChooseBlisKernels();
#endif
  });
}

// One single-threaded product on the calling thread. Through BLIS it leaves out BLIS's
// "small/unpacked" (sup) path: the haswell and zen kernel families (not skx, sandybridge, penryn
// or generic) take it below a size threshold, and there it picks its algorithm and kernels from
// the call's shape (which of m and n has more micro-panels; a lone column), so an element of a
// slab can be summed in another order than the same element of the whole product. BLIS's
// conventional path packs both operands and sums every element of C over k in the same order
// wherever it sits, which is what makes the slabs of Sgemm independent of their number.
void SgemmOne(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
              const float* B, int ldb, float beta, float* C, int ldc) {
#if defined(PREFLIGHT_BLAS_BLIS)
  if (M == 0 || N == 0 || K == 0) {  // BLIS refuses the zero strides such shapes come with
    SgemmReference(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  rntm_t rntm = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &rntm);
  bli_rntm_disable_l3_sup(&rntm);
  // Row-major: row stride ld, column stride 1; BLIS's typed API takes no const operands.
  bli_sgemm_ex(trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
               trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, M, N, K, &alpha, const_cast<float*>(A),
               lda, 1, const_cast<float*>(B), ldb, 1, &beta, C, ldc, 1, nullptr, &rntm);
#else
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
}

}  // namespace

void Sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc) {
  ConfigureOnce();
  const int threads = g_threads;
  if (threads <= 1 || 2.0 * M * N * K < kMinSplitFlops) {
    SgemmOne(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  // Split the larger of M and N into contiguous slabs, each an ordinary single-threaded GEMM.
  // SgemmOne sums every element of C over K in the same order wherever it sits, so the result
  // does not depend on the number of slabs (tests/engine checks it under each BLIS kernel family
  // the CPU can run). Up to kSlabsPerThread slabs per thread, handed out dynamically, so that a
  // thread the OS descheduled on a busy machine leaves its share to the others; but no slab
  // under kMinSlab rows, since every slab packs the whole other operand.
  const bool split_m = M >= N;
  const int extent = split_m ? M : N;
  const int per_thread = std::clamp(extent / (kMinSlab * threads), 1, kSlabsPerThread);
  const int parts = threads * per_thread;
  const int slab = ((extent + parts - 1) / parts + 15) / 16 * 16;
#pragma omp parallel for num_threads(threads) schedule(dynamic)
  for (int p = 0; p < parts; p++) {
    const int lo = std::min(extent, p * slab), hi = std::min(extent, lo + slab);
    if (lo >= hi) continue;
    if (split_m) {
      const float* a = trans_a ? A + lo : A + static_cast<size_t>(lo) * lda;
      SgemmOne(trans_a, trans_b, hi - lo, N, K, alpha, a, lda, B, ldb, beta,
               C + static_cast<size_t>(lo) * ldc, ldc);
    } else {
      const float* b = trans_b ? B + static_cast<size_t>(lo) * ldb : B + lo;
      SgemmOne(trans_a, trans_b, M, hi - lo, K, alpha, A, lda, b, ldb, beta, C + lo, ldc);
    }
  }
}

void SgemmReference(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                    int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      float sum = 0.0f;
      for (int k = 0; k < K; k++) {
        const float a = trans_a ? A[k * lda + i] : A[i * lda + k];
        const float b = trans_b ? B[j * ldb + k] : B[k * ldb + j];
        sum += a * b;
      }
      float& c = C[i * ldc + j];
      c = alpha * sum + (beta == 0.0f ? 0.0f : beta * c);
    }
  }
}

void SetThreads(int threads) {
  if (threads < 1) threads = 1;
  ConfigureOnce();
  std::lock_guard<std::mutex> lock(g_set_threads);
  omp_set_dynamic(0);  // the team size must be exactly `threads` for reproducible partitions
  omp_set_num_threads(threads);
  g_threads = threads;
#if defined(PREFLIGHT_BLAS_BLIS)
  bli_thread_set_num_threads(1);
#else
  openblas_set_num_threads(1);
#endif
}

std::string BlasKernels() {
  ConfigureOnce();
#if defined(PREFLIGHT_BLAS_BLIS)
  bli_init();  // the query checks the id against BLIS's kernel registry, filled by bli_init
  return bli_arch_string(bli_arch_query_id());
#else
  return openblas_get_corename();
#endif
}

const char* BlasName() {
#if defined(PREFLIGHT_BLAS_BLIS)
  return "BLIS";
#else
  return "OpenBLAS";
#endif
}

}  // namespace preflight::engine
