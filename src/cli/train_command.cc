// preflight train: train the small byte-level GPT on a JSONL file, evaluating on a held-out file.
// Thin: flags in, train::Train, progress on stderr, the DESIGN.md --json document out.

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/model_flags.h"
#include "cli/progress.h"
#include "train/blas.h"
#include "train/config.h"
#include "train/trainer.h"

namespace preflight::cli {
namespace {

// OpenMP threads that spin while they wait for work steal the core from the thread doing it when
// the machine is shared (2 threads on 2 busy cores ran 4x slower than 1, measured; doc/train.md).
// libgomp reads OMP_WAIT_POLICY only when it loads, so the command re-executes itself once with
// OMP_WAIT_POLICY=passive unless the user set a policy. Returns only if the re-exec failed.

nlohmann::json ScheduleJson(const train::TrainResult& r) {
  if (r.schedule.empty()) return nullptr;
  nlohmann::json trace = nlohmann::json::array();
  for (const auto& [step, change] : r.trigger_trace) trace.push_back({step, change});
  return {{"spec", r.schedule},
          {"flops", r.flops},
          {"frozen_flops_per_step", r.frozen_flops_per_step},
          {"frozen_at", r.frozen_at},
          {"stopped_early", r.stopped_early},
          {"trigger",
           {{"flops", r.trigger_flops},
            {"core_seconds", r.trigger_core_seconds},
            {"seconds", r.trigger_seconds},
            {"checks", r.trigger_checks},
            {"relative_change", trace}}}};
}

}  // namespace

int RunTrain(int argc, char** argv) {
  CLI::App app;
  Describe(app, "train",
           "Train a small byte-level GPT (256 bytes + a document boundary) on --data, evaluating\n"
           "on --eval every --eval-every steps in bits per byte. The run folder --out holds\n"
           "curve.jsonl and checkpoint.bin; rerunning the same command after an interruption\n"
           "resumes from the checkpoint and gives the same curve.\n\n"
           "Example:\n  preflight train --data train.jsonl --eval heldout.jsonl --model tiny "
           "--steps 300 --seed 1 --out runs/t1");
  train::TrainOptions o;
  ModelFlags model;
  model.name = "small";
  bool json = false, quiet = false;
  app.add_option("--data", o.data_path, "training documents (JSONL, field \"text\")")->required();
  app.add_option("--eval", o.eval_path, "held-out documents (JSONL, field \"text\")")->required();
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
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("train", resolved.status());
  o.model = *resolved;
  const std::string& model_name = model.name;

  const train::ModelConfig& m = o.model;
  std::fprintf(stderr,
               "preflight train: model %s: %d layers, d_model %d, %d heads, context %d, batch %d; "
               "%lld params; %.3g FLOPs/token; BLAS %s\n",
               model_name.c_str(), m.layers, m.d_model, m.heads, m.context, m.batch,
               static_cast<long long>(train::ParamCount(m)), train::FlopsPerToken(m),
               train::BlasName());
  Progress bar("train", static_cast<double>(o.steps), "step", !quiet);
  float last_loss = std::nanf("");
  double last_bpb = std::nan(""), tok_s = 0;
  auto on_step = [&](const train::StepInfo& s) {
    if (std::isfinite(s.eval_bpb)) last_bpb = s.eval_bpb;
    if (std::isfinite(s.loss)) {
      last_loss = s.loss;
      tok_s = s.tokens_per_second;
    }
    char note[128];
    std::snprintf(note, sizeof(note), "loss %.3f  eval %.3f bpb  %.0f tok/s", last_loss, last_bpb,
                  tok_s);
    bar.Update(static_cast<double>(s.step), note);
  };
  auto result = train::Train(o, on_step);
  if (!result.ok()) {
    bar.Finish();
    return Fail("train", result.status());
  }
  const train::TrainResult& r = *result;
  char done[160];
  std::snprintf(done, sizeof(done), "final eval %.4f bpb, %.0f tok/s%s", r.final_eval_bpb,
                r.tokens_per_second, r.resumed ? " (resumed from checkpoint)" : "");
  bar.Finish(done);
  if (r.resumed) {
    std::fprintf(stderr, "preflight train: resumed from the checkpoint in %s\n", o.run_dir.c_str());
  }

  if (json) {
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& p : r.curve) curve.push_back({{"step", p.step}, {"eval_bpb", p.eval_bpb}});
    EmitJson({{"model",
               {{"name", model_name},
                {"params", r.params},
                {"non_embedding_params", train::NonEmbeddingParamCount(m)},
                {"layers", m.layers},
                {"d_model", m.d_model},
                {"heads", m.heads},
                {"context", m.context},
                {"batch", m.batch}}},
              {"steps", r.steps},
              {"seed", o.seed},
              {"tokens_per_step", r.tokens_per_step},
              {"tokens_per_second", r.tokens_per_second},
              {"flops_per_step", r.flops_per_step},
              {"flops_per_token", train::FlopsPerToken(m)},
              {"curve", curve},
              {"final_eval_bpb", r.final_eval_bpb},
              {"core_seconds", r.core_seconds},
              {"resumed", r.resumed},
              {"blas", train::BlasName()},
              {"run_dir", o.run_dir},
              {"schedule", ScheduleJson(r)}});
  }
  return 0;
}

}  // namespace preflight::cli
