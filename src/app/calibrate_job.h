#pragma once
// `preflight forecast --calibrate`: refit the forecast on the trials in the ledger that tested
// one, save it beside the ledger for later forecasts, and say how the whole procedure does on
// corpora it was not fitted on (leave-one-corpus-out; forecast/held_out.h).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "forecast/calibration.h"

namespace preflight::app {

struct CalibrateJob {
  std::string ledger_path;
  size_t examples = 0;
  // Trials set aside because their forecasts lack signals most trials carry
  // (forecast/example_set.h), and those signals.
  std::vector<std::string> set_aside, lacking;
  forecast::Calibration calibration;  // the fit, or the default when too few trials
  std::string saved;                  // where the fit was saved; "" when none was
  // forecast::EvaluateHeldOut's summary; null when the trials are too few or from one corpus.
  nlohmann::json held_out = nullptr;
  std::string held_out_error;  // why held_out is null
};

// Fewer than 4 labelled trials keep the default (nothing saved). `save`: write the fit beside
// the ledger (off: only report).
Result<CalibrateJob> RunCalibrateJob(const std::string& ledger_path, bool save = true);

nlohmann::json CalibrateJson(const CalibrateJob& job);
std::string CalibrateText(const CalibrateJob& job);

}  // namespace preflight::app
