#pragma once
// Hand-made trials whose results and lab records were written out before the trial arithmetic
// was split into curve/bootstrap/comparison (tests/trial/golden/*.txt): the golden test checks
// that the same inputs still give the same JSON and the same lab-record text, byte for byte.

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "trial/metrics.h"
#include "trial/schedule_metrics.h"
#include "trial/schedule_runs.h"
#include "trial/trial_inputs.h"

namespace preflight::trial::golden {

// Data trials: {name, inputs}.
inline std::vector<std::pair<std::string, TrialInputs>> DataTrials() {
  std::vector<std::pair<std::string, TrialInputs>> out;
  TrialInputs in;
  Arm random{{"random", "random", ""}, {1, 2, 3, 4}, {}, 0.4};
  Arm curated{{"curated", "dsir", ""}, {1, 2, 3, 4}, {}, 41.5};
  Arm first{{"first", "first", ""}, {1, 2, 3, 4}, {}, 0.1};
  for (int s = 0; s < 4; ++s) {
    random.curves.push_back(testing::SmoothCurve(2.10 + 0.01 * s, 1.0, 0.004 * s));
    curated.curves.push_back(testing::SmoothCurve(1.98 + 0.015 * s, 1.15, 0.004 * s));
    first.curves.push_back(testing::SmoothCurve(2.25 + 0.01 * s, 1.0, 0.003 * s));
  }
  in.arms = {random, curated, first};
  in.core_seconds_per_step = 0.85;
  in.flops_per_step = 3.4e11;
  in.bootstrap.resamples = 500;
  out.push_back({"three_arms", in});
  TrialInputs paired = in;
  paired.bootstrap.paired = true;
  out.push_back({"three_arms_paired", paired});
  TrialInputs budget = in;
  budget.budget_steps = 1200;
  out.push_back({"budget_1200", budget});
  TrialInputs never = in;
  never.arms = {random, first};
  out.push_back({"never_caught_up", never});
  // Close arms: some resamples never catch up, so an interval end is "never".
  TrialInputs close = in;
  Arm close_arm{{"close", "dsir", ""}, {1, 2, 3, 4}, {}, 3.0};
  for (int s = 0; s < 4; ++s) {
    close_arm.curves.push_back(testing::SmoothCurve(2.10 + 0.02 * s - 0.025, 1.0, 0.004 * s));
  }
  close.arms = {random, close_arm};
  out.push_back({"close", close});
  return out;
}

// testing::MakeRun with core-seconds and wall seconds that differ a little by seed.
inline ScheduleRun Run(uint64_t seed, std::vector<double> bpb, double full, double frozen,
                       int64_t frozen_at, double trigger_flops = 0) {
  const double s = static_cast<double>(seed);
  return testing::MakeRun(seed, std::move(bpb), full, frozen, frozen_at, trigger_flops,
                          1 + 0.01 * s, 1 + 0.02 * s);
}

inline std::vector<std::pair<std::string, ScheduleTrialInputs>> ScheduleTrials() {
  std::vector<std::pair<std::string, ScheduleTrialInputs>> out;
  auto inputs = [](std::vector<ScheduleArm> arms) {
    ScheduleTrialInputs in;
    in.arms = std::move(arms);
    in.budget_steps = 40;
    in.bootstrap.resamples = 300;
    return in;
  };
  ScheduleArm base{{"baseline", "random", ""}, {}};
  ScheduleArm early{{"f1", "random", "freeze:blocks=0@0.25"}, {}};
  ScheduleArm late{{"f2", "random", "freeze:blocks=0@0.75"}, {}};
  ScheduleArm adaptive{{"ad", "random", "freeze:blocks=0@adaptive:threshold=0.1"}, {}};
  ScheduleArm stop{{"stop", "random", "earlystop:patience=1"}, {}};
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const double d = 0.03 * static_cast<double>(seed);
    base.runs.push_back(Run(seed, {5, 4 + d, 3, 2.5 - d, 2.2 + d}, 100, 100, -1));
    early.runs.push_back(Run(seed, {5, 4, 3.2 + d, 2.8, 2.5 - d}, 100, 60, 10));
    late.runs.push_back(Run(seed, {5, 4 - d, 3, 2.5, 2.2 - d}, 100, 60, 30));
    adaptive.runs.push_back(
        Run(seed, {5, 4, 3 - d, 2.45, 2.25 - d}, 100, 60, 20 + 10 * (seed % 2), 300));
    ScheduleRun stopped = Run(
        seed, seed == 2 ? std::vector<double>{5, 4, 3.5} : std::vector<double>{5, 4, 3, 2.5, 2.3},
        100, 100, -1);
    stopped.stopped_early = seed == 2;
    stop.runs.push_back(stopped);
  }
  out.push_back({"sweep_and_adaptive", inputs({base, early, late, adaptive})});
  ScheduleTrialInputs unpaired = inputs({base, adaptive, late, stop});
  unpaired.bootstrap.paired = false;
  out.push_back({"unpaired_with_stop", unpaired});
  // Neither the fixed nor the adaptive arm reaches L*: loss at equal compute decides.
  out.push_back({"neither_reaches",
                 inputs({base, early, stop,
                         ScheduleArm{{"ad2", "random", "freeze:blocks=0@adaptive:threshold=0.2"},
                                     early.runs}})});
  return out;
}

}  // namespace preflight::trial::golden
