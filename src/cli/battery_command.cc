// preflight battery: a forecast and a trial for every target of a battery spec, and one table
// (app/battery_job.h).

#include <cstdio>

#include "app/battery_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/model_flags.h"
#include "cli/trial_flags.h"
#include "cli/trial_observer.h"
#include "ledger/ledger.h"

namespace preflight::cli {

int RunBattery(int argc, char** argv) {
  CLI::App app;
  Describe(app, "battery",
           "For every target of a battery spec (the built-in one is data/brown/battery.json):\n"
           "a forecast, then the trial that tests it. Prints one table (verdict, predicted and\n"
           "actual net saving, right or wrong, gross saving, the net saving's 95% interval,\n"
           "caught up) and a summary: the forecast's decision accuracy on all targets and on\n"
           "clear cases (|net| >= 10%), abstentions, the same for always-curate and\n"
           "always-random, the leave-one-target-out accuracy (each target forecast with a\n"
           "calibration fitted on the others), and the value of the forecast in core-seconds.\n"
           "Resumable: rerun the same command (finished trials are reused; forecasts rerun).\n\n"
           "Example:\n  preflight battery --spec data/brown/battery.json --out runs/battery "
           "--model tiny --steps 300\n\n" +
               std::string(kTrainerHelp));
  app::BatteryRequest r;
  r.ledger_path = ledger::DefaultLedgerPath();
  trial::TrialConfig& base = r.base;
  ModelFlags model;
  app::PriceFlags prices;
  bool json = false, quiet = false;
  app.add_option("--spec", r.spec_path, "battery spec (JSON)")->required();
  app.add_option("--out", r.out_dir, "output folder (one trial folder per target)")->required();
  app.add_option("--targets", r.only, "run only these targets (names in the spec)");
  // A target's "text_field", "id_field", "target_text_field", "target_id_field" in the spec win.
  AddSpecFlags(app, base);
  model.Add(app);
  app.add_option("--steps", base.steps, "training steps per run")->capture_default_str();
  AddEvalFlags(app, base);
  AddThreadFlags(app, base);
  AddTrainerFlags(app, base.trainer, prices);
  app.add_option("--ledger", r.ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("battery", resolved.status());
  base.model = *resolved;
  base.model_name = model.name;
  if (Status st = ApplyPriceFlags(prices, base); !st.ok()) return Fail("battery", st);
  TrialProgressBar bar(quiet);
  auto job = app::RunBatteryJob(r, bar.Observer());
  if (!job.ok()) {
    bar.Stop();  // not "done": the error follows
    return Fail("battery", job.status());
  }
  if (!job->leader) return 0;  // an MPI rank other than 0: rank 0 reports
  if (json) {
    EmitJson(app::BatteryJson(*job));
  } else {
    std::printf("%s", app::BatteryText(*job).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
