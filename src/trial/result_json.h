#pragma once
// The one writer of a trial's JSON: the numbers (TrialResultToJson, also `score`'s), result.json
// and the receipt's result (OutcomeResultJson), and `trial --json` (OutcomeSummaryJson).
// Non-finite numbers (never caught up, undefined) are written as null. Keys: doc/trial-format.md
// ("result.json"), doc/schedules.md and doc/trainers.md.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trial/metrics.h"
#include "trial/regime.h"
#include "trial/runner.h"
#include "trial/schedule_metrics.h"

namespace preflight::trial {

// {l_star, t_baseline, t_arm, caught_up, gross, net}.
nlohmann::json SavingToJson(const Saving& saving);
// A launched trainer's comparison (prices in "USD") adds cost.arm_usd and cost.baseline_usd.
nlohmann::json ComparisonToJson(const Comparison& comparison, const NetPrices& prices = {});
// The keys of doc/design.md (compute_saved{gross,net,ci95,...}, caught_up, l_star, t_random,
// t_curated) for the primary comparison (the first non-baseline arm) and every comparison under
// "comparisons".
nlohmann::json TrialResultToJson(const TrialResult& result);

nlohmann::json ScheduleComparisonToJson(const ScheduleComparison& comparison);
// The trial keys of doc/design.md for the primary (first) schedule arm, every comparison, the
// verdict.
nlohmann::json ScheduleTrialResultToJson(const ScheduleTrialResult& result);

// Sets "regime" (null for a folder written before the check: cost/pilot_saving.h reads that as
// "not checked") and "out_dir" (absolute, so that `ledger report` can link the folder's
// report.html while it exists). Shared by trials and `score`.
void AddRegimeAndFolder(const std::optional<Regime>& regime, const std::string& out_dir,
                        nlohmann::json& result);

// What a trial's result holds that the trial does not make itself.
struct ResultWords {
  nlohmann::json lab_record;          // narrate/'s lab record
  nlohmann::json forecast = nullptr;  // the forecast under test (data trials); null for none
};

// result.json and the receipt's result: the numbers above, then lab_record, arm_data, regime,
// compute, model, forecast (data trials), trainer (launched trainers), out_dir and warnings
// (TrialOutcome::warnings: one sentence each, [] when none).
nlohmann::json OutcomeResultJson(const TrialOutcome& outcome, const ResultWords& words);

// `trial --json`: the headline keys of `result` (OutcomeResultJson's, warnings included), the
// report's path, the receipt's hash, the runs reused and the trial's cost.
nlohmann::json OutcomeSummaryJson(const TrialOutcome& outcome, const nlohmann::json& result,
                                  const std::string& report_path, const std::string& receipt);

}  // namespace preflight::trial
