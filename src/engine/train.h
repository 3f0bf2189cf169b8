#pragma once
// preflight's training engine, as a library: train a small byte-level GPT on a set of documents,
// evaluate it on a held-out set every E steps, checkpoint, and resume.
//
// Contract
// - Ownership: Train owns everything it allocates and frees it before returning; the caller
//   owns the options, the documents and the callback, which must outlive the call.
// - Thread-safety: safe to call concurrently from several threads of one process (outside any
//   OpenMP parallel region), each call with its own options: the thread count Train sets
//   (options.threads, engine/blas.h SetThreads) is the calling thread's (OpenMP's is a per-thread
//   setting, and so is Sgemm's; the BLAS's own pool is held at one thread for every caller), and
//   the calls share nothing else but the kernels chosen once, on the first call (engine/blas.cc,
//   engine/simd.cc). trial/concurrent_runs.h trains runs side by side this way,
//   each on one thread. A call with threads > 1 is charged the process's CPU time, which then
//   includes its neighbours'; one on one thread is charged its own thread's.
// - Determinism: same options (seed, data, steps, schedule) and thread count give a
//   bit-identical curve and final parameters, also across a kill and resume (doc/train.md).
// - Files (when run_dir is not empty): run_dir/checkpoint.bin (doc/checkpoint-format.md) and
//   run_dir/curve.jsonl ({"step","eval_bpb"} per line, rewritten atomically after each eval).
//   Both are always whole: a crash or kill at any moment leaves the last complete versions.
// - Resume: when run_dir holds a checkpoint whose fingerprint (model, steps, seed, schedule,
//   optimizer, eval settings, hashes of the training and eval tokens) matches, training
//   continues from it and the result is as if it had never stopped (resumed = true). A
//   checkpoint of a finished run returns its result without training. A checkpoint for other
//   options is an InvalidArgument error (nothing is overwritten): use a fresh run_dir.
// - Failure: a Status, and run_dir holds the last good checkpoint (if any was written).
//   InvalidArgument/NotFound for bad input (unreadable data, data shorter than one context
//   window, an empty eval set, a bad model shape, a loss that became NaN or infinite: the
//   message names the step), Corruption for a damaged checkpoint, IOError for the disk.
//
// - Schedules (options.schedule, syntax in schedule.h and doc/schedules.md): a freeze makes
//   the chosen parts stop learning from a fixed step or when the adaptive trigger fires; their
//   parameters and AdamW moments stay bit-identical from then on, and the backward skips their
//   work, so each step's FLOPs drop (FlopsPerTokenTrainable). Early stopping ends the run once
//   the eval loss has not improved for `patience` evals (completed = true, steps < options.steps).
//   The schedule is part of the fingerprint; its state is in the checkpoint, so resume holds.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "engine/config.h"

