#include "engine/simd.h"

#include <cstdlib>
#include <cstring>

namespace preflight::engine {
namespace {

bool CpuHasAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}

SimdPath Detect() {
  const char* forced = std::getenv("PREFLIGHT_SIMD");
  if (forced != nullptr && std::strcmp(forced, "avx2") == 0) return SimdPath::kAvx2;
  return CpuHasAvx512() ? SimdPath::kAvx512 : SimdPath::kAvx2;
}

SimdPath& Path() {
  static SimdPath path = Detect();
  return path;
}

}  // namespace

SimdPath ActiveSimd() { return Path(); }

bool ForceSimd(SimdPath path) {
  if (path == SimdPath::kAvx512 && !CpuHasAvx512()) return false;
  Path() = path;
  return true;
}

const char* SimdName(SimdPath path) { return path == SimdPath::kAvx512 ? "avx512" : "avx2"; }

}  // namespace preflight::engine
