#pragma once
// `preflight forecast --remeasures HASH`: signals measured again for a finished trial, so that a
// calibration can use signals added after the trial ran (forecast.h `remeasures`). Allowed only
// when the forecast reads what the trial read and forecasts what it trained: the same pool and
// target_select bytes (SHA-256, as both receipts record them) and the same selector, keep,
// selection seed, model, steps and seeds. Anything else would join signals of one case to the
// outcome of another.

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "forecast/forecast.h"

namespace preflight::app {

// The trial receipt `config.remeasures` names in the ledger, its settings checked against the
// forecast's. InvalidArgument naming the hash or the setting that differs.
Result<nlohmann::json> RemeasuredTrial(const std::string& ledger_path,
                                       const forecast::ForecastConfig& config);

// The forecast's pool files and target_select against the trial's, by SHA-256 (hashed here,
// before any work): the same files in the same order. InvalidArgument naming the file.
Status CheckSameInputs(const nlohmann::json& trial, const forecast::ForecastConfig& config);

}  // namespace preflight::app