namespace preflight::engine {

struct TrainOptions {
  ModelConfig model;                // NamedModel("small") by default
  std::string data_path;            // JSONL (Train only)
  std::string text_field = "text";  // the documents' text field in data_path
  std::string eval_path;            // held-out JSONL (Train only)
  std::string eval_text_field;      // the text field in eval_path ("" = text_field)
  const std::string& EvalTextField() const {
    return eval_text_field.empty() ? text_field : eval_text_field;
  }
  std::string run_dir;  // checkpoints and curve; "" = keep nothing on disk (no resume)
  int64_t steps = 1000;
  uint64_t seed = 1;       // initial weights and training windows
  int64_t eval_every = 0;  // 0 = max(1, steps / 20); an eval also runs at step 0 and at the end
  int64_t eval_max_windows = 0;  // 0 = every window of the eval set; else that many, evenly spread
  int threads = 0;               // 0 = every processor OpenMP sees
  float lr = 1e-3f;              // peak learning rate
  int64_t warmup_steps = -1;     // -1 = min(100, steps / 10)
  float min_lr_ratio = 0.1f;     // cosine decays to this fraction of lr
  float beta1 = 0.9f, beta2 = 0.95f, weight_decay = 0.1f, grad_clip = 1.0f;
  int64_t checkpoint_every = 0;  // 0 = at every eval; also always at the end
  // For tests and interrupted trials: after this many steps, write a checkpoint and return as if
  // killed there (completed = false). -1 = never.
  int64_t stop_after_step = -1;
  std::string schedule;  // "" = plain training; else schedule.h's syntax
};

struct EvalPoint {
  int64_t step = 0;     // optimizer steps taken before this eval
  double eval_bpb = 0;  // mean loss over the eval windows, in bits per token (= per byte)
  // Cumulative training compute before this eval: FLOPs (the sum of each step's actual FLOPs),
  // wall seconds and CPU seconds of the training steps (evals and the trigger excluded).
  double flops = 0, train_seconds = 0, core_seconds = 0;
};

// What a run's schedule did (schedule.h), in the units the trial compares schedules on. For a
// plain run: flops = flops_per_step x steps, frozen_flops_per_step = flops_per_step, frozen_at =
// -1 and the trigger's numbers 0. One struct from the engine to the trial's run folder: the
// engine's result is one, a trainer's result holds one (trainer/trainer.h) and the trial's run
// record is one (trial/run_folder.h), so each passes it on as one value.
struct ScheduleFacts {
  std::string schedule;              // canonical ("" = plain)
  double flops = 0;                  // training FLOPs of the run: the sum of every step's FLOPs
  double frozen_flops_per_step = 0;  // one step's FLOPs with the schedule's parts frozen
  int64_t frozen_at = -1;            // the parts are frozen for steps >= this; -1 = never
  bool stopped_early = false;        // early stopping ended the run before options.steps
  double train_core_seconds = 0;     // CPU seconds of the training steps, all calls
  // The adaptive trigger's own cost (0 for other schedules): FLOPs (5 per watched parameter per
  // check: difference, squares, sums), measured CPU and wall seconds, and its checks.
  double trigger_flops = 0, trigger_core_seconds = 0, trigger_seconds = 0;
  int64_t trigger_checks = 0;
};

// A run's result; flops_per_step is a full step's, the ScheduleFacts say what was spent.
struct TrainResult : ScheduleFacts {
  std::vector<EvalPoint> curve;
  double flops_per_step = 0;     // FlopsPerToken * tokens_per_step (convention: config.h)
  int64_t tokens_per_step = 0;   // batch * context
  int64_t steps = 0;             // steps completed
  int64_t params = 0;            // ParamCount
  double tokens_per_second = 0;  // training tokens / training wall seconds (evals excluded)
  double core_seconds = 0;       // CPU seconds of the whole run (training + evals), all calls
  double train_seconds = 0;      // wall seconds in training steps, all calls
  double final_eval_bpb = 0;     // the curve's last point
  float final_train_loss = 0;    // NaN when no step ran in this call
  bool resumed = false;          // started from a checkpoint
  bool completed = false;        // false only after stop_after_step
  // The trigger's measurements in this invocation (not kept across a resume): at each check
  // after the first, the step and the watched parts' relative weight change over the window.
  std::vector<std::pair<int64_t, double>> trigger_trace;
};

// Resolves the automatic options (eval_every, warmup_steps, threads) and checks them.
Result<TrainOptions> ResolveOptions(const TrainOptions& options);

// Reads data_path and eval_path (JSONL, field "text") and trains. `progress` hears stage "train"
// in steps (done of total = options.steps), on this thread: after every training step
// (train_loss, lr, and tokens_per_second of this invocation so far) and after every eval
// (eval_bpb; train_loss NaN).
Result<TrainResult> Train(const TrainOptions& options, const ProgressFn& progress = {});

// The same on documents already in memory (data_path and eval_path are ignored).
Result<TrainResult> TrainOnDocuments(const TrainOptions& options,
                                     const std::vector<std::string>& train_docs,
                                     const std::vector<std::string>& eval_docs,
                                     const ProgressFn& progress = {});

}  // namespace preflight::engine
