#pragma once
// The one wording of a bootstrap interval, for lab records, reports and terminal summaries.

#include <string>

#include "trial/bootstrap.h"

namespace preflight::narrate {

// The interval's ends: "12.0% to 20.5%", "from never catching up to 20.5%" (the lower end never
// caught up), "never caught up at either end", or "undefined" (no defined resample). For a table
// cell whose heading already names the level.
std::string IntervalBounds(const trial::Interval& ci);

// "95% interval 12.0% to 20.5%", "95% interval from never catching up to 20.5%",
// "95% interval: never caught up at either end", "95% interval undefined".
std::string IntervalSentence(const trial::Interval& ci, double level);

}  // namespace preflight::narrate
