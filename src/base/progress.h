#pragma once
// The one progress interface: long work (reading a corpus, a selection's passes, a training run,
// a trial, a forecast, a fit) tells its caller how far it is by calling a ProgressFn with a
// ProgressReport. Progress is only shown (src/cli draws it on stderr); it never feeds a result,
// so outputs and receipts are the same with and without a callback.
//
// Which thread calls: the one doing the work, which may be a worker thread (corpus::ScanShards
// reports from its reading threads, so a selection's passes do; a trial's builtin runs side by
// side report from each run's thread), but never two threads at once: every caller serializes
// its calls (under its own lock). ScanDocuments, engine::Train and the jobs call on the caller's
// thread. A callback should be quick and must not call back into the work.

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

namespace preflight {

struct ProgressReport {
  // What is being done: a selection's pass ("pool", "target", "score", "write"), a run
  // ("train curated seed 2"), a forecast's stage ("byte n-gram statistics").
  std::string stage = {};
  uint64_t done = 0;      // how much of the stage is done, in `unit`
  uint64_t total = 0;     // of how much; 0: unknown, or a stage announced without a measure
  std::string unit = {};  // "B" (bytes read from disk), "step" (optimizer steps) or "" (none)
  int run = 0, runs = 0;  // the 1-based run of `runs`; 0: not one run of a multi-run job
  // A training run's numbers at step `done`; NaN (a rate: 0) where not applicable.
  double train_loss = std::nan("");  // this step's training loss, nats per token
  double eval_bpb = std::nan("");    // the eval at this step, bits per byte (an eval's report)
  double lr = std::nan("");          // this step's learning rate
  double tokens_per_second = 0;      // training throughput so far
  std::string note = {};             // when set, shown instead of the numbers
};

using ProgressFn = std::function<void(const ProgressReport&)>;

}  // namespace preflight
