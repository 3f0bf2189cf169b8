#pragma once
// Which labelled trials a calibration is fitted on when its ledger holds forecasts of different
// ages: a signal added to the forecast (e.g. the cross-fitted ones) is missing from the
// forecasts made before it, and a candidate must be measured on every example it is compared
// on. So the calibration uses the newest signals when at least half of its trials carry them:
// the trials whose forecasts lack any signal that half or more of the trials carry are set
// aside (counted and named in the calibration's report; `preflight forecast --remeasures`, or a
// new trial of the target, brings them back). With fewer than half carrying a signal, that
// signal is passed over instead, and every trial stays.

#include <string>
#include <vector>

#include "forecast/calibration.h"

namespace preflight::forecast {

struct ExampleSet {
  std::vector<Example> kept;
  std::vector<std::string> set_aside;  // the names of the trials left out, in ledger order
  std::vector<std::string> missing;    // the signals they lacked (sorted)
};

ExampleSet SelectExamples(const std::vector<Example>& all);

}  // namespace preflight::forecast
