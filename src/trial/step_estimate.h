#pragma once
// How long a trial takes on this machine, from a short timing of one training step: the estimate
// `trial` prints before it starts, and the step time --budget plans are made from.

#include <cstdint>

#include "base/status.h"
#include "engine/config.h"
#include "trial/trial_config.h"

namespace preflight::trial {

// Estimated wall seconds of the whole trial from a short timing of this model on this machine.
Result<double> EstimateTrialSeconds(const TrialConfig& config);

// Wall seconds of one training step of `model` with `threads` on this machine: four steps on
// synthetic text, the first (allocation, warm-up) left out. Takes a few of those steps' time.
Result<double> TimeTrainingStepSeconds(const engine::ModelConfig& model, int threads);

// The trial's wall seconds from one step's: steps x arms x seeds x 1.15 (evals) plus 5 s per arm
// (selection and the regime check). EstimateTrialSeconds and --budget plans both use it.
double TrialSecondsFromStep(double seconds_per_step, int64_t steps, int arms, int seeds);

}  // namespace preflight::trial
