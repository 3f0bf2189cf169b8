#pragma once
// Helpers shared by the train tests: seeded random tensors, error measures, synthetic documents,
// and whether the kernels a test is asked to run can run here.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/blas.h"
#include "engine/xoshiro.h"

namespace preflight::engine::testing {

inline std::vector<float> RandomVector(size_t n, Rng& rng, float scale = 1.0f) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.Normal()) * scale;
  return v;
}

// max |a - b| / max |b|: the error relative to the tensor's scale.
inline double ScaledMaxDiff(const float* a, const float* b, size_t n) {
  double diff = 0, scale = 1e-12;
  for (size_t i = 0; i < n; i++) {
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  return diff / scale;
}
inline double ScaledMaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  return ScaledMaxDiff(a.data(), b.data(), std::min(a.size(), b.size()));
}

// Documents with learnable structure: words from a small vocabulary, seeded.
inline std::vector<std::string> SyntheticDocs(int count, uint64_t seed, int words_per_doc = 40) {
  static const char* kWords[] = {"the", "cat", "sat",  "on",   "a",    "mat", "and", "dog",
                                 "ran", "far", "away", "from", "home", "to",  "sea", "blue"};
  Rng rng(seed);
  std::vector<std::string> docs;
  for (int d = 0; d < count; d++) {
    std::string text;
    for (int w = 0; w < words_per_doc; w++) {
      if (w) text += ' ';
      text += kWords[rng.Below(16)];
    }
    docs.push_back(text);
  }
  return docs;
}

// An empty path under the test tree for a run folder (removed if a previous run left it).
inline std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/" + name;
  std::system(("rm -rf " + dir).c_str());
  return dir;
}

// The training and eval documents the engine tests share.
inline const std::vector<std::string>& TrainDocs() {
  static const auto docs = SyntheticDocs(40, 1);
  return docs;
}
inline const std::vector<std::string>& EvalDocs() {
  static const auto docs = SyntheticDocs(3, 2);
  return docs;
}

// tests/engine/CMakeLists.txt runs the product and thread-count tests once per BLIS kernel
// family (BlisKernels.<family>, with BLIS_ARCH_TYPE=<family>). Why this CPU cannot run the family
// asked for ("" when it can, or when none or an unknown one is asked for). A test checks it
// before its first product: BLIS picks its kernels once, at its first call, and another family's
// instructions would stop the process.
// BLIS_ARCH_TYPE as the test process found it, before the engine turned a name into BLIS's
// number ("" when unset).
inline const std::string kAskedKernels = [] {
  const char* asked = std::getenv("BLIS_ARCH_TYPE");
  return std::string(asked == nullptr ? "" : asked);
}();

inline std::string AskedKernelsCannotRun() {
  const std::string& family = kAskedKernels;
  auto lacks = [&](std::initializer_list<bool> features) {
    for (bool has : features) {
      if (!has) return "this CPU cannot run BLIS's " + family + " kernels";
    }
    return std::string();
  };
  if (family == "skx") {
    return lacks({__builtin_cpu_supports("avx512f") != 0, __builtin_cpu_supports("avx512dq") != 0,
                  __builtin_cpu_supports("avx512bw") != 0, __builtin_cpu_supports("avx512vl") != 0,
                  __builtin_cpu_supports("avx512cd") != 0});
  }
  if (family == "haswell" || family == "zen" || family == "zen2" || family == "zen3") {
    return lacks({__builtin_cpu_supports("avx2") != 0, __builtin_cpu_supports("fma") != 0});
  }
  if (family == "sandybridge") return lacks({__builtin_cpu_supports("avx") != 0});
  if (family == "penryn") return lacks({__builtin_cpu_supports("ssse3") != 0});
  return "";
}

// Why the bits of products and curves may depend on the thread count here ("" where they must
// not): the kernels asked for cannot run, or the BLAS is OpenBLAS (src/engine/blas.h).
inline std::string ThreadCountMayChangeBits() {
  if (std::string(BlasName()) == "OpenBLAS") {
    return "OpenBLAS sums a slab's elements in another order than the whole's (engine/blas.h)";
  }
  return AskedKernelsCannotRun();
}

}  // namespace preflight::engine::testing
