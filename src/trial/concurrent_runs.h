#pragma once
// Several builtin runs at once, each on one thread of this process (`--runs-at-once`).
//
// engine::Train may be called from several threads at once (engine/train.h: the thread count it
// sets is the calling thread's). Through BLIS, the default BLAS, its results do not depend on
// the thread count (engine/blas.h: every element of a product is summed in the same order), so
// a run trained on one thread beside another gives bit-identical curves to the same run trained
// alone on all threads; only its speed differs. On a small model
// a second thread does not speed a run (tiny, 300 steps on this 2-core machine: 20.5 s on one
// thread, 21.4 s on two; small, 40 steps: 17.5 s on one, 10.5 s on two), so two tiny runs side
// by side finish in about half the time. A run on one
// thread is charged its own thread's CPU time (engine/train.cc), not its neighbour's.

#include <functional>
#include <string>

#include "base/status.h"
#include "trial/runner.h"

namespace preflight::trial {

// Runs at once for a builtin trial in this process: `runs_at_once` when given (>= 1), else (0,
// auto) one per thread for a model under half a million parameters (tiny), where a second thread
// does not speed a run, and one otherwise. A schedule trial trains one run at a time (its arms
// compare wall time, so they share the machine alike).
int RunsAtOnce(const TrialConfig& config);

// Runs tasks 0..count-1, `workers` at a time on threads of this process: run(i) on a worker,
// on_result(i, output) on the calling thread as each ends (in the order they end). After the
// first failure (of a run or of on_result) no task starts; the tasks in flight finish and their
// successes still reach on_result; then the first failure is returned.
Status RunConcurrently(int count, int workers, const std::function<Result<std::string>(int)>& run,
                       const std::function<Status(int, const std::string&)>& on_result);

}  // namespace preflight::trial
