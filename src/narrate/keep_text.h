#pragma once
// The words of a keep ladder (doc/ladder.md, "How much to keep"): a rung's best fraction and how
// sure it is, and the recommendation, made or refused, in one sentence each. For the ladder's
// terminal table and its page.

#include <string>

#include "trial/keep_choice.h"

namespace preflight::narrate {

// "10%", "0.5%", "the whole pool" (1).
std::string KeepWords(double keep);

// "10% (lowest end loss in 87% of 2,000 resamples over seeds; 3 of 4 seeds)".
std::string BestKeepSentence(const trial::BestKeep& best);

// "Keep 12% of the pool for a run of 3.2 TFLOP (95% interval 6.1% to 25%): <reason>." or
// "No fraction to keep for a run of 3.2 TFLOP: <reason>."
std::string RecommendationSentence(const trial::KeepRecommendation& r);

}  // namespace preflight::narrate
