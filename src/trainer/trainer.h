#pragma once
// A trainer turns one run a trial asks for (arm, seed, data, model, steps, eval schedule, run
// folder) into a typed result: the eval curve (step, training tokens, bits per byte), the model's
// parameters, tokens and FLOPs per step, and what the run cost (doc/design.md, "The trainer
// protocol"; doc/trainers.md is the protocol). The trial owns the arms, seeds, schedule and every
// number; a trainer only trains.
//
//   builtin  the C++ engine in this process (engine/train.h), the reference  (builtin_trainer.h)
//   cmd      any command template, launched once per run through /bin/sh      (cmd_trainer.h)
//   torch    the project's PyTorch trainer, a cmd launch with a built-in template (torch_trainer.h)
//
// Resumable: every trainer resumes a run from what its run folder holds (the engine's checkpoint;
// a launched trainer's own, e.g. checkpoint.pt). Thread-safety: the builtin trains with every
// thread of this process (one run at a time); launched runs are child processes, several of which
// may run at once (parallel.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "engine/config.h"
#include "engine/train.h"
#include "trainer/exports.h"
#include "trainer/trainer_spec.h"

namespace preflight::trainer {

// One run, every value resolved (no "0 = default" left).
struct RunRequest {
  std::string arm;  // "curated", "random", "first" (a schedule trial's arm name: builtin only)
  int seed = 1;
  std::string run_dir;  // absolute; made if missing
  // The data as the builtin reads it: JSONL files and their text fields (the arm's lines are the
  // pool's, read with the pool's field; T_eval with the target's).
  std::string train_path, eval_path, text_field = "text", eval_text_field = "text";
  // The data as launched trainers read it (doc/trainers.md): the arm's and T_eval's exports.
  ArmExport train_export, eval_export;
  std::string schedule;  // builtin only ("" = plain training)
  std::string model_name;
  engine::ModelConfig model;
  int64_t steps = 0, eval_every = 0, eval_windows = 0, warmup_steps = 0;
  float lr = 1e-3f, min_lr_ratio = 0.1f;
  int threads = 1;
  std::string init_path;  // torch: the engine's initial weights for (model, seed) (PFINIT01)

  std::string Name() const { return arm + "-s" + std::to_string(seed); }
  int64_t TokensPerStep() const { return static_cast<int64_t>(model.batch) * model.context; }
};

// One eval point with the run's cumulative training compute before it (the builtin measures all
// three columns; a launched run states only its tokens, and its columns are FLOPs per step x
// step, 0 and 0).
struct CurvePoint {
  int64_t step = 0;
  int64_t tokens = 0;
  double eval_bpb = 0;
  double flops = 0, train_seconds = 0, core_seconds = 0;
};

// What a schedule (builtin only) did (engine/train.h); a launched run's is a plain run's.
using ScheduleFacts = engine::ScheduleFacts;

// How a launched run was measured and where its compute figures came from.
struct LaunchFacts {
  std::string trainer;  // "cmd", "torch"
  int attempts = 1;     // launches of this run (2+ after resumes)
  int exit_code = 0;
  // Summed over the run's launches that ended (launch.h), measured by preflight.
  double wall_seconds = 0;  // wall seconds
  double cpu_seconds = 0;   // the process trees' CPU seconds
  // The seconds charged to the run's training (doc/trainers.md, "What a launched run costs"):
  // the measured wall seconds, or run.json's train_seconds when smaller.
  double charged_seconds = 0;
  std::string charged_source;  // "wall_seconds" or "run.json train_seconds"
  std::string tokens_source;   // "curve", "run.json" or "requested"
  std::string flops_source;    // "run.json", "--flops-per-step", "6 x params x tokens", "model"
  std::string params_source;   // "run.json", "--params" or "model"
  nlohmann::json stated = nullptr;  // run.json as the trainer wrote it (null when absent)
};

struct RunResult {
  std::vector<CurvePoint> curve;
  int64_t params = 0, tokens_per_step = 0, steps = 0;
  double flops_per_step = 0;
  double core_seconds = 0;   // CPU seconds of the whole run (all invocations)
  double train_seconds = 0;  // wall seconds of training (builtin: steps only; launched: charged)
  double tokens_per_second = 0;
  ScheduleFacts facts;
  std::optional<LaunchFacts> launch;  // launched runs only
};

class Trainer {
 public:
  virtual ~Trainer() = default;
  virtual std::string kind() const = 0;
  // Trains the run to its end (resuming what its folder holds) and returns its result.
  // progress: the builtin's steps and evals (engine::Train's reports); a launched trainer reports
  // once, at the end (stage "train", done = total = the steps, eval_bpb the last eval).
  virtual Result<RunResult> Run(const RunRequest& request, const ProgressFn& progress) = 0;
};

// The trainer `spec` names. InvalidArgument for a spec ValidateTrainerSpec refuses.
Result<std::unique_ptr<Trainer>> MakeTrainer(const TrainerSpec& spec);

}  // namespace preflight::trainer
