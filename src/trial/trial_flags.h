#pragma once
// A trial's flags checked alone, before any file is read (CheckTrial, RunTrial and the time
// estimate start with it).

#include "base/status.h"
#include "trial/trial_config.h"

namespace preflight::trial {

// InvalidArgument naming the flag: a missing input or --out, a selector or schedule that cannot
// make a comparison, keep fractions out of order, a trainer that cannot run the arms, counts
// below 1, a model the engine refuses.
Status ValidateTrialFlags(const TrialConfig& config);

}  // namespace preflight::trial
