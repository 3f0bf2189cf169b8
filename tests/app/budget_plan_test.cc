// The --budget planner on step times given by hand: the compute-optimal rule, the fallback,
// a budget too short, the ladder's three shares, and durations.

#include "app/budget_plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "trial/step_estimate.h"

namespace preflight::app {
namespace {

std::vector<PlanCandidate> Candidates() {
  std::vector<PlanCandidate> out;
  const double seconds_per_step[] = {0.01, 0.05, 0.5};
  int i = 0;
  for (const char* name : {"tiny", "small", "medium"}) {
    out.push_back({name, engine::NamedModel(name).value(), seconds_per_step[i++]});
  }
  return out;
}

// Seconds for the 8 runs of `c` at 20 N tokens each.
double OptimalSeconds(const PlanCandidate& c) {
  const double tokens = 20.0 * static_cast<double>(engine::ParamCount(c.model));
  const auto steps = static_cast<int64_t>(std::ceil(tokens / (c.model.batch * c.model.context)));
  return trial::TrialSecondsFromStep(c.seconds_per_step, steps, 2, 4);
}

TEST(BudgetPlan, TheLargestModelWhose20NTokenRunsFitWithTheStepsThatFillTheBudget) {
  const auto c = Candidates();
  ASSERT_LT(OptimalSeconds(c[0]), OptimalSeconds(c[1]));
  ASSERT_LT(OptimalSeconds(c[1]), OptimalSeconds(c[2]));
  const double budget = (OptimalSeconds(c[1]) + OptimalSeconds(c[2])) / 2;
  auto plan = PlanForBudget(budget, c, 2, 4);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->model_name, "small");
  EXPECT_FALSE(plan->under_trained);
  EXPECT_GE(plan->tokens, plan->optimal_tokens);
  EXPECT_EQ(plan->optimal_tokens, 20 * engine::ParamCount(c[1].model));
  EXPECT_EQ(plan->tokens, plan->steps * c[1].model.batch * c[1].model.context);
  // The steps fill the budget: one more would not fit.
  EXPECT_LE(plan->estimated_seconds, budget);
  EXPECT_GT(trial::TrialSecondsFromStep(0.05, plan->steps + 1, 2, 4), budget);
  EXPECT_NEAR(plan->estimated_seconds, budget, 0.05 * 8 * 1.15);
  EXPECT_NE(plan->rule.find("Hoffmann"), std::string::npos);
  const auto json = BudgetPlanToJson(*plan);
  EXPECT_EQ(json["model"]["name"], "small");
  EXPECT_EQ(json["steps"], plan->steps);
  EXPECT_EQ(json["candidates"].size(), 3u);
  EXPECT_NE(BudgetPlanText(*plan, 8).find("plan: small"), std::string::npos);
  // A budget past medium's 20 N runs takes medium.
  EXPECT_EQ(PlanForBudget(OptimalSeconds(c[2]) * 1.01, c, 2, 4)->model_name, "medium");
}

TEST(BudgetPlan, WhenNoneFitsTheSmallestIsUnderTrainedAndTooShortIsRefused) {
  const auto c = Candidates();
  const double budget = OptimalSeconds(c[0]) / 2;
  auto plan = PlanForBudget(budget, c, 2, 4);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->model_name, "tiny");
  EXPECT_TRUE(plan->under_trained);
  EXPECT_LT(plan->tokens, plan->optimal_tokens);
  EXPECT_NE(plan->rule.find("under-trained"), std::string::npos);
  auto too_short = PlanForBudget(12, c, 2, 4);  // 10 s of fixed costs leave ~25 steps
  ASSERT_FALSE(too_short.ok());
  EXPECT_EQ(too_short.status().ExitCode(), 2);
  EXPECT_NE(too_short.status().message().find("too short"), std::string::npos);
}

TEST(BudgetPlan, ALaddersRungsTakeASeventhTwoAndFour) {
  const auto c = Candidates();
  const double budget = 7 * 60.0;
  auto plans = PlanLadderForBudget(budget, c, 2, 4);
  ASSERT_TRUE(plans.ok()) << plans.status().message();
  ASSERT_EQ(plans->size(), 3u);
  double total = 0;
  for (size_t i = 0; i < 3; ++i) {
    const double share = budget * (i == 0 ? 1 : i == 1 ? 2 : 4) / 7;
    EXPECT_LE((*plans)[i].estimated_seconds, share);
    EXPECT_EQ((*plans)[i].budget_seconds, share);
    total += (*plans)[i].estimated_seconds;
  }
  EXPECT_LE(total, budget);
  EXPECT_GT((*plans)[1].steps, (*plans)[0].steps);
  // Rung 3 trains with the selections' allowance too: steps as for 4/7 of the budget plus 10 s.
  EXPECT_EQ((*plans)[2].steps, PlanForBudget(budget * 4 / 7 + 10, c, 2, 4)->steps);
  EXPECT_NEAR((*plans)[2].estimated_seconds, budget * 4 / 7, 0.01 * 8 * 1.15);
  EXPECT_FALSE(PlanLadderForBudget(30, c, 2, 4).ok());
}

TEST(BudgetPlan, Durations) {
  EXPECT_DOUBLE_EQ(ParseDuration("90s").value(), 90);
  EXPECT_DOUBLE_EQ(ParseDuration("10m").value(), 600);
  EXPECT_DOUBLE_EQ(ParseDuration("2h").value(), 7200);
  EXPECT_DOUBLE_EQ(ParseDuration("1.5h").value(), 5400);
  for (const char* bad : {"10", "m", "-5m", "0s", "10x", "", "5 m", "10mm"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace preflight::app
