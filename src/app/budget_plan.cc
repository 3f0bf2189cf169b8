#include "app/budget_plan.h"

#include <fmt/format.h>

#include <cmath>

#include "base/number_format.h"
#include "trial/step_estimate.h"

namespace preflight::app {
namespace {

int64_t TokensPerStep(const engine::ModelConfig& m) {
  return static_cast<int64_t>(m.batch) * m.context;
}

// The most steps whose trial fits the budget (0 when none does).
int64_t StepsThatFit(double budget, double seconds_per_step, int arms, int seeds) {
  const double fixed = trial::TrialSecondsFromStep(seconds_per_step, 0, arms, seeds);
  const double per_step = trial::TrialSecondsFromStep(seconds_per_step, 1, arms, seeds) - fixed;
  if (!(per_step > 0) || budget <= fixed) return 0;
  return static_cast<int64_t>(std::floor((budget - fixed) / per_step));
}

std::string Duration(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f}s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.2f} h", seconds / 3600);
}

}  // namespace

Result<double> ParseDuration(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  const std::string unit = used ? text.substr(used) : "";
  const double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (used == 0 || scale == 0 || !(value > 0) || !std::isfinite(value)) {
    return Status::InvalidArgument("--budget: '" + text +
                                   "' is not a duration; write e.g. 90s, 10m or 2h");
  }
  return value * scale;
}

Result<BudgetPlan> PlanForBudget(double budget, const std::vector<PlanCandidate>& candidates,
                                 int arms, int seeds) {
  if (candidates.empty()) return Status::InvalidArgument("--budget: no candidate models");
  BudgetPlan plan;
  plan.budget_seconds = budget;
  plan.candidates = candidates;
  const PlanCandidate* chosen = nullptr;
  for (auto it = candidates.rbegin(); it != candidates.rend() && !chosen; ++it) {
    const double optimal = kPlanTokensPerParam * static_cast<double>(engine::ParamCount(it->model));
    const auto optimal_steps = static_cast<int64_t>(std::ceil(optimal / TokensPerStep(it->model)));
    if (StepsThatFit(budget, it->seconds_per_step, arms, seeds) >= optimal_steps) chosen = &*it;
  }
  plan.rule =
      "compute-optimal (Hoffmann et al. 2022): the largest candidate whose 20 N-token runs "
      "(every arm and seed) fit the budget, with the steps that fill it";
  if (!chosen) {
    chosen = &candidates.front();
    plan.rule =
        "no candidate's 20 N-token runs fit the budget (Hoffmann et al. 2022): the smallest, "
        "with the steps that fit (under-trained)";
  }
  plan.model_name = chosen->name;
  plan.model = chosen->model;
  plan.params = engine::ParamCount(chosen->model);
  plan.seconds_per_step = chosen->seconds_per_step;
  plan.steps = StepsThatFit(budget, chosen->seconds_per_step, arms, seeds);
  if (plan.steps < kMinPlanSteps) {
    return Status::InvalidArgument(fmt::format(
        "--budget {}: too short for {} runs of even the smallest model ({}) at {} steps; it "
        "needs about {}",
        Duration(budget), arms * seeds, chosen->name, kMinPlanSteps,
        Duration(
            trial::TrialSecondsFromStep(chosen->seconds_per_step, kMinPlanSteps, arms, seeds))));
  }
  plan.tokens = plan.steps * TokensPerStep(plan.model);
  plan.optimal_tokens =
      static_cast<int64_t>(kPlanTokensPerParam * static_cast<double>(plan.params));
  plan.under_trained = plan.tokens < plan.optimal_tokens;
  plan.estimated_seconds =
      trial::TrialSecondsFromStep(plan.seconds_per_step, plan.steps, arms, seeds);
  return plan;
}

Result<std::vector<BudgetPlan>> PlanLadderForBudget(double budget,
                                                    const std::vector<PlanCandidate>& candidates,
                                                    int arms, int seeds) {
  std::vector<BudgetPlan> plans;
  // Rungs after the first train on the first rung's arms: they select nothing, so the per-arm
  // fixed cost goes to their training instead.
  const double fixed = trial::TrialSecondsFromStep(0, 0, arms, seeds);
  for (double share : {1.0 / 7, 2.0 / 7, 4.0 / 7}) {
    const double extra = plans.empty() ? 0 : fixed;
    auto plan = PlanForBudget(budget * share + extra, candidates, arms, seeds);
    if (!plan.ok()) {
      return Status::InvalidArgument(
          plan.status().message() +
          " (a ladder's first rung gets 1/7 of the budget; give a longer --budget)");
    }
    plan->budget_seconds = budget * share;
    plan->estimated_seconds -= extra;
    plans.push_back(std::move(plan).value());
  }
  return plans;
}

Result<std::vector<PlanCandidate>> MeasureCandidates(
    int threads, const std::function<Result<engine::ModelConfig>(const std::string&)>& resolve) {
  std::vector<PlanCandidate> out;
  for (const char* name : {"tiny", "small", "medium"}) {
    PF_ASSIGN_OR_RETURN(engine::ModelConfig model, resolve(name));
    PF_ASSIGN_OR_RETURN(double seconds, trial::TimeTrainingStepSeconds(model, threads));
    out.push_back({name, model, seconds});
  }
  return out;
}

nlohmann::json BudgetPlanToJson(const BudgetPlan& p) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const PlanCandidate& c : p.candidates) {
    candidates.push_back({{"model", c.name},
                          {"params", engine::ParamCount(c.model)},
                          {"seconds_per_step", c.seconds_per_step}});
  }
  nlohmann::json model = engine::ModelToJson(p.model_name, p.model);
  model["params"] = p.params;
  return {{"budget_seconds", p.budget_seconds},
          {"model", model},
          {"steps", p.steps},
          {"tokens", p.tokens},
          {"optimal_tokens", p.optimal_tokens},
          {"seconds_per_step", p.seconds_per_step},
          {"estimated_seconds", p.estimated_seconds},
          {"under_trained", p.under_trained},
          {"rule", p.rule},
          {"candidates", candidates}};
}

std::string BudgetPlanText(const BudgetPlan& p, int runs) {
  return fmt::format(
      "plan: {} ({} params), {} steps, {} tokens per run (20N = {}{}); estimated {} for {} runs "
      "within the {} budget\n  rule: {}\n",
      p.model_name, FormatCount(static_cast<double>(p.params)), FormatInt(p.steps),
      FormatCount(static_cast<double>(p.tokens)),
      FormatCount(static_cast<double>(p.optimal_tokens)), p.under_trained ? ": under-trained" : "",
      Duration(p.estimated_seconds), runs, Duration(p.budget_seconds), p.rule);
}

}  // namespace preflight::app
