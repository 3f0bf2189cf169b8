// SGEMM at the engine's shapes, BLIS against OpenBLAS, in one process (each library is dlopen'ed
// privately, so both can be measured side by side, interleaved). Prints GFLOP/s per shape and
// thread count, median of the rounds, each round running every library once. The engine's BLAS
// choice (doc/train.md) rests on this.
//
//   build/bench/engine/sgemm_bench [--threads 1,2] [--rounds 3] [--model small]
// "engine" is the engine's Sgemm (src/engine/blas.cc): BLIS with the kernels chosen for the CPU
// (or BLIS_ARCH_TYPE's), its conventional path, threaded by one single-threaded call per slab of
// C. "engine+sup" is its peer: the same slabs through BLIS's cblas_sgemm, which takes BLIS's
// small/unpacked path where the kernels have one (haswell, zen*), the path the engine leaves out
// because it makes the bits depend on the thread count (src/engine/blas.cc, SgemmOne). Run with
// OMP_WAIT_POLICY=passive on a shared machine, as preflight train does.
// Shapes are those of one training step of the model: forward (N, OC, C), backward-data
// (N, C, OC) and backward-weight (OC, C, N) for qkv, attproj, fc, fcproj and the tied head.

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/blas.h"
#include "engine/config.h"

namespace {

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
using SetThreadsFn = void (*)(int);
using SetThreadsLongFn = void (*)(long);

struct Lib {
  std::string name;
  bool engine = false;  // preflight::engine::Sgemm: the engine's own slab threading over BLIS
  bool slabs = false;   // the engine's slabs over this library's cblas_sgemm (engine+sup)
  int threads = 1;
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;           // OpenBLAS
  SetThreadsLongFn set_threads_long = nullptr;  // BLIS (dim_t)
  void SetThreads(int n) {
    threads = n;
    if (engine) preflight::engine::SetThreads(n);
    if (slabs) {
      preflight::engine::SetThreads(n);
      if (set_threads_long) set_threads_long(1);
      return;
    }
    if (set_threads) set_threads(n);
    if (set_threads_long) set_threads_long(n);
  }
};

bool Load(const char* path, const char* name, Lib* lib) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return false;
  lib->name = name;
  lib->sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
  lib->set_threads = reinterpret_cast<SetThreadsFn>(dlsym(h, "openblas_set_num_threads"));
  lib->set_threads_long =
      reinterpret_cast<SetThreadsLongFn>(dlsym(h, "bli_thread_set_num_threads"));
  return lib->sgemm != nullptr;
}

struct Shape {
  const char* what;
  int M, N, K;
  bool ta, tb;
};

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

// The slabs src/engine/blas.cc splits a product into (its constants), each one cblas_sgemm.
void SlabsThrough(const Lib& lib, const Shape& s, const float* A, int lda, const float* B, int ldb,
                  float* C) {
  const int ta = s.ta ? kTrans : kNoTrans, tb = s.tb ? kTrans : kNoTrans;
  if (lib.threads <= 1 || 2.0 * s.M * s.N * s.K < 4e6) {
    lib.sgemm(kRowMajor, ta, tb, s.M, s.N, s.K, 1.0f, A, lda, B, ldb, 1.0f, C, s.N);
    return;
  }
  const bool split_m = s.M >= s.N;
  const int extent = split_m ? s.M : s.N;
  const int parts = lib.threads * std::clamp(extent / (128 * lib.threads), 1, 4);
  const int slab = ((extent + parts - 1) / parts + 15) / 16 * 16;
#pragma omp parallel for num_threads(lib.threads) schedule(dynamic)
  for (int p = 0; p < parts; p++) {
    const int lo = std::min(extent, p * slab), hi = std::min(extent, lo + slab);
    if (lo >= hi) continue;
    if (split_m) {
      const float* a = s.ta ? A + lo : A + static_cast<size_t>(lo) * lda;
      lib.sgemm(kRowMajor, ta, tb, hi - lo, s.N, s.K, 1.0f, a, lda, B, ldb, 1.0f,
                C + static_cast<size_t>(lo) * s.N, s.N);
    } else {
      const float* b = s.tb ? B + static_cast<size_t>(lo) * ldb : B + lo;
      lib.sgemm(kRowMajor, ta, tb, s.M, hi - lo, s.K, 1.0f, A, lda, b, ldb, 1.0f, C + lo, s.N);
    }
  }
}

