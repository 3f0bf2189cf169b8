#pragma once
// How good were a battery's forecasts? Decision accuracy (all targets, and clear cases where
// |actual net saving| >= 10%), abstentions, the trivial rules on the same targets, the same
// numbers for leave-one-corpus-out forecasts (a target's group is its corpus), and the value of
// the forecast: the compute spent following it against always curating and always training on
// random data, net of the forecasts' own cost. Pure arithmetic over finished trials.
//
// Compute spent per target, in measured core-seconds (f = the trial's core-seconds per step):
//   random arm   t_R * f + c_R                       (reaches L*, the random arm's best)
//   curated arm  t_C * f + c_C                       when it caught up
//                S * f + c_C + (t_R * f + c_R)       when it never did: the whole budget spent,
//                                                    then the random run to reach L* after all
//   following    the forecast's own cost + the arm its verdict chose; an abstention
//                ("uncertain") falls back to random data, the safe default
// c_C here is the selection's cost only: the forecast's cost is counted once, in "following".

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "forecast/calibration.h"

namespace preflight::forecast {

struct BatteryOutcome {
  Example example;      // name, signals, net (nullopt: never caught up)
  Prediction forecast;  // what the forecast said before the trial
  double forecast_core_seconds = 0;
  double cost_random = 0;   // core-seconds, as above
  double cost_curated = 0;  // core-seconds, as above
};

// What a trial measured that the value of the forecast needs, in core-seconds and steps.
struct TrialCosts {
  double core_seconds_per_step = 0;  // f
  double selection_random = 0;       // c_R
  double selection_curated = 0;      // c_C
  double t_random = 0;               // t_R
  double t_curated = 0;              // t_C; +inf when the curated arm never caught up
  double budget_steps = 0;           // S
};

// The costs above: following random costs t_R f + c_R; following curate costs t_C f + c_C, or,
// when the curated arm never caught up, its whole budget S f + c_C and then the random run.
void FillCosts(const TrialCosts& costs, BatteryOutcome* row);

// The summary (JSON; FormatEvaluation prints it). "leave_one_out" holds the leave-one-corpus-out
// verdicts; it is null when the rows are too few (held_out.h).
nlohmann::json EvaluateForecasts(const std::vector<BatteryOutcome>& rows);

std::string FormatEvaluation(const nlohmann::json& evaluation);

}  // namespace preflight::forecast
