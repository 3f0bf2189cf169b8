// preflight forecast: before any training step, should this trial curate or train on a random
// sample? And `--calibrate`: refit the signal-to-verdict curve on the ledger's trials.
// (app/forecast_job.h, app/calibrate_job.h)

#include <cstdio>

#include "app/calibrate_job.h"
#include "app/forecast_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/model_flags.h"
#include "cli/trial_flags.h"
#include "ledger/ledger.h"

namespace preflight::cli {

int RunForecast(int argc, char** argv) {
  CLI::App app;
  Describe(app, "forecast",
           "Before any training step: will training on the selector's quarter of the pool reach\n"
           "the random quarter's quality with less compute? It makes both arms (never reading the\n"
           "held-out target) and measures signals of the curated quarter against the random\n"
           "one on the target's selectable part: byte n-gram gains, 4-gram coverage, and how\n"
           "well a classifier tells the target from each arm, and how much of the curated\n"
           "quarter is like the target. A non-decreasing curve fitted on trials already run,\n"
           "at most 0 where the signal is <= 0, maps the calibration's chosen signal to a net\n"
           "saving in [-1, 1]; its misses on corpora it was not fitted on, of the trials\n"
           "nearest in the signal, give the 80% interval and the probability that curating\n"
           "pays (never 0 or 1). Verdict: random when the signal's interval covers 0 (the\n"
           "curated quarter is not measurably closer, so the selection buys nothing); else\n"
           "curate when the signal says the curated quarter is closer (its interval above 0)\n"
           "and the expected saving exceeds the forecast's own cost (a fraction of the\n"
           "trial), random when it is below minus that cost, else uncertain.\n"
           "A forecast for a model or step count other than the\n"
           "calibration's says so and widens its interval. Appends a receipt to the ledger.\n\n"
           "--calibrate refits on the trials in the ledger that tested a forecast (choosing\n"
           "the signal whose out-of-corpus misses are smallest), prints the leave-one-corpus-\n"
           "out figures (accuracy on clear cases, abstentions, interval coverage, compute\n"
           "against always-curate and always-random, each signal alone), and saves the fit\n"
           "beside the ledger for later forecasts (--no-save: only report). With --pool too,\n"
           "it then forecasts; under --json the forecast's document holds the calibration's\n"
           "figures under \"calibrated\" (their text goes to stderr).\n\n"
           "Example:\n  preflight forecast --pool data/brown/pools/cj.jsonl \\\n"
           "      --target-select data/brown/targets/cj.select.jsonl --selector dsir \\\n"
           "      --model tiny --steps 300");
  forecast::ForecastConfig c;
  ModelFlags model;
  bool json = false, quiet = false, calibrate = false, no_save = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
  app.add_option(
      "--pool", c.pool,
      "pool files or folders (JSONL, .gz, .zst, Parquet, plain text; a kept folder of select)");
  app.add_option("--target-select", c.target_select, "target documents the selector may read");
  AddSpecFlags(app, c);  // the trial's selection, seeds and learning rate, as `trial` takes them
  model.Add(app);
  app.add_option("--steps", c.steps, "the trial's training steps per run (S)")
      ->capture_default_str();
  app.add_flag("--proxy", c.proxy,
               "also train the proxy runs (costs ~4% of the trial; lost on the built-in battery)");
  app.add_option("--proxy-fraction", c.proxy_fraction,
                 "the proxy runs' steps, as a fraction of the trial's training steps (<= 0.05)")
      ->capture_default_str();
  app.add_option("--signal-bytes", c.signal_bytes,
                 "the signals read at most about this many bytes of each arm (an evenly spread "
                 "sample of its documents; 0: whole arms)")
      ->capture_default_str();
  app.add_option("--threads", c.threads, "threads")->capture_default_str();
  app.add_option("--work", c.work_dir,
                 "keep the forecast's arms in this folder (default: a "
                 "temporary folder, removed)");
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--calibrate", calibrate,
               "refit the calibration on the ledger's trials (then forecast, if --pool is given)");
  app.add_flag("--no-save", no_save, "with --calibrate: report only, save no calibration");
  app.add_flag("--curve-signals", c.curve_signals,
               "also measure the cross-fitted n-gram learning curves and document-level "
               "target-like share (research; ~2% of a trial more)");
  app.add_option("--remeasures", c.remeasures,
                 "the hash of a finished trial in the ledger: measure its signals again (same "
                 "inputs and settings, checked) so that --calibrate can use signals added since");
  app.add_option("--group", c.group,
                 "the target's group (its corpus), recorded so --calibrate can leave it out");
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  // With --calibrate and --pool under --json, the one document is the forecast's with the
  // calibration's figures under "calibrated"; their text goes to stderr.
  nlohmann::json calibrated = nullptr;
  if (calibrate) {
    auto fit = app::RunCalibrateJob(ledger_path, !no_save);
    if (!fit.ok()) return Fail("forecast", fit.status());
    if (c.pool.empty()) {
      if (json) {
        EmitJson(app::CalibrateJson(*fit));
      } else {
        std::printf("%s", app::CalibrateText(*fit).c_str());
      }
      return 0;
    }
    std::fputs(app::CalibrateText(*fit).c_str(), json ? stderr : stdout);
    if (json) calibrated = app::CalibrateJson(*fit);
  }
  if (c.pool.empty() || c.target_select.empty()) {
    return Fail("forecast", Status::InvalidArgument("--pool and --target-select are required "
                                                    "(or --calibrate alone)"));
  }
  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("forecast", resolved.status());
  c.model = *resolved;
  c.model_name = model.name;
  auto calibration = app::LoadCalibration(ledger_path);
  if (!calibration.ok()) return Fail("forecast", calibration.status());
  c.calibration = *calibration;
  auto job = app::RunForecastJob(c, ledger_path, std::nullopt, [&](const ProgressReport& p) {
    if (!quiet) std::fprintf(stderr, "forecast: %s\n", p.stage.c_str());
  });
  if (!job.ok()) return Fail("forecast", job.status());
  if (json) {
    nlohmann::json doc = app::ForecastJson(*job);
    if (!calibrated.is_null()) doc["calibrated"] = std::move(calibrated);
    EmitJson(doc);
  } else {
    std::printf("%s", app::ForecastText(*job).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
