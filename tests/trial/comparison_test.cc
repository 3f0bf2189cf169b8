// One comparison serves both kinds of trial: a data trial is the schedule-style computation on a
// compute axis where every step costs the same.

#include "trial/comparison.h"

#include <gtest/gtest.h>

#include "trial/metrics.h"
#include "trial/schedule_metrics.h"
#include "trial/trial_inputs.h"

namespace preflight::trial {
namespace {

// The data trial's curves as schedule runs whose every step costs `flops_per_step` FLOPs (and
// 1/1000 of that in core-seconds, 1/2000 in wall seconds): nothing frozen, nothing stopped.
ScheduleArm AsScheduleArm(const Arm& arm, double flops_per_step) {
  ScheduleArm out{arm.spec, {}};
  for (size_t k = 0; k < arm.curves.size(); ++k) {
    ScheduleRun run;
    run.seed = arm.seeds[k];
    run.curve = arm.curves[k];
    for (int64_t step : run.curve.steps) {
      const double flops = static_cast<double>(step) * flops_per_step;
      run.flops.push_back(flops);
      run.core_seconds.push_back(flops / 1000);
      run.train_seconds.push_back(flops / 2000);
    }
    run.steps = run.curve.steps.back();
    out.runs.push_back(std::move(run));
  }
  return out;
}

TEST(Comparison, DataTrialAndScheduleStyleComputationAgreeOnEqualCostSteps) {
  TrialInputs data = testing::FourSeeds();
  data.bootstrap.paired = true;  // the schedule trial's default: the same draws in both
  data.bootstrap.resamples = 400;
  auto d = ComputeTrial(data);
  ASSERT_TRUE(d.ok()) << d.status().message();

  ScheduleTrialInputs sched;
  for (const Arm& arm : data.arms) sched.arms.push_back(AsScheduleArm(arm, 100));
  sched.budget_steps = data.arms[0].curves[0].steps.back();
  sched.bootstrap = data.bootstrap;
  auto s = ComputeScheduleTrial(sched);
  ASSERT_TRUE(s.ok()) << s.status().message();

  const Comparison& dc = d->comparisons.at(0);
  const ScheduleComparison& sc = s->comparisons.at(0);
  // The same crossing: L*, t_R and the interpolated t_C on the step axis.
  EXPECT_EQ(sc.l_star, dc.saving.l_star);
  EXPECT_EQ(sc.t_baseline, dc.saving.t_baseline);
  EXPECT_EQ(sc.t_arm, dc.saving.t_arm);
  EXPECT_EQ(sc.caught_up, dc.saving.caught_up);
  // FLOPs proportional to steps: F_C / F_R = t_C / t_R, so the gross savings agree.
  EXPECT_DOUBLE_EQ(sc.flops_arm, dc.saving.t_arm * 100);
  EXPECT_DOUBLE_EQ(sc.gross, dc.saving.gross);
  EXPECT_DOUBLE_EQ(sc.net, dc.saving.gross);  // no trigger: net = gross on FLOPs
  ASSERT_EQ(sc.per_seed.size(), dc.per_seed.size());
  for (size_t k = 0; k < sc.per_seed.size(); ++k) {
    EXPECT_EQ(sc.per_seed[k].seed, dc.per_seed[k].seed);
    EXPECT_EQ(sc.per_seed[k].caught_up, dc.per_seed[k].saving.caught_up);
    EXPECT_DOUBLE_EQ(sc.per_seed[k].gross, dc.per_seed[k].saving.gross) << k;
  }
  // One bootstrap: the same draws (same seed, same arm name) give the same gross interval.
  EXPECT_DOUBLE_EQ(sc.ci.gross.lo, dc.ci.gross.lo);
  EXPECT_DOUBLE_EQ(sc.ci.gross.hi, dc.ci.gross.hi);
  EXPECT_EQ(sc.ci.never_caught_up, dc.ci.never_caught_up);
}

TEST(Comparison, CrossingInterpolatesEveryColumnWithTheStepsWeight) {
  MeteredCurve m{{{0, 10, 20}, {5, 3, 2}}, {{0, 1000, 1600}, {0, 1, 2}}, {0, 0}};
  const Crossing x = CrossingOf(m, 2.5);  // halfway between steps 10 and 20
  EXPECT_DOUBLE_EQ(x.step, 15);
  EXPECT_DOUBLE_EQ(x.columns[0], 1300);
  EXPECT_DOUBLE_EQ(x.columns[1], 1.5);
  EXPECT_DOUBLE_EQ(x.step, CatchUpStep(m.curve, 2.5));
  EXPECT_FALSE(CrossingOf(m, 1.0).reached());
}

TEST(Comparison, MeasuresPriceTheSameCrossing) {
  MeteredCurve base{{{0, 100, 200}, {5, 3, 2}}, {{0, 100, 200}}, {0}};
  MeteredCurve arm{{{0, 100, 200}, {5, 2, 1.5}}, {{0, 80, 160}}, {20}};
  Measure gross;      // steps, at 1 each
  Measure net_steps;  // steps at 2 core-seconds each plus production costs
  net_steps.rate = 2;
  net_steps.arm_fixed = 40;
  net_steps.baseline_fixed = 0;
  Measure net_flops;  // the FLOPs column, the arm's overhead charged
  net_flops.column = 0;
  net_flops.charge_overhead = true;
  const PairSaving s = ComparePair(base, arm, {gross, net_steps, net_flops});
  EXPECT_EQ(s.target.t_baseline, 200);
  EXPECT_DOUBLE_EQ(s.arm.step, 100);
  EXPECT_DOUBLE_EQ(s.saved[0], 0.5);
  EXPECT_DOUBLE_EQ(s.saved[1], 1 - (100.0 * 2 + 40) / (200.0 * 2));
  EXPECT_DOUBLE_EQ(s.saved[2], 1 - (80.0 + 20) / 200.0);
}

}  // namespace
}  // namespace preflight::trial
