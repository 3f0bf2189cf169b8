// The calibration forecasts use until a ledger has its own: fitted on the calibration battery
// (doc/calibration-battery.md); doc/forecast.md has the run that made it.
#include "forecast/calibration.h"

namespace preflight::forecast {

Calibration DefaultCalibration() {
  // `scripts/calibration-battery.sh`, then `preflight battery --spec
  // data/calibration/battery.json --model tiny --steps 300 --ledger L` and
  // `preflight forecast --calibrate --ledger L` (doc/forecast.md has the run and its figures).
  static const char* kFit = R"json(
    {"curve": [[-0.0159879, -1.0], [0.0, -0.704198],
    [0.046625, 0.158442], [0.0948093, 0.200135],
    [0.157787, 0.395676], [0.287712, 0.45743],
    [0.385894, 0.458935]], "examples": 12, "form":
    "anchored_monotone", "groups": 4, "neighbours":
    10, "residuals": [[-0.0509157, 0.0], [-0.0373912,
    0.0], [-0.00219088, -0.317068], [0.0265462,
    -0.681956], [0.046625, 0.480231], [0.0948093,
    -0.0611387], [0.157787, 0.111541], [0.234355,
    0.101157], [0.312046, 0.0279279], [0.316736,
    -0.0878789], [0.366584, 0.0480984], [0.405204,
    -0.0264703]], "scale": {"informative": 0,
    "model": "tiny", "steps": 300, "tokens":
    307200.0, "trials": 12}, "signal": "byte_bigram_gain",
    "source": "interim: battery of 2026-12-02, 12 of 61 targets, tiny/300"}
)json";
  static const Calibration kDefault = Calibration::FromJson(nlohmann::json::parse(kFit)).value();
  return kDefault;
}

}  // namespace preflight::forecast
