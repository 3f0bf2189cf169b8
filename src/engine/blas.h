#pragma once
// The engine's one door to a BLAS (BLIS or OpenBLAS, chosen at configure time: doc/train.md says
// which and why). Row-major single precision only. SgemmReference is the plain triple loop kept
// beside it as the reference in tests and the statement of what Sgemm computes.

#include <string>

namespace preflight::engine {

// C (M x N) = alpha * op(A) * op(B) + beta * C, row-major; op(X) = X or X^T.
// A is M x K (K x M when trans_a), B is K x N (N x K when trans_b); lda/ldb/ldc are row strides.
void Sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc);
void SgemmReference(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                    int lda, const float* B, int ldb, float beta, float* C, int ldc);

// Sets the threads of the engine's OpenMP loops and of Sgemm, which splits a large product into
// single-threaded BLAS calls on slabs of C, handed out to the threads dynamically. Through BLIS
// the results are bit-identical for any thread count, under every kernel family (blas.cc,
// SgemmOne; tests/engine runs the check once per family the CPU can run). Through OpenBLAS they
// are not: its kernels sum a slab's elements in another order than the whole's on some shapes
// (most shapes on its Haswell and Zen kernels), so an OpenBLAS build's curves may change with
// the thread count.
// For the calling thread (OpenMP's thread count is a per-thread setting, and so is Sgemm's), so
// runs trained side by side on threads of one process each keep their own; call it outside any
// parallel region.
void SetThreads(int threads);
// "BLIS" or "OpenBLAS".
const char* BlasName();
// The BLAS's kernel family in use: BLIS's configuration ("skx", "zen3", "haswell", "generic"...:
// BLIS_ARCH_TYPE, a name or BLIS's number, else the engine's choice for the CPU) or OpenBLAS's
// core name. The bits of a product depend on it.
std::string BlasKernels();

}  // namespace preflight::engine
