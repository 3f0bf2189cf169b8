#pragma once
// Helpers shared by the train tests: seeded random tensors, error measures, synthetic documents.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

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

}  // namespace preflight::engine::testing
