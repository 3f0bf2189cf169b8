// preflight demo: the main job on the bundled Brown corpus (app/demo_job.h).

#include <cstdio>

#include "app/demo_job.h"
#include "app/rung_reuse.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/trial_observer.h"
#include "ledger/ledger.h"

namespace preflight::cli {

int RunDemo(int argc, char** argv) {
  CLI::App app;
  Describe(
      app, "demo",
      "The main job on the bundled Brown corpus: keep the quarter of a pool most like a\n"
      "built-in target with each selector and show what was kept and why, then run a full trial\n"
      "(dsir vs random, tiny model, 4 seeds per arm) that measures the compute the choice saved,\n"
      "with its regime check, then a small ladder (the same arms at tiny:30, tiny:100 and\n"
      "tiny:300, 4 seeds per arm) that shows whether the saving grows with compute.\n"
      "Prints an estimate first; under 10 minutes on 2 cores. Resumable (rerun after a kill).");
  app::DemoRequest r;
  r.ledger_path = ledger::DefaultLedgerPath();
  bool quiet = false;
  app.add_option("--data", r.data_dir, "folder made by scripts/fetch-data.sh")
      ->capture_default_str();
  app.add_option("--target", r.target, "battery target (default: the battery's default_target)");
  app.add_option("--out", r.out_dir, "output folder")->capture_default_str();
  app.add_option("--seed", r.seed, "selection seed")->capture_default_str();
  app.add_option("--threads", r.threads, "threads")->capture_default_str();
  app.add_option("--ledger", r.ledger_path, "receipt ledger")->capture_default_str();
  app.add_option("--steps", r.steps, "training steps per run of the trial")->capture_default_str();
  app.add_option("--seeds", r.seeds, "runs per arm")->capture_default_str();
  app.add_flag("--select-only", r.select_only, "stop after the selections (no training)");
  app.add_option("--ladder-rungs", r.ladder_rungs,
                 "the ladder after the trial (MODEL:STEPS,...; '' = no ladder)")
      ->capture_default_str();
  app.add_option("--ladder-seeds", r.ladder_seeds, "runs per arm at each rung of the ladder")
      ->capture_default_str();
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  if (Status st = app::CheckDemoOutputs(r); !st.ok()) return Fail("demo", st);

  if (!quiet && !r.select_only) {
    auto config = app::DemoTrialConfig(r);
    if (!config.ok()) return Fail("demo", config.status());
    if (Status st = PrintTrialEstimate(*config, "demo"); !st.ok()) return Fail("demo", st);
    if (!r.ladder_rungs.empty()) {
      auto ladder = app::DemoLadderRequest(r, *config, "");
      if (!ladder.ok()) return Fail("demo", ladder.status());
      for (size_t i = 0; i < ladder->rungs.size(); ++i) {
        const std::string who = "demo ladder, rung " + std::to_string(i + 1);
        const trial::TrialConfig rung = app::RungConfig(*ladder, i);
        if (app::SameRuns(rung, *config)) {  // app/rung_reuse.h
          std::fprintf(stderr, "%s: the trial's own %d runs of %lld steps, reused (no training)\n",
                       who.c_str(), (rung.baseline == "first" ? 3 : 2) * rung.seeds,
                       static_cast<long long>(rung.steps));
        } else if (Status st = PrintTrialEstimate(rung, who); !st.ok()) {
          return Fail("demo", st);
        }
      }
    }
  }
  TrialProgressBar bar(quiet);
  auto job = app::RunDemoJob(r, bar.Observer());
  if (!job.ok()) {
    bar.Stop();  // not "done": the error follows
    return Fail("demo", job.status());
  }
  std::printf("%s", app::DemoText(*job).c_str());
  return 0;
}

}  // namespace preflight::cli
