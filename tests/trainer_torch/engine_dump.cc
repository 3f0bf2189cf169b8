// Prints the engine's own numbers for tests/trainer_torch/trainer_torch_test.py to hold the
// Python port (src/trainer/torch/engine.py) to, one value per line:
//   engine_dump next SEED COUNT            Rng(SEED).Next()
//   engine_dump below SEED N COUNT         Rng(SEED).Below(N)
//   engine_dump normal SEED COUNT          Rng(SEED).Normal(), as %a (exact)
//   engine_dump windows N T MAX            MakeEvalWindows(N, T, MAX): "start first_counted"
//   engine_dump lr STEPS WARMUP LR RATIO   LearningRate(step, ...) for step 0..STEPS, as %a
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/data.h"
#include "engine/optimizer.h"
#include "engine/xoshiro.h"

namespace {

uint64_t Arg(char** argv, int i) { return std::strtoull(argv[i], nullptr, 10); }

int Usage() {
  std::fprintf(stderr, "usage: engine_dump next|below|normal|windows|lr ARGS...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using preflight::engine::Rng;
  if (argc < 2) return Usage();
  const std::string what = argv[1];
  if (what == "next" && argc == 4) {
    Rng rng(Arg(argv, 2));
    for (uint64_t i = 0; i < Arg(argv, 3); i++)
      std::printf("%llu\n", (unsigned long long)rng.Next());
  } else if (what == "below" && argc == 5) {
    Rng rng(Arg(argv, 2));
    for (uint64_t i = 0; i < Arg(argv, 4); i++) {
      std::printf("%llu\n", (unsigned long long)rng.Below(Arg(argv, 3)));
    }
  } else if (what == "normal" && argc == 4) {
    Rng rng(Arg(argv, 2));
    for (uint64_t i = 0; i < Arg(argv, 3); i++) std::printf("%a\n", rng.Normal());
  } else if (what == "windows" && argc == 5) {
    const auto windows = preflight::engine::MakeEvalWindows(static_cast<int64_t>(Arg(argv, 2)),
                                                           static_cast<int>(Arg(argv, 3)),
                                                           static_cast<int64_t>(Arg(argv, 4)));
    for (const auto& w : windows) std::printf("%lld %d\n", (long long)w.start, w.first_counted);
  } else if (what == "lr" && argc == 6) {
    const int64_t steps = static_cast<int64_t>(Arg(argv, 2));
    for (int64_t s = 0; s <= steps; s++) {
      std::printf("%a\n", static_cast<double>(preflight::engine::LearningRate(
                              s, steps, static_cast<int64_t>(Arg(argv, 3)),
                              std::strtof(argv[4], nullptr), std::strtof(argv[5], nullptr))));
    }
  } else {
    return Usage();
  }
  return 0;
}
