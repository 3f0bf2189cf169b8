// step_bench: the engine's training-step rate for one model, as train_bench.py compares it with
// PyTorch: warm-up steps first (first touches of every buffer, the BLAS's own set-up), then the
// timed steps, exactly as Train takes them (TrainStep: forward, backward, clipping, AdamW).
// Prints one JSON line: tokens/s over the timed steps (wall), CPU seconds per step, GFLOP/s by
// the FLOP convention of doc/train.md, and the vector path the kernels ran.
//
//   OMP_WAIT_POLICY=passive build/bench/engine/step_bench --model small --threads 2 --steps 15

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/clock.h"
#include "engine/blas.h"
#include "engine/config.h"
#include "engine/model.h"
#include "engine/optimizer.h"
#include "engine/xoshiro.h"
#include "engine/simd.h"

namespace {

using namespace preflight::engine;

struct Options {
  std::string model = "small";
  int threads = 2, steps = 15, warmup = 3;
};

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--model") {
      o->model = value;
    } else if (flag == "--threads") {
      o->threads = std::atoi(value.c_str());
    } else if (flag == "--steps") {
      o->steps = std::atoi(value.c_str());
    } else if (flag == "--warmup") {
      o->warmup = std::atoi(value.c_str());
    } else {
      std::fprintf(stderr, "step_bench: unknown flag %s\n", flag.c_str());
      return false;
    }
  }
  return o->steps > 0 && o->threads > 0 && o->warmup >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) return 2;
  auto config = NamedModel(o.model);
  if (!config.ok()) {
    std::fprintf(stderr, "step_bench: %s\n", config.status().message().c_str());
    return 2;
  }
  SetThreads(o.threads);
  const ModelConfig& c = *config;
  Gpt model(c);
  model.InitWeights(1);
  const size_t n = model.num_params();
  std::vector<float> m(n), v(n);
  const int BT = c.batch * c.context;
  std::vector<int> inputs(BT), targets(BT);
  Rng rng(5);
  const AdamWConfig adam;
  int64_t t = 0;
  auto step = [&] {
    for (int i = 0; i < BT; i++) {
      inputs[i] = static_cast<int>(rng.Below(c.vocab));
      targets[i] = static_cast<int>(rng.Below(c.vocab));
    }
    TrainStep(model, m.data(), v.data(), inputs.data(), targets.data(), 1e-4f, ++t, adam, 1.0f);
  };
  for (int s = 0; s < o.warmup; s++) step();
  const double wall0 = preflight::WallSeconds(), cpu0 = preflight::ProcessCpuSeconds();
  for (int s = 0; s < o.steps; s++) step();
  const double wall = preflight::WallSeconds() - wall0;
  const double cpu = preflight::ProcessCpuSeconds() - cpu0;
  const double tokens = static_cast<double>(o.steps) * BT;
  std::printf(
      "{\"model\":\"%s\",\"threads\":%d,\"steps\":%d,\"warmup\":%d,\"tokens_per_second\":%.1f,"
      "\"cpu_seconds_per_step\":%.5f,\"gflops\":%.2f,\"simd\":\"%s\"}\n",
      o.model.c_str(), o.threads, o.steps, o.warmup, tokens / wall, cpu / o.steps,
      tokens * FlopsPerToken(c) / wall / 1e9, SimdName(ActiveSimd()));
  return 0;
}
