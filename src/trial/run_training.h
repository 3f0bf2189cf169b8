#pragma once
// Internal to the trial runner (runner.cc): training a trial's runs on its trainer
// (trainer/trainer.h, doc/trainers.md).
// - builtin: the engine in this process, run after run, or spread over MPI ranks by the
//   RunExecutor (every rank calls TrainRuns);
// - a launched trainer (torch, cmd): the arms and T_eval exported once (RUN/exports/<arm>/,
//   RUN/exports/eval/), the engine's initial weights per seed for torch
//   (RUN/runs/init-s<seed>.bin), then the runs launched --parallel at a time. A run whose folder
//   holds a finished launch is collected, not launched again.
// Every finished run is recorded in trial.json as it ends, so a killed trial resumes only the
// runs that had not finished.

#include <functional>
#include <string>

#include "base/status.h"
#include "trial/run_folder.h"
#include "trial/runner.h"

namespace preflight::trial {

// A schedule trial's arms all train on one data file, made once under this name.
inline constexpr char kScheduleDataArm[] = "data";

// The data file of arm `arm` (the pool file itself for a schedule trial on the pool).
std::string DataPath(const TrialConfig& config, const RunFolder& folder, const std::string& arm);

// RUN/runs/init-s<seed>.bin, absolute: the engine's initial weights the torch trainer starts from.
std::string InitPath(const TrialConfig& config, int seed);

// Trains every run not yet in the folder's manifest and records each; *reused counts the runs
// found finished (in trial.json, or a launched run's folder).
Status TrainRuns(const TrialConfig& config, RunFolder& folder, RunExecutor& executor,
                 const ProgressFn& progress, int* reused);

}  // namespace preflight::trial
