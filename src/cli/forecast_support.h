#pragma once
// What the forecast, trial, battery and demo commands share: a forecast with its receipt, and the
// calibration a forecast uses (the ledger's, when `forecast --calibrate` has fitted one).

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "forecast/forecast.h"

namespace preflight::cli {

struct ForecastRun {
  forecast::ForecastOutcome outcome;
  std::string receipt_hash;
  nlohmann::json summary;  // DESIGN.md's forecast --json document
};

// Where `forecast --calibrate` keeps its fit: calibration.json beside the ledger.
std::string CalibrationPath(const std::string& ledger_path);

// The fit in CalibrationPath(ledger_path) when there is one, else the built-in default.
Result<forecast::Calibration> LoadCalibration(const std::string& ledger_path);

// Runs the forecast (progress on stderr unless quiet) and appends its receipt.
Result<ForecastRun> RunForecastWithReceipt(const forecast::ForecastConfig& config,
                                           const std::string& ledger_path, bool quiet);

// Right or wrong by DESIGN.md's rule; null for an abstention ("uncertain").
nlohmann::json ForecastCorrect(const std::string& verdict, const nlohmann::json& net_saving);

// One screen for a human.
std::string ForecastSummaryText(const ForecastRun& run);

}  // namespace preflight::cli
