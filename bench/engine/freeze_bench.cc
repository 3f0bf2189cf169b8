// freeze_bench: the wall time of one training step with parts of the model frozen against a full
// step, interleaved round by round on the same model and batch, so that both see the same load
// on a shared machine. Prints the median step time of each, the measured saving next to the FLOP
// saving the shapes give (FlopsPerTokenTrainable), and the command to reproduce it.
//
//   OMP_WAIT_POLICY=passive build/bench/engine/freeze_bench --model small --threads 2
//       --freeze 'freeze:blocks=0-1@0' --rounds 7 --steps 5

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/clock.h"
#include "engine/blas.h"
#include "engine/config.h"
#include "engine/model.h"
#include "engine/optimizer.h"
#include "engine/xoshiro.h"
#include "engine/schedule.h"

namespace {

using namespace preflight::engine;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_name = "small", freeze = "freeze:blocks=0-1@0";
  int threads = 2, rounds = 7, steps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--model") {
      model_name = value;
    } else if (flag == "--freeze") {
      freeze = value;
    } else if (flag == "--threads") {
      threads = std::atoi(value.c_str());
    } else if (flag == "--rounds") {
      rounds = std::atoi(value.c_str());
    } else if (flag == "--steps") {
      steps = std::atoi(value.c_str());
    } else {
      std::fprintf(stderr, "freeze_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto config = NamedModel(model_name);
  if (!config.ok()) {
    std::fprintf(stderr, "freeze_bench: %s\n", config.status().message().c_str());
    return 2;
  }
  auto schedule = ParseSchedule(freeze, config->layers);
  if (!schedule.ok()) {
    std::fprintf(stderr, "freeze_bench: %s\n", schedule.status().message().c_str());
    return 2;
  }
  SetThreads(threads);
  const ModelConfig& c = *config;
  const Trainable frozen = schedule->Frozen(c.layers);
  Gpt full(c), part(c);
  full.InitWeights(1);
  part.InitWeights(1);
  part.SetTrainable(frozen);
  const size_t n = full.num_params();
  std::vector<float> m1(n), v1(n), m2(n), v2(n);
  const int BT = c.batch * c.context;
  std::vector<int> inputs(BT), targets(BT);
  Rng rng(5);
  for (int i = 0; i < BT; i++) {
    inputs[i] = static_cast<int>(rng.Below(256));
    targets[i] = static_cast<int>(rng.Below(256));
  }
  const AdamWConfig adam;
  auto time_steps = [&](Gpt& model, std::vector<float>& m, std::vector<float>& v, int64_t& t) {
    const double start = preflight::WallSeconds();
    for (int s = 0; s < steps; s++) {
      TrainStep(model, m.data(), v.data(), inputs.data(), targets.data(), 1e-4f, ++t, adam, 1.0f);
    }
    return (preflight::WallSeconds() - start) / steps;
  };
  int64_t t1 = 0, t2 = 0;
  time_steps(full, m1, v1, t1);  // warm-up: first touches of every buffer
  time_steps(part, m2, v2, t2);
  std::vector<double> a, b;
  for (int r = 0; r < rounds; r++) {
    // Alternate which goes first, so neither always follows the other.
    if (r % 2 == 0) {
      a.push_back(time_steps(full, m1, v1, t1));
      b.push_back(time_steps(part, m2, v2, t2));
    } else {
      b.push_back(time_steps(part, m2, v2, t2));
      a.push_back(time_steps(full, m1, v1, t1));
    }
  }
  const double flops_full = FlopsPerToken(c), flops_part = FlopsPerTokenTrainable(c, frozen);
  const double ta = Median(a), tb = Median(b);
  std::printf("model %s, %d threads, %s, median of %d interleaved rounds of %d steps\n",
              model_name.c_str(), threads, freeze.c_str(), rounds, steps);
  std::printf("  full step    %8.1f ms   %.3g FLOPs/token\n", ta * 1e3, flops_full);
  std::printf("  frozen step  %8.1f ms   %.3g FLOPs/token\n", tb * 1e3, flops_part);
  std::printf("  saving: wall %.1f%%, FLOPs %.1f%%  (wall/FLOP ratio %.2f)\n", 100 * (1 - tb / ta),
              100 * (1 - flops_part / flops_full), (1 - tb / ta) / (1 - flops_part / flops_full));
  std::printf(
      "reproduce: OMP_WAIT_POLICY=passive %s --model %s --threads %d --freeze '%s' "
      "--rounds %d --steps %d\n",
      argv[0], model_name.c_str(), threads, freeze.c_str(), rounds, steps);
  return 0;
}
