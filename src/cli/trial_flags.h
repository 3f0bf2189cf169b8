#pragma once
// The flags every command that runs trials shares (trial, ladder): the pool and target, the
// selection, the seeds and the evaluation. The model and steps are each command's own.

#include <CLI/CLI.hpp>
#include <vector>

#include "app/budget_plan.h"
#include "cli/model_flags.h"
#include "trial/runner.h"

namespace preflight::cli {

// --pool, --target-select, --target-eval, --target-name, --text-field, --id-field, --selector,
// --keep, --selection-seed, --seeds, --eval-every, --eval-windows, --lr, --threads.
void AddTrialDataFlags(CLI::App& app, trial::TrialConfig& config);

// --budget's candidates: tiny, small and medium with `shape`'s overrides, each timed here for a
// few steps (a few seconds in all).
Result<std::vector<app::PlanCandidate>> MeasureBudgetCandidates(const ModelFlags& shape,
                                                                int threads);

}  // namespace preflight::cli
