#pragma once
// Signals of a kind other than byte-model likelihoods, measured on the arms and the target's
// selectable part (never the held-out file):
// - NgramCoverageGain: how much more of the target's byte 4-grams the curated arm contains than
//   the random arm does (coverage of the target's higher-order n-grams by each arm).
// - ClassifierAuc: how well a classifier (multinomial naive Bayes over hashed byte 4-grams,
//   two-fold cross-validated over passages of at most 4 KiB, folds by document) tells the target's
//   passages from an arm's. Near 0.5: the arm already reads like the target; near 1: the target
//   stands apart. The gap AUC(random) - AUC(curated) is how much closer, to a classifier, the
//   curated arm is.
// - TargetLikeShare: how much of the curated quarter is actually like the target, not only
//   whether it is closer than a random quarter. The same classifier, target against the random
//   quarter, draws a line at the median score of the target's held-out passages. Half of the
//   passages like the target land above it and next to none of the others, so twice the share
//   of an arm's passages above it estimates the share of the arm like the target; the curated
//   quarter's minus the random quarter's (its held-out passages) is the target-like part
//   curating adds. A target the pool already reads like gives about 0 (both shares about 1); a
//   rare target, whose kind is a trace of the pool, gives little however much closer the
//   curated quarter is; a target with plenty of its kind in the pool gives much.
// All deterministic and cheap (a few seconds on a quarter of a 30 MB pool): the arm is read in
// at most kMaxPassages evenly spaced passages.

#include <cstddef>
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

struct TargetLike {
  double curated = 0;     // twice the share of the curated quarter's passages above the target's
                          // median: the share like the target
  double random = 0;      // the same for the random quarter's (held-out) passages
  double gain = 0;        // curated - random
  double lo = 0, hi = 0;  // 80% interval of the gain (normal, binomial errors of both shares)
  double auc = 0.5;       // ClassifierAuc(target, random), from the same folds
};

// The classifier of ClassifierAuc(target, random), and the shares above. Everything 0 (auc 0.5)
// when the target or the random quarter has fewer than two passages. `passage_bytes`: the
// passages' length (4 KiB; SIZE_MAX: whole documents, the shares then counting documents).
TargetLike TargetLikeShare(const std::vector<std::string>& target,
                           const std::vector<std::string>& curated,
                           const std::vector<std::string>& random, size_t passage_bytes = 4096);

}  // namespace preflight::forecast
