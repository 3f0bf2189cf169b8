#pragma once
// What the trial, battery and demo commands share: model flags, running a trial with a progress
// line, rendering its report and appending its receipt.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "trial/runner.h"

namespace preflight::cli {

// --model, --layers, --d-model, --heads, --context, --batch.
struct ModelFlags {
  std::string name = "tiny";
  int layers = 0, d_model = 0, heads = 0, context = 0, batch = 0;  // 0 = the named model's
  void Add(CLI::App& app);
  Result<train::ModelConfig> Resolve() const;
};

struct TrialRun {
  trial::TrialOutcome outcome;
  nlohmann::json summary;  // DESIGN.md's trial --json document
  std::string receipt_hash;
};

// Runs the trial (progress on stderr unless quiet), writes report.html and appends the receipt.
Result<TrialRun> RunTrialWithReceipt(const trial::TrialConfig& config, const std::string& ledger_path,
                                     bool quiet);

// A short human summary of a finished trial (one screen).
std::string TrialSummaryText(const TrialRun& run);

}  // namespace preflight::cli
