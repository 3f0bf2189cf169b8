#pragma once
// The forecast a user asks for (`preflight forecast`) or a trial makes before its first step:
// the verdict, its receipt in the ledger, and what it prints.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/progress.h"
#include "base/status.h"
#include "forecast/forecast.h"

namespace preflight::app {

struct ForecastJob {
  forecast::ForecastConfig config;
  forecast::ForecastOutcome outcome;
  std::string receipt_hash;
};

// Where `forecast --calibrate` keeps its fit: calibration.json beside the ledger.
std::string CalibrationPath(const std::string& ledger_path);

// The fit in CalibrationPath(ledger_path) when there is one, else the built-in default.
// Corruption naming the file and JSON path for a damaged one.
Result<forecast::Calibration> LoadCalibration(const std::string& ledger_path);

// Runs the forecast (on `arms` when given, else on arms it makes) and appends its receipt before
// returning. `progress` hears each stage as it starts (forecast::RunForecast).
Result<ForecastJob> RunForecastJob(const forecast::ForecastConfig& config,
                                   const std::string& ledger_path,
                                   const std::optional<forecast::ForecastArms>& arms = {},
                                   const ProgressFn& progress = {});

// Right or wrong by doc/design.md's rule ("Forecast correct"); null for an abstention
// ("uncertain").
nlohmann::json ForecastCorrect(const std::string& verdict, double net_saving, bool caught_up);

// The `forecast --json` document (doc/design.md, "The command-line contract").
nlohmann::json ForecastJson(const ForecastJob& job);
// One screen for a human.
std::string ForecastText(const ForecastJob& job);

}  // namespace preflight::app
