// preflight score: compute saved from runs made elsewhere (app/score_job.h).

#include <cstdio>

#include "app/score_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "ledger/ledger.h"

namespace preflight::cli {
namespace {

struct ScoreFlags {
  app::ScoreRequest request;
  double selection = -1, random = -1, step_seconds = -1;  // -1: not stated
  bool json = false;
};

void AddFlags(CLI::App& app, ScoreFlags& f) {
  app::ScoreRequest& r = f.request;
  r.ledger_path = ledger::DefaultLedgerPath();
  app.add_option("--curated", r.curated, "the curated arm's curves, one file per seed")->required();
  app.add_option("--random", r.random,
                 "the random arm's curves, one per seed, in the order of --curated's seeds "
                 "(the per-seed pairs)")
      ->required();
  app.add_option("--curve-format", r.curve_format, "auto | jsonl | csv | llmc | hf | nanogpt")
      ->capture_default_str();
  app.add_option("--curve-columns", r.curve_columns,
                 "csv: step=COL,loss=COL[,tokens=COL] (or bpb=COL)");
  app.add_option("--eval-tokens", r.eval_tokens,
                 "the eval set's length in the trainer's tokens (default: its byte tokens)");
  app.add_option("--eval-bytes", r.eval_bytes,
                 "the eval set's length in byte tokens (default: from --eval-data)");
  app.add_option("--steps", r.steps, "S, the step budget (default: the curves' last step)");
  app.add_option("--selection-core-seconds", f.selection,
                 "what making the curated arm cost, in core-seconds (for the net saving)");
  app.add_option("--random-core-seconds", f.random, "what making the random arm cost");
  app.add_option("--step-seconds", f.step_seconds,
                 "what one training step cost, in seconds charged 1:1 against core-seconds");
  app.add_option("--curated-data", r.curated_data, "the curated arm's documents (JSONL; regime)");
  app.add_option("--random-data", r.random_data, "the random arm's documents (JSONL; regime)");
  app.add_option("--eval-data", r.eval_data, "the eval set's documents (JSONL; regime, bytes)");
  app.add_option("--text-field", r.text_field,
                 "the text field of --curated-data and --random-data (and --eval-data, unless "
                 "--eval-text-field)")
      ->capture_default_str();
  app.add_option("--eval-text-field", r.eval_text_field,
                 "the text field of --eval-data (default: --text-field)");
  app.add_option("--context", r.context,
                 "the regime's eval windows: tokens per window (0 = every eval position)")
      ->capture_default_str();
  app.add_option("--eval-windows", r.eval_windows, "with --context: windows (0 = all)")
      ->capture_default_str();
  app.add_option("--name", r.name, "what was compared, for the page");
  app.add_option("--out", r.out_dir, "output folder (result.json, report.html)")->required();
  app.add_option("--ledger", r.ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", f.json, "print one JSON document on stdout");
}

}  // namespace

int RunScore(int argc, char** argv) {
  CLI::App app;
  Describe(app, "score",
           "Score runs made elsewhere: one eval curve per seed for each arm, read in any format\n"
           "a trial reads (doc/trainers.md), give the compute the curated arm saved (gross; net\n"
           "where --selection-core-seconds and --step-seconds state the cost), its 95% interval,\n"
           "and the regime check where the arms' documents and the eval set are given. The\n"
           "saving is on the mean curve of each arm; the interval is the trial's bootstrap, which\n"
           "resamples each arm's seeds independently (unpaired, doc/metrics.md); the i-th\n"
           "--curated and i-th --random curve make the i-th per-seed pair (per_seed). Writes\n"
           "OUT/result.json, OUT/report.html and a 'score' receipt, each saying that preflight\n"
           "did not make the arms or train the runs.\n\n"
           "Example (nanoGPT's logs of two seeds per arm):\n"
           "  preflight score --curated cur1/log.txt cur2/log.txt --random rnd1/log.txt \\\n"
           "      rnd2/log.txt --curve-format nanogpt --eval-tokens 2466 --eval-bytes 10240 \\\n"
           "      --out runs/scored");
  ScoreFlags f;
  AddFlags(app, f);
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  if (f.selection >= 0) f.request.selection_core_seconds = f.selection;
  if (f.random >= 0) f.request.random_core_seconds = f.random;
  if (f.step_seconds >= 0) f.request.step_seconds = f.step_seconds;
  auto job = app::RunScoreJob(f.request);
  if (!job.ok()) return Fail("score", job.status());
  if (f.json) {
    EmitJson(app::ScoreJson(*job));
  } else {
    std::printf("%s", app::ScoreText(*job).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
