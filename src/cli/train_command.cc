// preflight train: train the small byte-level GPT on a JSONL file, evaluating on a held-out file.
// Thin: flags in, app::RunTrainJob (the run and its receipt), progress on stderr, --json out.

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/train_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/model_flags.h"
#include "cli/progress.h"
#include "ledger/ledger.h"
#include "engine/blas.h"
#include "engine/config.h"
#include "engine/train.h"

namespace preflight::cli {

int RunTrain(int argc, char** argv) {
  CLI::App app;
  Describe(app, "train",
           "Train a small byte-level GPT (256 bytes + a document boundary) on --data, evaluating\n"
           "on --eval every --eval-every steps in bits per byte. The run folder --out holds\n"
           "curve.jsonl and checkpoint.bin; rerunning the same command after an interruption\n"
           "resumes from the checkpoint and gives the same curve.\n\n"
           "Example:\n  preflight train --data train.jsonl --eval heldout.jsonl --model tiny "
           "--steps 300 --seed 1 --out runs/t1");
  app::TrainRequest request;
  request.ledger_path = ledger::DefaultLedgerPath();
  engine::TrainOptions& o = request.options;
  ModelFlags model;
  model.name = "small";
  bool json = false, quiet = false;
  app.add_option("--data", o.data_path, "training documents (JSONL)")->required();
  app.add_option("--eval", o.eval_path, "held-out documents (JSONL)")->required();
  app.add_option("--text-field", o.text_field,
                 "the documents' text field in --data (and --eval, unless --eval-text-field)")
      ->capture_default_str();
  app.add_option("--eval-text-field", o.eval_text_field,
                 "the documents' text field in --eval (default: --text-field)");
  model.Add(app);
  app.add_option("--steps", o.steps, "optimizer steps")->capture_default_str();
  app.add_option("--seed", o.seed, "initial weights and training windows")->capture_default_str();
  app.add_option("--out", o.run_dir, "run folder (created; holds checkpoint.bin, curve.jsonl)")
      ->required();
  app.add_option("--eval-every", o.eval_every, "steps between evals (0: steps/20)")
      ->capture_default_str();
  app.add_option("--eval-max-windows", o.eval_max_windows,
                 "evaluate on at most this many windows, spread evenly (0: all)")
      ->capture_default_str();
  app.add_option("--threads", o.threads, "threads (0: all processors)")->capture_default_str();
  app.add_option("--lr", o.lr, "peak learning rate")->capture_default_str();
  app.add_option("--warmup", o.warmup_steps, "warm-up steps (-1: min(100, steps/10))")
      ->capture_default_str();
  app.add_option("--checkpoint-every", o.checkpoint_every,
                 "steps between checkpoints (0: at evals)")
      ->capture_default_str();
  app.add_option("--schedule", o.schedule,
                 "freeze or stop part of training (doc/schedules.md), e.g. "
                 "'freeze:blocks=0-1@0.7', 'freeze:blocks=0-1@adaptive:threshold=0.02', "
                 "'earlystop:patience=3'");
  app.add_option("--ledger", request.ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  if (Status st = app::CheckTrainOutputs(request); !st.ok()) return Fail("train", st);

  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("train", resolved.status());
  o.model = *resolved;
  request.model_name = model.name;
  const std::string& model_name = model.name;

  const engine::ModelConfig& m = o.model;
  std::fprintf(stderr,
               "preflight train: model %s: %d layers, d_model %d, %d heads, context %d, batch %d; "
               "%lld params; %.3g FLOPs/token; BLAS %s\n",
               model_name.c_str(), m.layers, m.d_model, m.heads, m.context, m.batch,
               static_cast<long long>(engine::ParamCount(m)), engine::FlopsPerToken(m),
               engine::BlasName());
  Progress bar("train", static_cast<double>(o.steps), "step", !quiet);
  double last_loss = std::nan(""), last_bpb = std::nan(""), tok_s = 0;
  auto progress = [&](const ProgressReport& p) {
    if (std::isfinite(p.eval_bpb)) last_bpb = p.eval_bpb;
    if (std::isfinite(p.train_loss)) {
      last_loss = p.train_loss;
      tok_s = p.tokens_per_second;
    }
    bar.Update(
        static_cast<double>(p.done),
        fmt::format("loss {:.3f}  eval {:.3f} bpb  {:.0f} tok/s", last_loss, last_bpb, tok_s));
  };
  auto job = app::RunTrainJob(request, progress);
  if (!job.ok()) {
    bar.Finish();
    return Fail("train", job.status());
  }
  const engine::TrainResult& r = job->result;
  bar.Finish(fmt::format("final eval {:.4f} bpb, {:.0f} tok/s{}", r.final_eval_bpb,
                         r.tokens_per_second, r.resumed ? " (resumed from checkpoint)" : ""));
  if (r.resumed) {
    std::fprintf(stderr, "preflight train: resumed from the checkpoint in %s\n", o.run_dir.c_str());
  }

  if (json) EmitJson(app::TrainJson(*job));
  return 0;
}

}  // namespace preflight::cli
