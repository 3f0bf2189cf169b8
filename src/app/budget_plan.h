#pragma once
// --budget DURATION on `trial` and `ladder`: the model shape and steps that fit a wall-clock
// budget on this machine, by a stated rule, printed before training and recorded in the receipt.
//
// The rule (compute-optimal allocation, Hoffmann et al. 2022, "Chinchilla": for a fixed compute,
// loss is lowest near D = 20 N training tokens for N parameters): among the candidate shapes
// (tiny, small, medium; each timed for a few steps here first), take the largest whose
// 20 N-token run, for every run of the trial (2 arms x 4 seeds), fits the budget, and give it the
// steps that fill the budget (at least 20 N tokens: a larger candidate would not reach its own
// 20 N). When none fits, take the smallest with the steps that fit (fewer than 20 N tokens:
// said so as under-trained). The trial's time is trial::TrialSecondsFromStep (evals and
// selections included). A plan needs at least kMinPlanSteps steps.
// The planner is a pure function of the candidates' measured step times (tests give them by
// hand); MeasureCandidates does the timing.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/config.h"

namespace preflight::app {

inline constexpr int64_t kMinPlanSteps = 50;
inline constexpr double kPlanTokensPerParam = 20;

// "90s", "10m", "2h", "1.5h" -> seconds. InvalidArgument for anything else.
Result<double> ParseDuration(const std::string& text);

struct PlanCandidate {
  std::string name;
  engine::ModelConfig model;
  double seconds_per_step = 0;  // measured on this machine
};

struct BudgetPlan {
  double budget_seconds = 0;
  std::string model_name;
  engine::ModelConfig model;
  int64_t params = 0;
  int64_t steps = 0;
  int64_t tokens = 0;          // per run: steps x batch x context
  int64_t optimal_tokens = 0;  // 20 N
  double seconds_per_step = 0;
  double estimated_seconds = 0;  // the whole trial (every run, evals, selections)
  bool under_trained = false;    // tokens < 20 N
  std::string rule;
  std::vector<PlanCandidate> candidates;
};

// The plan for `arms` x `seeds` runs within budget_seconds (candidates in increasing size).
// InvalidArgument naming the budget needed when even the smallest cannot take kMinPlanSteps.
Result<BudgetPlan> PlanForBudget(double budget_seconds,
                                 const std::vector<PlanCandidate>& candidates, int arms, int seeds);

// A ladder's rungs from a budget: three plans at 1/7, 2/7 and 4/7 of it (each rung about twice
// the compute of the one before; together the whole budget), each by the rule above. Rungs 2
// and 3 select nothing (they share rung 1's arms): the selections' allowance goes to training.
Result<std::vector<BudgetPlan>> PlanLadderForBudget(double budget_seconds,
                                                    const std::vector<PlanCandidate>& candidates,
                                                    int arms, int seeds);

// tiny, small and medium as `resolve` shapes them (overrides applied), each timed for a few steps.
Result<std::vector<PlanCandidate>> MeasureCandidates(
    int threads, const std::function<Result<engine::ModelConfig>(const std::string&)>& resolve);

// {"budget_seconds","model":{...,"params"},"steps","tokens","optimal_tokens","seconds_per_step",
//  "estimated_seconds","under_trained","rule","candidates":[{"model","params","seconds_per_step"}]}
nlohmann::json BudgetPlanToJson(const BudgetPlan& plan);
// "plan: small (835k params), 1,200 steps, 4.92M tokens per run (20N = 16.7M: under-trained);
//  estimated 9m 40s for 8 runs within the 10m budget".
std::string BudgetPlanText(const BudgetPlan& plan, int runs);

}  // namespace preflight::app
