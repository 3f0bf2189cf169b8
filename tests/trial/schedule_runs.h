#pragma once
// Hand-made schedule runs shared by the trial, report and golden tests.

#include <cstdint>
#include <vector>

#include "trial/schedule_metrics.h"

namespace preflight::trial::testing {

// A run evaluated at steps 0,10,... (one eval per bpb value) whose steps cost `full` FLOPs until
// `frozen_at` and `frozen` after; core-seconds and wall seconds are FLOPs / 1000 and / 2000
// times core_scale and wall_scale; the trigger costs trigger_flops (and / 1000, / 2000).
inline ScheduleRun MakeRun(uint64_t seed, std::vector<double> bpb, double full, double frozen,
                           int64_t frozen_at, double trigger_flops = 0, double core_scale = 1,
                           double wall_scale = 1) {
  ScheduleRun r;
  r.seed = seed;
  double flops = 0;
  for (size_t i = 0; i < bpb.size(); ++i) {
    const int64_t step = static_cast<int64_t>(i) * 10;
    r.curve.steps.push_back(step);
    r.curve.bpb.push_back(bpb[i]);
    r.flops.push_back(flops);
    r.core_seconds.push_back(flops / 1000 * core_scale);
    r.train_seconds.push_back(flops / 2000 * wall_scale);
    for (int s = 0; s < 10; ++s) flops += (frozen_at >= 0 && step + s >= frozen_at) ? frozen : full;
  }
  r.steps = r.curve.steps.back();
  r.frozen_at = frozen_at;
  r.trigger_flops = trigger_flops;
  r.trigger_core_seconds = trigger_flops / 1000;
  r.trigger_seconds = trigger_flops / 2000;
  return r;
}

}  // namespace preflight::trial::testing
