#pragma once
// A cheap model's learning curve on each arm, at the pilot's token schedule: an
// interpolated Witten-Bell byte n-gram model (trial/byte_ngram.h, of the order the regime check
// uses) fitted on the first k steps' worth of the windows a trial's run would read from the arm,
// for a few k up to the pilot's budget, and scored on documents of the target that the arm's
// selection did not read. It sees what a byte-level signal of the whole arm cannot: a quarter
// that is closer to the target but narrow (its curve flattens above the random arm's) and a
// quarter that is mostly another kind of text (its curve starts no lower).
//
// The schedule: a run of S steps reads S x B windows of T + 1 tokens at uniformly random starts
// of the arm's token stream (engine/data.h WindowSampler); here the starts come from a
// counter-based generator (select/gumbel.h UniformFor) keyed by the seed, each window preceded
// by the boundary token, and the curve's points are the first k x B windows for k = S / 2^j.
// The arm is fitted as read, so a budget larger than the arm re-reads it, as a run would.
//
// Scoring: each scored document is its own stream [boundary, bytes...] (engine::Tokenize), its
// bytes predicted with contexts that never reach before its start; at most `max_doc_tokens` of
// each (its first), so that the cost is bounded whatever the target's size.
//
// Deterministic for fixed inputs and seed.

#include <cstdint>
#include <string>
#include <vector>

#include "forecast/signals.h"

namespace preflight::forecast {

struct NgramSchedule {
  int64_t steps = 300;  // the pilot's S
  int batch = 16;       // B
  int context = 64;     // T
  int points = 4;       // curve points: S, S/2, S/4, ... (at least 1)
  int order = 4;        // trial/regime.h kDefaultNgramOrder
  int64_t max_doc_tokens = 2048;
  uint64_t seed = 1;
};

// One arm's curve on a set of documents: bits[p][d] of document d's scored bytes under the model
// fitted at point p (points in increasing tokens), with its scored byte count tokens[d].
struct ArmCurve {
  std::vector<double> tokens_seen;       // per point: training tokens read
  std::vector<std::vector<double>> bits;  // [point][document]
  std::vector<double> tokens;             // [document] scored bytes
};

ArmCurve FitArmCurve(const std::vector<std::string>& arm, const std::vector<std::string>& docs,
                     const NgramSchedule& schedule);

// The two arms' curves on the same documents (each document scored by the arm pair that did not
// select with it: the caller joins the folds), and what they say:
//   gain    random minus curated bits per byte at the budget's end (> 0: curated is closer
//           where the run ends);
//   saving  1 - t_C / t_R, the trial's measure on the n-gram curves: t_R the tokens at which the
//           random arm's curve reaches its lowest point L, t_C where the curated arm's first
//           reaches L (linear between points, from the uniform model at 0 tokens); -1 when it
//           never does within the budget (the trial's label for a curated arm that never caught
//           up);
// each with an 80% bootstrap interval over the documents (resampled with replacement).
struct CurveSignals {
  std::vector<double> tokens_seen;
  std::vector<double> curated_bpb, random_bpb;  // per point, over all documents
  GainEstimate gain, saving;
};

CurveSignals CompareCurves(const ArmCurve& curated, const ArmCurve& random, int resamples = 1000,
                           double level = 0.8, uint64_t seed = 1);

// 1 - t_C / t_R of two curves at the same points (see CurveSignals; -1 when never).
double CurveSaving(const std::vector<double>& tokens_seen, const std::vector<double>& curated_bpb,
                   const std::vector<double>& random_bpb);

}  // namespace preflight::forecast