double Rate(const Lib& lib, const Shape& s, std::vector<float>& a, std::vector<float>& b,
            std::vector<float>& c) {
  const int lda = s.ta ? s.M : s.K, ldb = s.tb ? s.K : s.N;
  auto run = [&] {
    if (lib.engine) {
      preflight::engine::Sgemm(s.ta, s.tb, s.M, s.N, s.K, 1.0f, a.data(), lda, b.data(), ldb, 1.0f,
                               c.data(), s.N);
      return;
    }
    if (lib.slabs) {
      SlabsThrough(lib, s, a.data(), lda, b.data(), ldb, c.data());
      return;
    }
    lib.sgemm(kRowMajor, s.ta ? kTrans : kNoTrans, s.tb ? kTrans : kNoTrans, s.M, s.N, s.K, 1.0f,
              a.data(), lda, b.data(), ldb, 1.0f, c.data(), s.N);
  };
  run();
  const double flops = 2.0 * s.M * s.N * s.K;
  int reps = std::max(1, static_cast<int>(2e9 / flops));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; i++) run();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return flops * reps / sec / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads = {1, 2};
  int rounds = 3;
  std::string model = "small";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (k == "--model") model = argv[i + 1];
    if (k == "--threads") {
      threads.clear();
      for (char* p = argv[i + 1]; *p;) {
        threads.push_back(static_cast<int>(std::strtol(p, &p, 10)));
        if (*p == ',') p++;
      }
    }
  }
  auto cfg = preflight::engine::NamedModel(model);
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s\n", cfg.status().message().c_str());
    return 2;
  }
  const int N = cfg->batch * cfg->context, C = cfg->d_model, V = cfg->vocab;
  const std::vector<Shape> shapes = {
      {"qkv fwd", N, 3 * C, C, false, true},
      {"qkv bwd-data", N, C, 3 * C, false, false},
      {"qkv bwd-weight", 3 * C, C, N, true, false},
      {"attproj fwd", N, C, C, false, true},
      {"fc fwd", N, 4 * C, C, false, true},
      {"fc bwd-data", N, C, 4 * C, false, false},
      {"fc bwd-weight", 4 * C, C, N, true, false},
      {"fcproj fwd", N, C, 4 * C, false, true},
      {"fcproj bwd-weight", C, 4 * C, N, true, false},
      {"head fwd", N, V, C, false, true},
      {"head bwd-weight", V, C, N, true, false},
  };
  // Let the engine pick BLIS's kernels before anything initialises BLIS (src/engine/blas.cc).
  preflight::engine::SetThreads(1);
  std::vector<Lib> libs;
  Lib lib;
  if (Load("/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4", "BLIS", &lib)) {
    libs.push_back(lib);
    lib.name = "engine+sup";
    lib.slabs = true;
    libs.push_back(lib);
    lib = Lib();
  }
  if (Load("/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", "OpenBLAS", &lib)) {
    libs.push_back(lib);
  }
  Lib engine;
  engine.name = "engine";
  engine.engine = true;
  libs.push_back(engine);
  std::printf(
      "SGEMM GFLOP/s at model %s's shapes (row-major, median of %d interleaved rounds; "
      "BLIS kernels: %s)\n",
      model.c_str(), rounds, preflight::engine::BlasKernels().c_str());
  std::printf("%-18s %14s", "shape", "M,N,K");
  for (int t : threads) {
    for (const Lib& l : libs) std::printf(" %9s %dT", l.name.c_str(), t);
  }
  std::printf("\n");
  std::vector<double> flop_weighted(libs.size() * threads.size(), 0.0);
  double total_flops = 0;
  for (const Shape& s : shapes) {
    std::vector<float> a(static_cast<size_t>(s.M) * s.K, 0.01f),
        b(static_cast<size_t>(s.K) * s.N, 0.02f);
    std::vector<float> c(static_cast<size_t>(s.M) * s.N, 0.0f);
    std::printf("%-18s %5d,%4d,%4d", s.what, s.M, s.N, s.K);
    size_t col = 0;
    const double flops = 2.0 * s.M * s.N * s.K;
    total_flops += flops;
    for (int t : threads) {
      std::vector<std::vector<double>> r(libs.size());
      for (int round = 0; round < rounds; round++) {
        for (size_t i = 0; i < libs.size(); i++) {
          libs[i].SetThreads(t);
          r[i].push_back(Rate(libs[i], s, a, b, c));
        }
      }
      for (std::vector<double>& rates : r) {
        std::sort(rates.begin(), rates.end());
        const double med = rates[rates.size() / 2];
        flop_weighted[col++] += flops / med;  // seconds-like: harmonic mean by FLOPs
        std::printf(" %12.1f", med);
      }
    }
    std::printf("\n");
  }
  std::printf("%-33s", "all shapes (FLOP-weighted)");
  for (double w : flop_weighted) std::printf(" %12.1f", total_flops / w);
  std::printf("\n");
  return 0;
}
