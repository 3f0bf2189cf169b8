#pragma once
// What the trial, battery and demo commands share: running a trial with a progress line,
// rendering its report and appending its receipt.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "cli/model_flags.h"
#include "forecast/forecast.h"
#include "trial/runner.h"

namespace preflight::cli {

struct TrialRun {
  trial::TrialOutcome outcome;
  nlohmann::json summary;  // DESIGN.md's trial --json document
  std::string receipt_hash;
};

// False in an MPI rank other than 0 (which must neither print nor write receipts).
bool IsLeaderProcess();

// trial::RunTrial with a progress bar on stderr (unless quiet); under mpirun its runs are spread
// over the ranks, and ranks other than 0 get an outcome with leader == false (and print nothing).
Result<trial::TrialOutcome> RunTrialWithProgress(const trial::TrialConfig& config, bool quiet);

// Renders the trial's report.html (data or schedule trial) into outcome.report_path.
Status WriteTrialReport(const trial::TrialOutcome& outcome);

// Appends the trial's receipt (kind "trial": its inputs, config, `result`, measured cost) and
// returns its hash.
Result<std::string> AppendTrialReceipt(const trial::TrialConfig& config,
                                       const trial::TrialOutcome& outcome,
                                       const nlohmann::json& result,
                                       const std::string& ledger_path);

// Runs the trial (progress on stderr unless quiet), writes report.html and appends the receipt.
// With forecast_first (and no forecast named in the config), first runs the forecast the trial
// then tests, appending its receipt before any training step; the trial's receipt names it and
// marks it right or wrong.
Result<TrialRun> RunTrialWithReceipt(const trial::TrialConfig& config,
                                     const std::string& ledger_path, bool quiet,
                                     bool forecast_first = true);

// The forecast of the trial `config` describes, with the ledger's calibration.
Result<forecast::ForecastConfig> ForecastConfigFor(const trial::TrialConfig& config,
                                                   const std::string& ledger_path);

// A short human summary of a finished trial (one screen).
std::string TrialSummaryText(const TrialRun& run);

}  // namespace preflight::cli
