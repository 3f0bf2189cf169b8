#pragma once
// The regime check (doc/design.md, "The metrics, exactly", Regime): did the pilot
// learn more than byte n-gram statistics? Byte unigram, bigram and order-n models
// (trial/byte_ngram.h: interpolated Witten-Bell over the trainer's 257-symbol stream, with a
// uniform floor) are fitted on each arm's own training file and score T_eval exactly as the
// engine's eval does: the same token stream (a boundary token before each document), the same
// fixed eval windows (engine/data.h MakeEvalWindows with the trial's context and window count),
// the same counted target positions, and contexts that never reach back before a window's start.
// So every score here is in the unit of eval_bpb and comparable with L*.
//
// Definitions (one place; doc/design.md repeats them):
//   best n-gram = min(unigram_bpb, bigram_bpb, ngram_bpb) of the arm that sets L* (the random
//                 arm of a data trial, the baseline of a schedule trial: its own data);
//   margin      = best n-gram - L*   (bits per byte; positive: the pilot beat every n-gram);
//   informative = margin >= threshold (kInformativeMarginBits, measured: doc/design.md).
//
// Deterministic: the same files give bit-identical scores. Not thread-safe across calls on one
// model; ScoreNgrams itself is single-threaded (seconds on a few MB).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "corpus/record.h"

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

// Which positions of T_eval are scored: the engine's eval windows (context > 0: windows of
// `context` tokens, `max_windows` of them spread evenly, 0 = all), or with context = 0 every
// target position of the stream with unclipped contexts.
struct NgramEvalWindows {
  int context = 0;
  int64_t max_windows = 0;
};

// The best of the three scores.
double BestNgramBpb(const NgramScores& scores);

// Fits on the training file's documents (read with `train_read`: an arm is the pool's lines) and
// scores the eval file's (read with `eval_read`: T_eval's own fields). NotFound or Corruption
// naming the file for a missing or bad input; InvalidArgument naming it when the eval file has
// fewer tokens than one window. order in [1, 7] (kMaxNgramOrder).
Result<NgramScores> ScoreNgrams(const std::string& train_jsonl,
                                const corpus::ReadOptions& train_read,
                                const std::string& eval_jsonl, const corpus::ReadOptions& eval_read,
                                int order = kDefaultNgramOrder,
                                const NgramEvalWindows& windows = {});

// The same on documents already read; `eval_name` names the eval set in the error for one
// shorter than a window.
Result<NgramScores> ScoreNgramTexts(const std::vector<std::string>& train_docs,
                                    const std::vector<std::string>& eval_docs,
                                    const std::string& eval_name, int order,
                                    const NgramEvalWindows& windows);

// The same on token streams already made (engine::Tokenize); eval needs at least 2 tokens (and
// context + 1 when windows.context > 0).
Result<NgramScores> ScoreNgramTokens(const std::vector<uint16_t>& train,
                                     const std::vector<uint16_t>& eval, int order,
                                     const NgramEvalWindows& windows);

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
