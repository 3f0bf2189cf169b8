#pragma once
// Signals of a kind other than byte-model likelihoods, measured on the arms and the target's
// selectable part (never the held-out file):
// - NgramCoverageGain: how much more of the target's byte 4-grams the curated arm contains than
//   the random arm does (coverage of the target's higher-order n-grams by each arm).
// - ClassifierAuc: how well a classifier (multinomial naive Bayes over hashed byte 4-grams,
//   two-fold cross-validated over passages of at most 4 KiB) tells the target's passages from an
//   arm's. Near 0.5: the arm already reads like the target; near 1: the target stands apart.
//   The gap AUC(random) - AUC(curated) is how much closer, to a classifier, the curated arm is.
// All deterministic and cheap (a few seconds on a quarter of a 30 MB pool): the arm is read in
// at most kMaxPassages evenly spaced passages.

#include <string>
#include <vector>

namespace preflight::forecast {

// Share of the target's byte 4-gram occurrences (within documents) found anywhere in `arm`.
double NgramCoverage(const std::vector<std::string>& arm, const std::vector<std::string>& target);

// NgramCoverage(curated, target) - NgramCoverage(random, target).
double NgramCoverageGain(const std::vector<std::string>& curated,
                         const std::vector<std::string>& random,
                         const std::vector<std::string>& target);

// The cross-validated AUC of target-versus-arm passages; 0.5 when either side has fewer than two
// passages (nothing to cross-validate).
double ClassifierAuc(const std::vector<std::string>& target, const std::vector<std::string>& arm);

}  // namespace preflight::forecast
