#pragma once
// The forecast's record on targets it never saw, in words: the sentence a summary prints beside
// a forecast's verdict (the demo's), so that one verdict, right or wrong, is read in context.
// The figures are forecast::kHoldoutRecord's; nothing here holds a number of its own.

#include <string>

#include "forecast/holdout_record.h"

namespace preflight::narrate {

// "On 23 targets from 5 corpora its calibration had not seen (bench/holdout/, since added to
// it), the forecast was right on 12 of 20 clear cases against 17 for always curating, called all
// 3 that did not pay `random`, and spent 0.821 random-arm runs per target against 0.841."
std::string ForecastRecordSentence(const forecast::HoldoutRecord& record);

// The same sentence as continuation lines of the one-screen numbers block: each indented to the
// values' column (29 spaces), none longer than 100 characters unless a word is.
std::string ForecastRecordLines(const forecast::HoldoutRecord& record);

}  // namespace preflight::narrate
