#pragma once
// The compute rules checked before any saving is reported: a saving between runs of different
// compute means nothing. Data trials: every run the same FLOPs per step, steps and tokens per
// step. Schedule trials: the same model, tokens per step and budget, and no schedule run spending
// more FLOPs than the baseline's (a schedule may spend less, never more).

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::trial {

// The compute of one training run of a data trial, as its receipt records it.
struct RunCompute {
  std::string run;  // names the run in messages, e.g. "curated/seed-2"
  double flops_per_step = 0;
  int64_t steps = 0;
  int64_t tokens_per_step = 0;
};

// Refuses (InvalidArgument naming the runs that differ) unless every run has the same FLOPs
// per step (relative tolerance 1e-9), steps and tokens per step.
Status CheckComputeMatched(const std::vector<RunCompute>& runs);

// One run's eval steps, named as in RunCompute.
struct RunEvalSteps {
  std::string run;
  std::vector<int64_t> steps;
};

// Refuses (InvalidArgument naming each run that differs from the first, and where) unless every
// run was evaluated at the same steps: the arms' curves are compared point by point.
Status CheckSameEvalSteps(const std::vector<RunEvalSteps>& runs);

// One run of a schedule trial: its model (FLOPs of a full step), tokens per step, steps trained
// and FLOPs actually spent.
struct ScheduleRunCompute {
  std::string run;
  bool baseline = false;
  double flops_per_step = 0;  // a full step
  int64_t tokens_per_step = 0;
  int64_t steps = 0;
  double flops = 0;  // total spent
};

// Refuses unless every run has the same model and tokens per step, baseline runs trained exactly
// budget_steps and schedule runs 1..budget_steps, and no schedule run spent more FLOPs than the
// most a baseline run did.
Status CheckScheduleCompute(const std::vector<ScheduleRunCompute>& runs, int64_t budget_steps);

}  // namespace preflight::trial
