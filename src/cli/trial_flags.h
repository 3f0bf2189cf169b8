#pragma once
// The flags every command that runs trials shares (trial, ladder): the pool and target, the
// selection, the seeds and the evaluation. The model and steps are each command's own.

#include <CLI/CLI.hpp>

#include "trial/runner.h"

namespace preflight::cli {

// --pool, --target-select, --target-eval, --target-name, --text-field, --id-field, --selector,
// --keep, --selection-seed, --seeds, --eval-every, --eval-windows, --lr, --threads.
void AddTrialDataFlags(CLI::App& app, trial::TrialConfig& config);

}  // namespace preflight::cli
