#pragma once
// The flags every command that runs trials shares (trial, ladder; battery the trainer's): the pool
// and target, the selection, the seeds and the evaluation, and the trainer. The model and steps
// are each command's own.

#include <CLI/CLI.hpp>
#include <vector>

#include "app/budget_plan.h"
#include "cli/model_flags.h"
#include "trial/runner.h"

namespace preflight::cli {

// --pool, --target-select, --target-eval, --target-name, the field flags below, --selector,
// --keep, --selection-seed, --seeds, --eval-every, --eval-windows, --lr, --threads.
void AddTrialDataFlags(CLI::App& app, trial::TrialConfig& config);

// --text-field, --id-field (the pool's), --target-text-field, --target-id-field (T_sel's and
// T_eval's; default: the pool's).
void AddFieldFlags(CLI::App& app, trial::TrialConfig& config);

// --threads and --runs-at-once (trial/concurrent_runs.h).
void AddThreadFlags(CLI::App& app, trial::TrialConfig& config);

// --trainer, --trainer-cmd, --parallel, --device, --torch-launcher, --curve-format,
// --curve-file, --curve-columns, --eval-tokens, --params, --flops-per-step, --run-timeout,
// --stall-timeout (doc/trainers.md).
void AddTrainerFlags(CLI::App& app, trainer::TrainerSpec& spec);

// The paragraph of --help that teaches the trainer flags (an example template).
extern const char kTrainerHelp[];

// --budget's candidates: tiny, small and medium with `shape`'s overrides, each timed here for a
// few steps (a few seconds in all).
Result<std::vector<app::PlanCandidate>> MeasureBudgetCandidates(const ModelFlags& shape,
                                                                int threads);

}  // namespace preflight::cli
