#pragma once
// Cross-fitted signals: what a curated quarter holds for this target, measured on
// target text its selection did not read. The trial's curated arm was selected with all of
// T_sel, so any signal measured on T_sel itself is measured in sample: the selection chose the
// documents most like these very bytes. Here T_sel's documents are split in two halves (by
// position: document d in half d % 2; a T_sel of fewer than 4 documents is first cut into 4 KiB
// pieces), the pool is selected once with each half (the trial's selector, keep and seed), and
// each half judges the quarter the other half selected. The random quarter is the trial's own
// (it never reads the target).
//
// Signals (each over all of T_sel's documents, each scored by the quarter selected without it;
// intervals: 80% bootstrap over the documents):
//   xfit_bigram_gain        the byte bigram gain (signals.h), out of sample
//   ngram_curve_gain        (only with curve_signals) the order-4 learning curves at the pilot's
//   ngram_curve_saving      token schedule (ngram_curve.h): the gap at the end; 1 - t_C / t_R
//   xfit_target_like_gain   (only with curve_signals) how much more of the curated quarter's
//   xfit_target_like_share  documents a classifier trained on the other half takes for the
//                           target's kind than of the random quarter's (pool_signals.h
//                           TargetLikeShare on whole documents), and the curated quarter's share
//
// Cost: two selections over the pool, made together (one scoring and one writing pass, the first
// pass shared with the trial's arms when it hands it over), at most kMaxPoolBytes of it (a larger
// pool is sampled, an evenly spread deterministic share of its lines written beside the arms),
// and the signals on at most `signal_bytes` of each arm. Writes only under work_dir.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "forecast/calibration.h"
#include "forecast/ngram_curve.h"
#include "select/prepared.h"
#include "trial/spec.h"

namespace preflight::forecast {

struct CrossFitOptions {
  // The pool, its fields and the selection, as the trial will make it (the rest of the spec is
  // not read here).
  trial::TrialSpec spec;
  uint64_t signal_bytes = 2ull << 20;  // read of each arm (0: whole)
  NgramSchedule schedule;
  // Also the n-gram learning curves and the document-level target-like share (off by default:
  // on the three batteries neither did better than xfit_bigram_gain, and together they cost about
  // 2% of a trial; bench/calibration/README.md).
  bool curve_signals = false;
  std::string work_dir;  // an existing folder
  // The pool's first pass, made ahead (a trial's input check): the two selections share it, and
  // one scoring and one writing pass, when it serves them (select/batch.h).
  const select::PreparedInputs* passes = nullptr;
};

struct CrossFitResult {
  std::map<std::string, SignalValue> signals;
  nlohmann::json evidence;  // the halves, the arms' sizes, both curves
  double selection_core_seconds = 0;
};

// The pool above this many bytes is sampled before the two selections.
inline constexpr uint64_t kMaxPoolBytes = 32ull << 20;

// `target`: T_sel's texts; `random`: the random quarter's (as read for the other signals).
Result<CrossFitResult> CrossFitSignals(const CrossFitOptions& options,
                                       const std::vector<std::string>& target,
                                       const std::vector<std::string>& random);

// T_sel's two halves (see above): pieces of at most 4 KiB when it has fewer than 4 documents.
std::vector<std::vector<std::string>> SplitHalves(const std::vector<std::string>& target);

}  // namespace preflight::forecast
