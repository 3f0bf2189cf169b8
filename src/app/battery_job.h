#pragma once
// The battery (`preflight battery`): for every target of a spec, a forecast and the trial that
// tests it (app/trial_job.h), then one table, the forecast's decision accuracy against the
// trivial rules, and the value of the forecast; one "battery" receipt naming every trial's.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/battery_spec.h"
#include "app/trial_job.h"

namespace preflight::app {

struct BatteryRequest {
  std::string spec_path;
  std::string out_dir;  // one trial folder per target
  std::string ledger_path;
  std::vector<std::string> only;  // run only these targets (empty: all)
  trial::TrialConfig base;        // model, steps, seeds, selector, keep, ...
};

struct BatteryRow {
  BatteryTarget target;
  TrialJob trial;
};

struct BatteryJob {
  bool leader = true;  // false in an MPI rank other than 0
  BatterySpec spec;
  std::vector<BatteryRow> rows;
  nlohmann::json evaluation;  // forecast::EvaluateForecasts
  double core_seconds = 0, flops = 0;
  std::string out_dir;
  std::string receipt_hash;
};

Result<BatteryJob> RunBatteryJob(const BatteryRequest& request, const TrialObserver& observer);

nlohmann::json BatteryJson(const BatteryJob& job);
std::string BatteryText(const BatteryJob& job);

}  // namespace preflight::app
