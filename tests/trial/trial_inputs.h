#pragma once
// Small hand-made data trials shared by the trial and narrate tests.

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "trial/metrics.h"

namespace preflight::trial::testing {

inline Curve C(std::vector<int64_t> steps, std::vector<double> bpb) { return {steps, bpb}; }

inline const std::vector<int64_t> kSteps = {0, 100, 200, 300, 400};

inline Arm MakeArm(const std::string& name, std::vector<Curve> curves, double cost = 0,
                   std::vector<uint64_t> seeds = {}) {
  Arm arm;
  arm.spec = {name, name == "random" ? "random" : "dsir", ""};
  arm.curves = std::move(curves);
  arm.cost_core_seconds = cost;
  arm.seeds = std::move(seeds);
  return arm;
}

inline TrialInputs TwoArms(std::vector<Curve> random, std::vector<Curve> curated, double f = 1,
                           double c_curated = 0, double c_random = 0) {
  TrialInputs in;
  in.arms.push_back(MakeArm("random", std::move(random), c_random));
  in.arms.push_back(MakeArm("curated", std::move(curated), c_curated));
  in.baseline = 0;
  in.core_seconds_per_step = f;
  in.flops_per_step = 1e9;
  return in;
}

inline TrialInputs FourSeeds() {
  std::vector<Curve> random, curated;
  const double r_end[] = {2.00, 2.05, 1.95, 2.02};
  const double c_mid[] = {1.90, 2.10, 1.80, 2.00};
  for (int s = 0; s < 4; ++s) {
    random.push_back(C(kSteps, {8, 4, 3, 2.4 + 0.01 * s, r_end[s]}));
    curated.push_back(C(kSteps, {8, 3.4, 2.6 + 0.02 * s, c_mid[s], 1.7}));
  }
  TrialInputs in = TwoArms(random, curated, 0.5, 30, 2);
  in.arms[0].seeds = {1, 2, 3, 4};
  in.arms[1].seeds = {1, 2, 3, 4};
  return in;
}

// A smooth learning curve evaluated every 100 steps from 0 to `last`: floor + 6 e^(-6 speed t)
// plus a seed-like wiggle, t = step / 2000.
inline Curve SmoothCurve(double floor, double speed, double wiggle, int64_t last = 2000) {
  Curve c;
  for (int64_t step = 0; step <= last; step += 100) {
    double t = static_cast<double>(step) / 2000.0;
    c.steps.push_back(step);
    c.bpb.push_back(floor + 6.0 * std::exp(-speed * t * 6) + wiggle * std::sin(step * 0.01));
  }
  return c;
}

}  // namespace preflight::trial::testing
