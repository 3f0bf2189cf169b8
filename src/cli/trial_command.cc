// preflight trial: train the curated and the random arm, four seeds each, and measure the
// compute the curated arm saved, net of what the selection cost.

#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/trial_support.h"
#include "ledger/ledger.h"

namespace preflight::cli {

int RunTrial(int argc, char** argv) {
  CLI::App app;
  Describe(app, "trial",
           "Train both arms (the selector's quarter and a random quarter of the same bytes) with\n"
           "paired seeds, the same model and budget, and measure compute saved: the training the\n"
           "curated arm needed to reach the best held-out loss the random arm ever reached (L*),\n"
           "net of the selection's measured cost. Writes OUT/report.html and a receipt.\n"
           "Resumable: rerun the same command after an interruption.\n\n"
           "Example:\n  preflight trial --pool data/brown/pools/cj.jsonl \\\n"
           "      --target-select data/brown/targets/cj.select.jsonl \\\n"
           "      --target-eval data/brown/targets/cj.eval.jsonl --selector dsir --model tiny \\\n"
           "      --steps 300 --out runs/cj-dsir");
  trial::TrialConfig c;
  ModelFlags model;
  bool json = false, quiet = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
  app.add_option("--pool", c.pool, "pool files (JSONL)")->required();
  app.add_option("--target-select", c.target_select, "target documents the selector may read")
      ->required();
  app.add_option("--target-eval", c.target_eval, "held-out target documents (evaluation only)")
      ->required();
  app.add_option("--target-name", c.target_name, "a name for the target in the lab record");
  app.add_option("--selector", c.selector, "dsir | classifier | first")->capture_default_str();
  app.add_option("--keep", c.keep, "fraction of the pool's bytes per arm")->capture_default_str();
  app.add_option("--selection-seed", c.selection_seed, "seed of the selections")
      ->capture_default_str();
  app.add_option("--baseline", c.baseline, "'first': add the first quarter as a third arm");
  app.add_option("--seeds", c.seeds, "runs per arm (seeds 1..N, paired across arms)")
      ->capture_default_str();
  model.Add(app);
  app.add_option("--steps", c.steps, "training steps per run (S)")->capture_default_str();
  app.add_option("--eval-every", c.eval_every, "steps between evals (0 = steps/20)")
      ->capture_default_str();
  app.add_option("--eval-windows", c.eval_max_windows, "eval windows (0 = all of the eval file)")
      ->capture_default_str();
  app.add_option("--lr", c.lr, "peak learning rate")->capture_default_str();
  app.add_option("--threads", c.threads, "threads")->capture_default_str();
  app.add_option("--out", c.out_dir, "run folder (resumable)")->required();
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("trial", resolved.status());
  c.model = *resolved;
  c.model_name = model.name;
  if (!quiet) {
    auto estimate = trial::EstimateTrialSeconds(c);
    if (!estimate.ok()) return Fail("trial", estimate.status());
    std::fprintf(stderr, "trial: %d runs of %lld steps (%s model); estimated %s on this machine\n",
                 (c.baseline == "first" ? 3 : 2) * c.seeds, static_cast<long long>(c.steps),
                 model.name.c_str(), HumanDuration(*estimate).c_str());
  }
  auto run = RunTrialWithReceipt(c, ledger_path, quiet);
  if (!run.ok()) return Fail("trial", run.status());
  if (json) {
    EmitJson(run->summary);
  } else {
    std::printf("%s", TrialSummaryText(*run).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
