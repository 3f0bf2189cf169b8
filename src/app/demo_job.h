#pragma once
// The demo (`preflight demo`): the main job on the bundled Brown corpus. Keeps the quarter of a
// pool most like a built-in target with each selector and shows what was kept and why, then
// runs a full trial (dsir vs random, the tiny model, four seeds per arm) with the forecast it
// tests, then a small ladder (the same arms at three rungs of the tiny model, app/ladder_job.h)
// that shows whether the saving grows, holds or shrinks with compute, and opens its output with
// a one-screen summary (the trial's, with its regime check).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/battery_spec.h"
#include "app/ladder_job.h"
#include "app/trial_job.h"
#include "select/selector.h"

namespace preflight::app {

struct DemoRequest {
  std::string data_dir = "data/brown";  // made by scripts/fetch-data.sh
  std::string target;                   // a battery target; "" = the battery's default
  std::string out_dir = "out/demo";
  std::string ledger_path;
  uint64_t seed = 1;
  int threads = 2;
  int64_t steps = 300;
  int seeds = 4;
  bool select_only = false;
  // The ladder after the trial: a tenfold range of compute whose top rung is the trial's own
  // runs (reused), so that set-up and demo fit 5 minutes on a bare 2-core machine
  // (bench/results.md); empty rungs = no ladder.
  std::string ladder_rungs = "tiny:30,tiny:100,tiny:300";
  int ladder_seeds = 4;
};

struct DemoSelection {
  std::string selector;
  select::SelectionResult result;
  double target_share = 0;  // share of the kept text that is the target's genre
};

struct DemoJob {
  BatteryTarget target;
  double pool_share = 0;  // share of the pool's text that is the target's genre
  std::vector<DemoSelection> selections;
  std::optional<TrialJob> trial;
  std::optional<LadderJob> ladder;
  std::string out_dir, ledger_path;
};

// The trial the demo runs (for its time estimate, printed before it starts).
Result<trial::TrialConfig> DemoTrialConfig(const DemoRequest& request);

// The ladder the demo runs after its trial: the trial's arms and target, ladder_seeds per arm,
// in <out>/ladder-<target>.
Result<LadderRequest> DemoLadderRequest(const DemoRequest& request, const trial::TrialConfig& trial,
                                        const std::string& target);

// InvalidArgument (exit 2) unless the ledger and the output folder can be written
// (ledger/writable.h); RunDemoJob checks it first, the CLI before it times anything.
Status CheckDemoOutputs(const DemoRequest& request);

Result<DemoJob> RunDemoJob(const DemoRequest& request, const TrialObserver& observer);

// The one-screen summary first, then the selections' details.
std::string DemoText(const DemoJob& job);

}  // namespace preflight::app
