#pragma once
// `preflight forecast --calibrate`: refit the signal-to-verdict line on the trials in the ledger
// that tested a forecast, and save it beside the ledger for later forecasts.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "forecast/calibration.h"

namespace preflight::app {

struct LeaveOneOutScore {
  int right = 0, decided = 0, abstained = 0;
};

struct CalibrateJob {
  std::string ledger_path;
  size_t examples = 0;
  forecast::Calibration calibration;  // the fit, or the default when too few trials
  std::string saved;                  // where the fit was saved; "" when none was
  std::optional<LeaveOneOutScore> leave_one_out;
};

// Fewer than 4 labelled trials keep the default (nothing saved).
Result<CalibrateJob> RunCalibrateJob(const std::string& ledger_path);

nlohmann::json CalibrateJson(const CalibrateJob& job);
std::string CalibrateText(const CalibrateJob& job);

}  // namespace preflight::app
