// The calibration forecasts use until a ledger has its own: fitted on the calibration battery
// (doc/calibration-battery.md); doc/forecast.md has the run that made it.
#include "forecast/calibration.h"

namespace preflight::forecast {

Calibration DefaultCalibration() {
  // `scripts/calibration-battery.sh`, then `preflight battery --spec
  // data/calibration/battery.json --model tiny --steps 300 --ledger L` and
  // `preflight forecast --calibrate --ledger L` (doc/forecast.md has the run and its figures).
  static const char* kFit = R"json(
    {"above": {"examples": 49, "intercept": 0.272354, "residuals": [-0.21321, -0.20797,
    -0.16305, -0.16039, -0.16028, -0.15077, -0.14302, -0.1176, -0.11109, -0.09451, -0.09361,
    -0.07078, -0.06971, -0.06384, -0.06021, -0.05398, -0.0374, -0.03055, -0.02974, -0.02009,
    -0.01049, -0.01014, -0.00217, 0.00676, 0.00945, 0.01313, 0.0163, 0.02025, 0.02249, 0.03865,
    0.03965, 0.04006, 0.04806, 0.04814, 0.05323, 0.06797, 0.08533, 0.08827, 0.09585, 0.0966,
    0.09979, 0.09993, 0.1031, 0.1043, 0.11562, 0.11668, 0.11804, 0.12723, 0.15567],
    "slope": 0.767464}, "below": {"examples": 4, "intercept": -1.0, "residuals": [0.0, 0.0,
    0.0, 0.0], "slope": 0.0}, "examples": 53, "groups": 11, "scale": {"informative": 0,
    "model": "tiny", "steps": 300, "tokens": 307200.0, "trials": 53},
    "signal": "byte_bigram_gain",
    "source": "default: calibration battery, 53 targets, 11 groups, tiny/300 (2026-12-01)"}
)json";
  static const Calibration kDefault = Calibration::FromJson(nlohmann::json::parse(kFit)).value();
  return kDefault;
}

}  // namespace preflight::forecast
