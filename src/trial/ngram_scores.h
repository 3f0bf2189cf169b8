#pragma once
// The regime check's scores (trial/regime.h says what they are for): byte n-gram models
// (trial/byte_ngram.h: interpolated Witten-Bell over the trainer's 257-symbol stream, with a
// uniform floor) fitted on an arm's training documents score T_eval exactly as the engine's eval
// does: the same token stream (a boundary token before each document), the same fixed eval
// windows (engine/data.h MakeEvalWindows with the trial's context and window count), the same
// counted target positions, and contexts that never reach back before a window's start.
//
// Defined in preflight_trial (ngram_scores.cc), which links the engine and corpus readers these
// use. Deterministic: the same inputs give bit-identical scores. Each call is single-threaded
// (seconds on a few MB) and shares nothing with another, so calls may run on several threads.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"
#include "trial/regime.h"

namespace preflight::trial {

// Which positions of T_eval are scored: the engine's eval windows (context > 0: windows of
// `context` tokens, `max_windows` of them spread evenly, 0 = all), or with context = 0 every
// target position of the stream with unclipped contexts.
struct NgramEvalWindows {
  int context = 0;
  int64_t max_windows = 0;
};

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

}  // namespace preflight::trial
