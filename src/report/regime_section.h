#pragma once
// The report's regime section (trial/regime.h): did the pilot learn more than byte n-gram
// statistics? section#regime holds the verdict (span.good "informative" or span.bad "not
// informative") with narrate::RegimeSentence, and table#regime-table: a row per arm with its byte
// unigram, bigram and order-n scores on T_eval, then L*, the margin and the threshold.
// Pure function: same regime, same bytes.

#include <string>

#include "trial/regime.h"

namespace preflight::report {

std::string RegimeSection(const trial::Regime& regime);

}  // namespace preflight::report
