#pragma once
// The evidence a forecast weighs, each measured on this pool and this target before any trial
// step runs. Two kinds:
// - Statistics of the arms' bytes (cheap, no training): how much better a byte n-gram model
//   fitted on the curated quarter predicts the target's selectable part than one fitted on the
//   random quarter (ByteNgramGain). The small model a trial trains learns byte statistics of
//   about this order in its budget, which is why the gain of these models says something about
//   the trial.
// - A proxy run (ProxyGain): the trial's own model, optimizer and schedule, one seed per arm,
//   stopped after a few percent of the trial's steps; the curated arm's lead on the target's
//   selectable part over its last eval points. Its curve is the first steps of the trial's seed-1
//   runs, evaluated on T_sel instead of the held-out T_eval.
// Neither reads the held-out target file.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/config.h"

namespace preflight::forecast {

// Cross-entropy of `target` (bits per byte) under an interpolated byte n-gram model (order 1 or
// 2; Witten-Bell interpolation down to uniform over 256 bytes) fitted on `train`.
double ByteNgramBits(const std::vector<std::string>& train, const std::vector<std::string>& target,
                     int order);

// Bits of each target document under that model (the sum ByteNgramBits divides by the bytes).
std::vector<double> ByteNgramDocumentBits(const std::vector<std::string>& train,
                                          const std::vector<std::string>& target, int order);

// A gain in bits per byte with a bootstrap interval over the target's documents.
struct GainEstimate {
  double gain = 0;        // over all of the target's bytes
  double lo = 0, hi = 0;  // the interval's ends (percentiles of the resampled gains)
  double level = 0.8;
  int resamples = 0;
};

// sum(saved) / sum(bytes) over the documents (saved[d]: bits document d saves, bytes[d]: its
// bytes), with the percentile interval of `resamples` resamples of the documents (with
// replacement, seeded): the interval ByteNgramGain and the cross-fitted gains carry.
GainEstimate BootstrapGain(const std::vector<double>& saved, const std::vector<double>& bytes,
                           int resamples = 1000, double level = 0.8, uint64_t seed = 1);

// ByteNgramBits under the random arm minus under the curated arm: > 0 when the curated quarter
// predicts the target's bytes better. The interval resamples the target's documents with
// replacement (`resamples` times, seeded), the models held fixed: it is the uncertainty that
// comes from having only these few target documents.
GainEstimate ByteNgramGain(const std::vector<std::string>& curated,
                           const std::vector<std::string>& random,
                           const std::vector<std::string>& target, int order, int resamples = 1000,
                           double level = 0.8, uint64_t seed = 1);

// The fraction of the target's byte pairs (adjacent bytes within a document) that occur anywhere
// in `arm`: how much of the target the pool's bytes cover at all.
double ByteBigramCoverage(const std::vector<std::string>& arm,
                          const std::vector<std::string>& target);

struct ProxyOptions {
  engine::ModelConfig model;
  int64_t trial_steps = 300;  // the trial's S: the schedule the proxy follows
  int64_t proxy_steps = 48;   // where it stops
  int64_t evals = 4;          // eval points after step 0, evenly spaced up to proxy_steps
  int64_t eval_max_windows = 64;
  float lr = 1e-3f;
  int threads = 2;
};

struct ProxyRun {
  std::vector<int64_t> steps;
  std::vector<double> bpb;        // eval on T_sel, bits per byte
  double core_seconds = 0;        // training + evals
  double train_core_seconds = 0;  // training steps only
  double flops = 0;               // training FLOPs
  int64_t trained_steps = 0;
};

struct ProxyResult {
  ProxyRun curated, random;
  double gain = 0;  // mean of random − curated bpb over the eval points in the second half
  double core_seconds = 0;
  double flops = 0;
  // Measured CPU seconds of one training step (evals excluded): the trial's f, estimated.
  double train_core_seconds_per_step = 0;
};

Result<ProxyResult> ProxyGain(const std::vector<std::string>& curated,
                              const std::vector<std::string>& random,
                              const std::vector<std::string>& target, const ProxyOptions& options);

}  // namespace preflight::forecast
