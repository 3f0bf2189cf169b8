// preflight fit: flags -> app::FitRequest -> app::RunFit -> the report (stdout, or stderr under
// --json) and the JSON document. The job is in src/app/cost_fit_job.h.

#include <cstdio>
#include <string>

#include "app/cost_fit_job.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace preflight::cli {

int RunFit(int argc, char** argv) {
  CLI::App app;
  Describe(app, "fit",
           "Fit L(N, D) = E + A/N^alpha + B/D^beta to runs: Huber loss (delta 1e-3) on log-loss, "
           "L-BFGS (liblbfgs) from Hoffmann et al.'s grid of 4,500 starting points, bootstrap "
           "intervals over the runs. Input: a CSV of N, D, loss, or a ledger whose trial/train "
           "receipts carry params, tokens and loss (see doc/cost.md).");
  app::FitRequest r;
  bool as_json = false;
  auto* csv_opt = app.add_option("--csv", r.csv, "CSV of N, D, loss (optional header)");
  app.add_option("--ledger", r.ledger, "ledger JSONL: runs from trial and train receipts")
      ->excludes(csv_opt);
  app.add_option("--bootstrap", r.options.bootstrap, "bootstrap resamples (0 = none)")
      ->capture_default_str();
  app.add_option("--seed", r.options.seed, "bootstrap RNG seed")->capture_default_str();
  app.add_option("--delta", r.options.huber_delta, "Huber delta on log-loss residuals")
      ->capture_default_str();
  app.add_option("--out", r.out_path, "also write the JSON document here (for plan --law-json)");
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  r.progress = [](const ProgressReport& p) {
    std::fprintf(stderr, "preflight fit: %s\n", p.note.c_str());
  };

  auto outcome = app::RunFit(r);
  if (!outcome.ok()) return Fail("fit", outcome.status());
  std::fputs(app::FitText(*outcome).c_str(), as_json ? stderr : stdout);
  if (as_json) EmitJson(app::FitToJson(*outcome));
  return 0;
}

}  // namespace preflight::cli
