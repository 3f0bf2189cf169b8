#pragma once
// The runs of a launched trainer, N at a time (`--parallel N`): each run is a child process
// (launch.h); this process starts them in the order given, polls them, and hands each result to
// the caller as its run ends, so a trial records every finished run at once (a kill loses only
// the runs in flight). The caller keys results by run, so the numbers do not depend on the order
// in which runs finish.

#include <functional>
#include <vector>

#include "base/status.h"
#include "trainer/cmd_trainer.h"

namespace preflight::trainer {

struct LaunchCallbacks {
  std::function<void(size_t index)> on_start;  // run `index` was launched (may be empty)
  // run `index` ended with `result` (collected without a launch when its folder held a finished
  // one); a failure returned here stops further launches like a failed run.
  std::function<Status(size_t index, const RunResult& result)> on_done;
  // About once a second while launches run, from the first second on: the oldest run in flight
  // and the wall seconds since its launch (for progress; may be empty).
  std::function<void(size_t index, double seconds)> on_wait;
};

// Runs every request, at most `parallel` at once, in order, each within trainer.Limits() (a run
// past them is ended with its process group and fails: launch.h). A request whose folder already
// holds a finished launch is collected without launching it again. After the first failure (a
// run that failed, or an on_done error) no new launch starts; the launches in flight are waited
// for and the ones that succeed still reach on_done; then the first failure is returned.
Status RunLaunches(const CmdTrainer& trainer, const std::vector<RunRequest>& requests, int parallel,
                   const LaunchCallbacks& callbacks);

}  // namespace preflight::trainer
