#pragma once
// The regime check (doc/design.md, "The metrics, exactly", Regime): did the pilot
// learn more than byte n-gram statistics? Byte unigram, bigram and order-n models
// (trial/byte_ngram.h) are fitted on each arm's own training file and score T_eval exactly as the
// engine's eval does (trial/ngram_scores.h, in preflight_trial: it reads files and the engine's
// eval windows). So every score is in the unit of eval_bpb and comparable with L*. This header is
// the arithmetic on those scores and their JSON (preflight_trial_metrics: base only).
//
// Definitions (one place; doc/design.md repeats them):
//   best n-gram = min(unigram_bpb, bigram_bpb, ngram_bpb) of the arm that sets L* (the random
//                 arm of a data trial, the baseline of a schedule trial: its own data);
//   margin      = best n-gram - L*   (bits per byte; positive: the pilot beat every n-gram);
//   informative = margin >= threshold (kInformativeMarginBits, measured: doc/design.md).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace preflight::trial {

inline constexpr int kDefaultNgramOrder = 4;
// The margin (bits per byte) a pilot's L* must beat the best n-gram model by to be called
// informative. Chosen from measurements on the built-in battery (doc/design.md, "The metrics,
// exactly").
inline constexpr double kInformativeMarginBits = 0.05;

struct NgramScores {
  double unigram_bpb = 0, bigram_bpb = 0, ngram_bpb = 0;
  int ngram_order = kDefaultNgramOrder;
};

// The best of the three scores.
double BestNgramBpb(const NgramScores& scores);

struct Regime {
  NgramScores baseline;      // the arm that sets L* (random / a schedule trial's baseline)
  std::string baseline_arm;  // its name ("random", "baseline")
  std::map<std::string, NgramScores> arms;  // every arm, by arm name
  double l_star = 0;                        // the baseline arm's best mean eval loss
  double margin = 0;                        // BestNgramBpb(baseline) - l_star
  double threshold = kInformativeMarginBits;
  bool informative = false;  // margin >= threshold
};

// margin, threshold and informative from the scores and L*.
Regime MakeRegime(const NgramScores& baseline, std::map<std::string, NgramScores> arms,
                  double l_star, double threshold = kInformativeMarginBits);

// {"unigram_bpb","bigram_bpb","ngram_bpb","ngram_order","best_ngram_bpb","l_star","margin",
//  "threshold","informative","baseline_arm",
//  "arms":{"<arm>":{"unigram_bpb","bigram_bpb","ngram_bpb","ngram_order"}}}
nlohmann::json RegimeToJson(const Regime& regime);

// An arm's scores as trial.json stores them, and back (Corruption naming the file and path).
nlohmann::json NgramScoresToJson(const NgramScores& scores);
Result<NgramScores> NgramScoresFromJson(const JsonReader& reader);

}  // namespace preflight::trial
