#pragma once
// The regime check in words (trial/regime.h): one sentence for the lab record and the report, a
// warning to print beside an uninformative pilot's saving, and the one-screen line.

#include <nlohmann/json.hpp>
#include <string>

#include "trial/regime.h"

namespace preflight::narrate {

// What an uninformative pilot's saving carries beside it, word for word.
inline constexpr char kUninformativeWarning[] =
    "this pilot learned no more than byte n-gram statistics; its saving says little about a "
    "larger model";

// "The pilot learned more than byte n-gram statistics: its best held-out loss (L* = 2.9000 bits
// per byte) is 0.3400 bits below the best byte n-gram model fitted on the same data (order 4:
// 3.2400; bigram 3.6000, unigram 4.6000), clearing the 0.0500-bit threshold." Uninformative:
// the warning, capitalised, then the same numbers and "short of the ... threshold".
std::string RegimeSentence(const trial::Regime& regime);

// Adds record["regime"] (RegimeSentence) and, for an uninformative pilot, the warning after the
// summary's saving, so that the saving never appears without it.
void AddRegimeToLabRecord(const trial::Regime& regime, nlohmann::json& record);

// The one-screen lines:
//   "  regime                     informative: L* 2.9000 vs best n-gram 3.2400 (order 4), margin
//   +0.3400 bits (threshold 0.0500)\n", and for an uninformative pilot a second line with the
//   warning.
std::string RegimeNumbersText(const trial::Regime& regime);

}  // namespace preflight::narrate
