#pragma once
// The JSON of trial results (result.json, receipts, --json). Non-finite numbers (never caught
// up, undefined) are written as null. Keys: doc/trial-format.md ("result.json") and
// doc/schedules.md.

#include <nlohmann/json.hpp>

#include "trial/metrics.h"
#include "trial/schedule_metrics.h"

namespace preflight::trial {

// {l_star, t_baseline, t_arm, caught_up, gross, net}.
nlohmann::json SavingToJson(const Saving& saving);
nlohmann::json ComparisonToJson(const Comparison& comparison);
// The keys of doc/design.md (compute_saved{gross,net,ci95,...}, caught_up, l_star, t_random,
// t_curated) for the primary comparison (the first non-baseline arm) and every comparison under
// "comparisons".
nlohmann::json TrialResultToJson(const TrialResult& result);

nlohmann::json ScheduleComparisonToJson(const ScheduleComparison& comparison);
// The trial keys of doc/design.md for the primary (first) schedule arm, every comparison, the
// verdict.
nlohmann::json ScheduleTrialResultToJson(const ScheduleTrialResult& result);

}  // namespace preflight::trial
