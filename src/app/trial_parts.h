#pragma once
// Internal to app/: the pieces of a trial job's output that the job, `report` and `battery`
// share.

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "trial/runner.h"

namespace preflight::app {

struct TrialJob;

// The words of a finished trial (narrate/): its lab record, and a schedule trial's verdict
// sentence (which its result JSON carries).
Status Narrate(TrialJob& job);

// The held-out file's text bytes, from the outcome's inputs (0 if absent).
int64_t EvalBytes(const trial::TrialOutcome& outcome);

}  // namespace preflight::app
