#pragma once
// What the trial, battery and demo commands share: running a trial with a progress line,
// rendering its report and appending its receipt.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "cli/model_flags.h"
#include "trial/runner.h"

namespace preflight::cli {

struct TrialRun {
  trial::TrialOutcome outcome;
  nlohmann::json summary;  // DESIGN.md's trial --json document
  std::string receipt_hash;
};

// Runs the trial (progress on stderr unless quiet), writes report.html and appends the receipt.
Result<TrialRun> RunTrialWithReceipt(const trial::TrialConfig& config,
                                     const std::string& ledger_path, bool quiet);

// A short human summary of a finished trial (one screen).
std::string TrialSummaryText(const TrialRun& run);

}  // namespace preflight::cli
