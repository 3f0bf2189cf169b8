#pragma once
// The flags every command that runs or forecasts trials shares (trial, ladder; battery and
// forecast the spec's; battery the trainer's): the pool and target, the selection, the seeds and
// the evaluation, and the trainer. The model and steps are each command's own.

#include <CLI/CLI.hpp>
#include <vector>

#include "app/budget_plan.h"
#include "app/trial_prices.h"
#include "cli/model_flags.h"
#include "trial/runner.h"

namespace preflight::cli {

// --pool, --target-select, --target-eval, --target-name, the spec's flags, the eval flags,
// --threads and --runs-at-once.
void AddTrialDataFlags(CLI::App& app, trial::TrialConfig& config);

// The trial's spec (trial/spec.h) but its pool, target, model, steps and threads, as every
// command that plans a trial takes it (trial, ladder, battery, forecast): the field flags below,
// --selector, --keep, --selection-seed, --seeds, --lr.
void AddSpecFlags(CLI::App& app, trial::TrialSpec& spec);

// --text-field, --id-field (the pool's), --target-text-field, --target-id-field (the target
// files'; default: the pool's).
void AddFieldFlags(CLI::App& app, trial::TrialSpec& spec);

// --eval-every, --eval-windows (T_eval's evaluation).
void AddEvalFlags(CLI::App& app, trial::TrialConfig& config);

// --threads and --runs-at-once (trial/concurrent_runs.h).
void AddThreadFlags(CLI::App& app, trial::TrialConfig& config);

// --trainer, --trainer-cmd, --parallel, --device, --torch-launcher, --curve-format,
// --curve-file, --curve-columns, --eval-tokens, --params, --flops-per-step, --run-timeout,
// --stall-timeout (doc/trainers.md), and the prices of a launched trainer's net: --gpu, --price,
// --cpu-price.
void AddTrainerFlags(CLI::App& app, trainer::TrainerSpec& spec, app::PriceFlags& prices);

// config.prices from the price flags and config's trainer and threads (app/trial_prices.h).
Status ApplyPriceFlags(const app::PriceFlags& prices, trial::TrialConfig& config);

// The paragraph of --help that teaches the trainer flags (an example template).
extern const char kTrainerHelp[];

// --budget's candidates: tiny, small and medium with `shape`'s overrides, each timed here for a
// few steps (a few seconds in all).
Result<std::vector<app::PlanCandidate>> MeasureBudgetCandidates(const ModelFlags& shape,
                                                                int threads);

}  // namespace preflight::cli
