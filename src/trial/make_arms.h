#pragma once
// Internal to the trial runner (runner.cc): making a trial's arms' data in its run folder, the
// check that they differ, and the regime check's n-gram scores of each.

#include <functional>
#include <vector>

#include "base/status.h"
#include "trial/run_folder.h"
#include "trial/runner.h"

namespace preflight::trial {

// Makes (or finds, from an earlier invocation) every arm's data: the selections as one batch
// (from `checked`'s first passes when given), the manifest saved once they are made.
Result<std::vector<MadeArm>> MakeArms(const TrialConfig& config, RunFolder& folder, int total_runs,
                                      const ProgressFn& progress, const CheckedInputs* checked);

// Two arms of the same documents can only measure a saving of 0: InvalidArgument (exit 2),
// before the forecast and any training step.
Status CheckArmsDiffer(const std::vector<MadeArm>& made);

// The regime check's n-gram scores of every arm's data on T_eval and its copies of T_eval's
// documents, computed once per arm and saved in the manifest; fills each arm's record.
Status ScoreArms(const TrialConfig& config, RunFolder& folder, std::vector<MadeArm>& made,
                 int total_runs, const ProgressFn& progress, const CheckedInputs* checked);

}  // namespace preflight::trial
