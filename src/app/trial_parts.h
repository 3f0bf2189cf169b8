#pragma once
// Internal to app/: the pieces of a trial job's output that the job, `report` and `battery`
// share.

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "trial/runner.h"

namespace preflight::app {

// The lab record of a finished trial (narrate/), data or schedule.
Result<nlohmann::json> LabRecordOf(const trial::TrialOutcome& outcome);

// The held-out file's text bytes, from the outcome's inputs (0 if absent).
int64_t EvalBytes(const trial::TrialOutcome& outcome);

}  // namespace preflight::app
