#pragma once
// The trial a user runs (`preflight trial`, and every target of `battery` and `demo`):
//   1. check every input before anything is written (trial::CheckTrial);
//   2. make the arms once (trial::RunTrial), and on those same arms run the forecast the trial
//      tests, appending its receipt before any training step (a rerun of the trial tests the
//      forecast its folder names, without a second receipt);
//   3. train, compute the numbers, append the trial receipt, write result.json and report.html
//      (which shows the receipt's hash).
// Under mpirun the runs are spread over the ranks (mpi/); only rank 0 writes and prints.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/forecast_job.h"
#include "base/progress.h"
#include "base/status.h"
#include "trial/runner.h"

namespace preflight::app {

struct TrialRequest {
  trial::TrialConfig config;
  std::string ledger_path;
  // Make the forecast the trial tests first (data trials, when config names none).
  bool forecast_first = true;
  std::string group;  // the forecast's group (a battery target's corpus); "" = the target's own
  nlohmann::json plan = nullptr;  // the --budget plan (app/budget_plan.h), recorded in the receipt
  // What trial::CheckTrial already read of this config's inputs (a ladder's check of its first
  // rung): taken over instead of reading the inputs again. Null: the job checks them itself.
  trial::CheckedInputs* checked = nullptr;
};

struct TrialObserver {
  ProgressFn progress;  // the trial's stages and training steps (trial::RunTrial)
  std::function<void(const std::string&)> note;  // one line: a stage, a forecast
};

struct TrialJob {
  trial::TrialOutcome outcome;
  // The forecast under test, when this job made it, or (a rerun of a trial whose folder names
  // one in this ledger) as its receipt recorded it: one trial, one forecast receipt.
  std::optional<ForecastJob> forecast;
  // The forecast under test as result.json recorded it (LoadTrialJob); null otherwise.
  nlohmann::json recorded_forecast;
  nlohmann::json lab_record;            // {summary, question, falsifier, finding, ...}
  std::string report_path;
  std::string receipt_hash;
};

// False in an MPI rank other than 0 (which must neither print nor write receipts).
bool IsLeaderProcess();

// The whole job; a non-leader MPI rank returns a job whose outcome.leader is false.
Result<TrialJob> RunTrialJob(const TrialRequest& request, const TrialObserver& observer = {});

// A finished trial read back from its folder (no training): numbers, lab record, report path,
// and the receipt hash and forecast under test recorded in result.json. For `preflight report`.
Result<TrialJob> LoadTrialJob(const std::string& out_dir);

// Renders report.html of a finished job into job.report_path.
Status WriteTrialReport(const TrialJob& job);

// The receipt's "result" (also result.json): the keys of doc/design.md and the lab record, arms,
// compute, model and the forecast under test.
nlohmann::json TrialResultJson(const TrialJob& job);
// The `trial --json` document (doc/design.md, "The command-line contract").
nlohmann::json TrialJson(const TrialJob& job);
// One screen for a human.
std::string TrialText(const TrialJob& job);

}  // namespace preflight::app
