// The calibration forecasts use until a ledger has its own: fitted on the calibration battery
// (doc/calibration-battery.md); doc/forecast.md has the run that made it.
#include "forecast/calibration.h"

namespace preflight::forecast {

Calibration DefaultCalibration() {
  // PLACEHOLDER_DEFAULT_CALIBRATION
  static const char* kFit = R"json({
    "signal": "byte_bigram_gain", "intercept": 0.0, "slope": 1.0, "residuals": [-0.2, 0.0, 0.2],
    "examples": 0, "groups": 0,
    "scale": {"model": "tiny", "steps": 300, "tokens": 307200, "trials": 0, "informative": 0},
    "source": "placeholder"})json";
  static const Calibration kDefault = Calibration::FromJson(nlohmann::json::parse(kFit)).value();
  return kDefault;
}

}  // namespace preflight::forecast
