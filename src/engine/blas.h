#pragma once
// The engine's one door to a BLAS (BLIS or OpenBLAS, chosen at configure time: doc/train.md says
// which and why). Row-major single precision only. SgemmReference is the plain triple loop kept
// beside it as the reference in tests and the statement of what Sgemm computes.

namespace preflight::engine {

// C (M x N) = alpha * op(A) * op(B) + beta * C, row-major; op(X) = X or X^T.
// A is M x K (K x M when trans_a), B is K x N (N x K when trans_b); lda/ldb/ldc are row strides.
void Sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc);
void SgemmReference(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                    int lda, const float* B, int ldb, float beta, float* C, int ldc);

// Sets the threads of the engine's OpenMP loops and of Sgemm, which splits a large product into
// single-threaded BLAS calls on slabs of C, handed out to the threads dynamically (results are
// bit-identical for any thread count).
// For the calling thread (OpenMP's thread count is a per-thread setting, and so is Sgemm's), so
// runs trained side by side on threads of one process each keep their own; call it outside any
// parallel region.
void SetThreads(int threads);
// "BLIS" or "OpenBLAS".
const char* BlasName();

}  // namespace preflight::engine
