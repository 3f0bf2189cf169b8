// The short summaries print what the CLI's printf blocks printed (src/cli/trial_support.cc,
// trial_command.cc), so the CLI can call them instead; the interval is IntervalSentence's.

#include "narrate/summary.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "base/number_format.h"
#include "trial/schedule_runs.h"
#include "trial/trial_inputs.h"

namespace preflight::narrate {
namespace {

TEST(TrialNumbersText, TheCliBlockWithTheOneIntervalSentence) {
  trial::TrialInputs in = trial::testing::FourSeeds();
  in.arms.push_back(trial::testing::MakeArm(
      "first", {trial::testing::C(trial::testing::kSteps, {8, 5, 4, 3, 2.5})}, 0, {1}));
  auto r = trial::ComputeTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const trial::Comparison& c = r->comparisons[0];
  ASSERT_TRUE(std::isfinite(c.ci.net.lo));
  char expected[1024];
  std::snprintf(expected, sizeof(expected),
                "  L* (best random-arm loss)  %.4f bits/byte at step %s\n"
                "  curated arm reaches it at  step %s\n"
                "  compute saved, gross       %s\n"
                "  compute saved, net         %s   (95%% interval %s to %s; %s charged)\n"
                "  first vs random            never caught up net\n",
                c.saving.l_star, FormatSteps(c.saving.t_baseline).c_str(),
                FormatSteps(c.saving.t_arm).c_str(), FormatPercent(c.saving.gross).c_str(),
                FormatPercent(c.saving.net).c_str(), FormatPercent(c.ci.net.lo).c_str(),
                FormatPercent(c.ci.net.hi).c_str(), "selection cost");
  EXPECT_EQ(TrialNumbersText(*r, "selection cost"), expected);
  EXPECT_EQ(TrialNumbersText(trial::TrialResult{}, "selection cost"), "");
}

TEST(ScheduleNumbersText, TheCliTable) {
  using trial::testing::MakeRun;
  trial::ScheduleTrialInputs in;
  in.budget_steps = 40;
  in.bootstrap.resamples = 50;
  in.arms = {
      {{"baseline", "random", ""}, {MakeRun(1, {5, 4, 3, 2.5, 2.2}, 100, 100, -1)}},
      {{"f", "random", "freeze:blocks=0@0.5"}, {MakeRun(1, {5, 4, 3, 2.5, 2.2}, 100, 60, 20)}},
      {{"s", "random", "earlystop:patience=1"}, {MakeRun(1, {5, 4, 3.5}, 100, 100, -1)}}};
  auto r = trial::ComputeScheduleTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string text = ScheduleNumbersText(*r);
  char line[256];
  std::snprintf(line, sizeof(line), "  %-44s %8s %8s %6s %10s %8s %8s %14s\n", "schedule",
                "frozen@", "FLOPs", "t_C", "FLOPs net", "core-s", "wall", "at equal FLOPs");
  EXPECT_EQ(text.rfind(line, 0), 0u) << text;
  const trial::ScheduleComparison& f = r->comparisons[0];
  std::snprintf(line, sizeof(line), "  %-44s %8s %8s %6s %10s %8s %8s %+10.4f bpb\n",
                "freeze:blocks=0@0.5", "20", FormatPercent(-0.2).c_str(), "40",
                FormatPercent(f.net).c_str(), FormatPercent(f.net_core_seconds).c_str(),
                FormatPercent(f.net_wall).c_str(), f.loss_at_equal_compute);
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_NE(text.find("  earlystop:patience=1"), std::string::npos);
  EXPECT_NE(text.find("0 stop"), std::string::npos);
  EXPECT_NE(text.find("  baseline reaches L* = 2.2000 bits/byte at step 40\n"), std::string::npos);
}

}  // namespace
}  // namespace preflight::narrate
