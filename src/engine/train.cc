#include "engine/train.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/file.h"
#include "base/sha256.h"
#include "engine/blas.h"
#include "engine/checkpoint.h"
#include "engine/data.h"
#include "engine/model.h"
#include "engine/optimizer.h"
#include "engine/schedule.h"

namespace preflight::engine {
namespace {

// The window sampler's stream is kept apart from the initialisation's (both come from seed).
constexpr uint64_t kSamplerSalt = 0xd1b54a32d192ed03ULL;

std::string TokensHash(const std::vector<uint16_t>& tokens) {
  return Sha256::Hex(std::string_view(reinterpret_cast<const char*>(tokens.data()),
                                      tokens.size() * sizeof(uint16_t)));
}

// Everything that determines the curve; a checkpoint resumes only a run with the same one.
// (The thread count is left out: through BLIS the results do not depend on it, engine/blas.h.)
std::string Fingerprint(const TrainOptions& o, const std::string& data_hash,
                        const std::string& eval_hash) {
  nlohmann::json j;
  j["model"] = {{"layers", o.model.layers}, {"d_model", o.model.d_model},
                {"heads", o.model.heads},   {"context", o.model.context},
                {"batch", o.model.batch},   {"vocab", o.model.vocab}};
  j["steps"] = o.steps;
  j["seed"] = o.seed;
  j["eval_every"] = o.eval_every;
  j["eval_max_windows"] = o.eval_max_windows;
  j["lr"] = o.lr;
  j["warmup_steps"] = o.warmup_steps;
  j["min_lr_ratio"] = o.min_lr_ratio;
  j["adamw"] = {o.beta1, o.beta2, o.weight_decay};
  j["grad_clip"] = o.grad_clip;
  // Only a scheduled run carries the key, so a plain run's fingerprint is that of a run with
  // no schedule at all (and it resumes from a checkpoint without one).
  if (!o.schedule.empty()) j["schedule"] = o.schedule;
  j["data_tokens_sha256"] = data_hash;
  j["eval_tokens_sha256"] = eval_hash;
  return j.dump();  // nlohmann sorts keys: canonical
}

Status WriteCurve(const std::string& path, const std::vector<EvalPoint>& curve) {
  std::string out;
  for (const EvalPoint& p : curve) {
    nlohmann::json line = {{"step", p.step}, {"eval_bpb", p.eval_bpb}};
    out += line.dump() + "\n";
  }
  return WriteFileAtomically(path, out);
}

// Mean loss over the counted positions of every eval window, in bits per token.
double Evaluate(Gpt& model, const std::vector<uint16_t>& tokens,
                const std::vector<EvalWindow>& windows, std::vector<int>& inputs,
                std::vector<int>& targets) {
  const int B = model.config().batch, T = model.config().context;
  double total = 0.0;
  int64_t count = 0;
  for (size_t w0 = 0; w0 < windows.size(); w0 += B) {
    const int nb = static_cast<int>(std::min<size_t>(B, windows.size() - w0));
    for (int b = 0; b < B; b++) {
      // A short last batch repeats its last window; the repeats are not counted.
      const EvalWindow& w = windows[w0 + std::min(b, nb - 1)];
      for (int t = 0; t < T; t++) {
        inputs[b * T + t] = tokens[w.start + t];
        targets[b * T + t] = tokens[w.start + t + 1];
      }
    }
    model.Forward(inputs.data(), targets.data());
    const float* losses = model.losses();
    for (int b = 0; b < nb; b++) {
      for (int t = windows[w0 + b].first_counted; t < T; t++) {
        total += losses[b * T + t];
        count++;
      }
    }
  }
  return total / static_cast<double>(count) / std::log(2.0);
}

std::string NonFinite(double x) { return std::isnan(x) ? "NaN" : "infinite"; }

// The (offset, size) ranges of the parameters that `frozen` stops, in tensor order: what the
// adaptive trigger watches.
std::vector<std::pair<size_t, size_t>> WatchedRanges(const Gpt& model, const Trainable& frozen) {
  std::vector<std::pair<size_t, size_t>> out;
  const int L = model.config().layers;
  for (int i = 0; i < kNumParamTensors; i++) {
    const ParamTensor& t = model.tensors()[i];
    const int slices = t.per_layer ? L : 1;
    const size_t slice = t.size / static_cast<size_t>(slices);
    for (int l = 0; l < slices; l++) {
      if (!TensorTrainable(static_cast<ParamIndex>(i), l, frozen)) {
        out.push_back({t.offset + static_cast<size_t>(l) * slice, slice});
      }
    }
  }
  return out;
}

// ||params - snapshot|| / ||snapshot|| over the watched ranges (snapshot holds them packed), in
// double, in a fixed order; then the snapshot becomes the current parameters.
double RelativeChangeAndSnapshot(const float* params,
                                 const std::vector<std::pair<size_t, size_t>>& ranges,
                                 std::vector<float>& snapshot) {
  double diff = 0, norm = 0;
  size_t k = 0;
  for (const auto& [offset, size] : ranges) {
    for (size_t i = 0; i < size; i++, k++) {
      const double d = static_cast<double>(params[offset + i]) - snapshot[k];
      diff += d * d;
      norm += static_cast<double>(snapshot[k]) * snapshot[k];
      snapshot[k] = params[offset + i];
    }
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace

Result<TrainOptions> ResolveOptions(const TrainOptions& options) {
  TrainOptions o = options;
  PF_RETURN_IF_ERROR(ValidateModel(o.model));
  if (o.steps < 0) return Status::InvalidArgument("--steps must be >= 0");
  if (!(o.lr > 0.0f) || !std::isfinite(o.lr)) {
    return Status::InvalidArgument("--lr must be a positive number");
  }
  if (o.eval_every < 0) return Status::InvalidArgument("--eval-every must be >= 0");
  if (o.eval_every == 0) o.eval_every = std::max<int64_t>(1, o.steps / 20);
  if (o.warmup_steps < 0) o.warmup_steps = std::min<int64_t>(100, o.steps / 10);
  if (o.threads < 0) return Status::InvalidArgument("--threads must be >= 0");
  if (o.threads == 0) o.threads = omp_get_num_procs();
  if (o.checkpoint_every < 0) return Status::InvalidArgument("checkpoint_every must be >= 0");
  PF_ASSIGN_OR_RETURN(Schedule schedule, ParseSchedule(o.schedule, o.model.layers));
  o.schedule = schedule.ToString();
  return o;
}

namespace {

// The tokens of both sets and the fixed eval windows, checked for size.
struct TokenSets {
  std::vector<uint16_t> train, eval;
  std::vector<EvalWindow> windows;
};

Result<TokenSets> PrepareTokens(const TrainOptions& o, const std::vector<std::string>& train_docs,
                                const std::vector<std::string>& eval_docs) {
  const int T = o.model.context;
  const std::string data_name = o.data_path.empty() ? "training data" : o.data_path;
  const std::string eval_name = o.eval_path.empty() ? "eval data" : o.eval_path;
  TokenSets sets;
  sets.train = Tokenize(train_docs);
  if (sets.train.size() < static_cast<size_t>(T) + 1) {
    return Status::InvalidArgument(
        data_name + ": " + std::to_string(sets.train.size()) +
        " tokens (bytes plus one boundary per document), fewer than one context window of " +
        std::to_string(T + 1) + "; give more data or a smaller --context");
  }
  if (eval_docs.empty()) {
    return Status::InvalidArgument(eval_name +
                                   ": the eval set is empty; give a held-out JSONL "
                                   "file with at least one document");
  }
  sets.eval = Tokenize(eval_docs);
  if (sets.eval.size() < static_cast<size_t>(T) + 1) {
    return Status::InvalidArgument(eval_name + ": " + std::to_string(sets.eval.size()) +
                                   " tokens, fewer than one context window of " +
                                   std::to_string(T + 1) +
                                   "; give more held-out text or a smaller --context");
  }
  sets.windows = MakeEvalWindows(static_cast<int64_t>(sets.eval.size()), T, o.eval_max_windows);
  return sets;
}

// Everything a run carries from step to step: the model, the optimizer's moments, the window
// sampler, the schedule's state, the curve and the measurements. A checkpoint is this state.
struct RunState {
  RunState(const TrainOptions& options, const TokenSets& sets, const Schedule& sched)
      : o(options),
        tokens(sets),
        schedule(sched),
        meter(options.threads == 1),
        model(options.model),
        sampler(&sets.train, options.model.context, options.seed ^ kSamplerSalt) {}

  const TrainOptions& o;
  const TokenSets& tokens;
  const Schedule& schedule;
  CostMeter meter;
  Gpt model;
  std::vector<float> adam_m, adam_v;
  WindowSampler sampler;
  TrainResult result;
  // The schedule: what it freezes and when, or when it stops.
  bool freezes = false;
  Trainable frozen_mask;
  int64_t freeze_step = -1, window = 0;
  std::vector<std::pair<size_t, size_t>> watched;
  std::vector<float> snapshot;
  size_t watched_floats = 0;
  int64_t frozen_at = -1, last_check = -1;
  std::unique_ptr<EarlyStop> early;
  bool stop_early = false;
  // Progress and measurements, over every invocation of this run.
  std::string fingerprint, ckpt_path, curve_path;
  int64_t step = 0, last_saved = -1;
  double prior_train_seconds = 0, prior_core_seconds = 0, flops_done = 0, train_core_seconds = 0;
  std::vector<EvalPoint> curve;
};

void InitRun(RunState& r) {
  const TrainOptions& o = r.o;
  const ModelConfig& cfg = o.model;
  r.model.InitWeights(o.seed);
  r.adam_m.assign(r.model.num_params(), 0.0f);
  r.adam_v.assign(r.model.num_params(), 0.0f);
  TrainResult& result = r.result;
  result.params = ParamCount(cfg);
  result.tokens_per_step = static_cast<int64_t>(cfg.batch) * cfg.context;
  result.flops_per_step = FlopsPerToken(cfg) * static_cast<double>(result.tokens_per_step);
  result.final_train_loss = std::nanf("");
  result.schedule = o.schedule;
  const Schedule& schedule = r.schedule;
  r.freezes = schedule.kind == Schedule::Kind::kFreeze;
  r.frozen_mask = schedule.Frozen(cfg.layers);
  result.frozen_flops_per_step =
      r.freezes ? FlopsPerTokenTrainable(cfg, r.frozen_mask) * result.tokens_per_step
                : result.flops_per_step;
  r.freeze_step = r.freezes && !schedule.adaptive ? schedule.FreezeStep(o.steps) : -1;
  r.window = schedule.window > 0 ? schedule.window : o.eval_every;
  if (r.freezes && schedule.adaptive) {
    r.watched = WatchedRanges(r.model, r.frozen_mask);
    for (const auto& range : r.watched) r.watched_floats += range.second;
  }
  if (schedule.kind == Schedule::Kind::kEarlyStop) {
    r.early = std::make_unique<EarlyStop>(schedule.patience, schedule.min_delta);
  }
  r.fingerprint = Fingerprint(o, TokensHash(r.tokens.train), TokensHash(r.tokens.eval));
  r.ckpt_path = o.run_dir.empty() ? "" : JoinPath(o.run_dir, "checkpoint.bin");
  r.curve_path = o.run_dir.empty() ? "" : JoinPath(o.run_dir, "curve.jsonl");
}

// Picks the run up where its checkpoint left it (the same run only: fingerprints must match).
Status Resume(RunState& r, Checkpoint c) {
  if (c.fingerprint != r.fingerprint) {
    return Status::InvalidArgument(
        r.ckpt_path +
        ": this run folder holds a checkpoint of a different run (model, steps, seed, schedule or "
        "data differ); use a new --out folder, or delete it to start over");
  }
  if (c.params.size() != r.model.num_params()) {
    return Status::Corruption(r.ckpt_path + ": parameter count differs");
  }
  std::copy(c.params.begin(), c.params.end(), r.model.params());
  r.adam_m = std::move(c.adam_m);
  r.adam_v = std::move(c.adam_v);
  r.sampler.rng().set_state(c.rng);
  r.step = r.last_saved = c.step;
  for (const auto& p : c.curve) {
    r.curve.push_back({p.step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds});
  }
  r.prior_train_seconds = c.train_seconds;
  r.prior_core_seconds = c.core_seconds;
  // A checkpoint without flops is of a plain run: every step cost the same.
  r.flops_done = c.flops >= 0 ? c.flops : static_cast<double>(c.step) * r.result.flops_per_step;
  r.train_core_seconds = std::max(0.0, c.train_core_seconds);
  r.frozen_at = c.frozen_at;
  r.last_check = c.last_check;
  r.result.trigger_seconds = c.trigger_seconds;
  r.result.trigger_core_seconds = c.trigger_core_seconds;
  r.result.trigger_flops = c.trigger_flops;
  r.snapshot = std::move(c.snapshot);
  if (!r.watched.empty() && r.frozen_at < 0 && r.last_check >= 0 &&
      r.snapshot.size() != r.watched_floats) {
    return Status::Corruption(r.ckpt_path +
                              ": the adaptive trigger's snapshot is missing or of the wrong size; "
                              "delete the run folder to start over");
  }
  if (r.frozen_at >= 0) r.model.SetTrainable(r.frozen_mask);
  // Early stopping's state is a function of the curve: replay it.
  for (const EvalPoint& p : r.curve) {
    if (r.early && r.early->Observe(p.eval_bpb)) r.stop_early = true;
  }
  r.result.resumed = true;
  // The curve file may hold a point written after this checkpoint; the checkpoint rules.
  return WriteCurve(r.curve_path, r.curve);
}

Status SaveCheckpoint(RunState& r) {
  if (r.ckpt_path.empty() || r.last_saved == r.step) return Status::Ok();
  Checkpoint c;
  c.fingerprint = r.fingerprint;
  c.step = r.step;
  c.rng = r.sampler.rng().state();
  for (const EvalPoint& p : r.curve) {
    c.curve.push_back({p.step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds});
  }
  c.train_seconds = r.prior_train_seconds + r.result.train_seconds;
  c.core_seconds = r.prior_core_seconds + r.meter.core_seconds();
  c.params.assign(r.model.params(), r.model.params() + r.model.num_params());
  c.adam_m = r.adam_m;
  c.adam_v = r.adam_v;
  c.flops = r.flops_done;
  c.train_core_seconds = r.train_core_seconds;
  c.frozen_at = r.frozen_at;
  c.last_check = r.last_check;
  c.trigger_seconds = r.result.trigger_seconds;
  c.trigger_core_seconds = r.result.trigger_core_seconds;
  c.trigger_flops = r.result.trigger_flops;
  if (r.frozen_at < 0) c.snapshot = r.snapshot;  // frozen: the trigger is done, nothing to keep
  PF_RETURN_IF_ERROR(WriteCheckpoint(r.ckpt_path, c));
  r.last_saved = r.step;
  return Status::Ok();
}

Status Diverged(const RunState& r, const char* what, double value) {
  const std::string kept = r.last_saved >= 0
                               ? "the last good checkpoint (step " + std::to_string(r.last_saved) +
                                     ") is kept in " + r.ckpt_path
                               : "no checkpoint was written";
  return Status::InvalidArgument("training diverged at step " + std::to_string(r.step + 1) + ": " +
                                 what + " is " + NonFinite(value) + "; " + kept + "; lower --lr");
}

// The schedule acts before the step it concerns (and before the checkpoint of this step, so that
// a resume here sees the same state): a fixed freeze at its step, or the adaptive trigger's check.
void ApplySchedule(RunState& r) {
  const Schedule& schedule = r.schedule;
  if (!r.freezes || r.frozen_at >= 0 || r.step >= r.o.steps) return;
  if (!schedule.adaptive) {
    if (r.step >= r.freeze_step) {
      r.frozen_at = r.freeze_step;
      r.model.SetTrainable(r.frozen_mask);
    }
    return;
  }
  if (r.step % r.window != 0 || r.step == r.last_check) return;
  CostMeter trigger(r.o.threads == 1);
  if (r.snapshot.empty()) {
    r.snapshot.assign(r.watched_floats, 0.0f);
    RelativeChangeAndSnapshot(r.model.params(), r.watched, r.snapshot);  // the first snapshot
  } else {
    const double change = RelativeChangeAndSnapshot(r.model.params(), r.watched, r.snapshot);
    r.result.trigger_trace.push_back({r.step, change});
    if (change < schedule.threshold) {
      r.frozen_at = r.step;
      r.model.SetTrainable(r.frozen_mask);
      r.snapshot.clear();
    }
  }
  r.last_check = r.step;
  r.result.trigger_flops += 5.0 * static_cast<double>(r.watched_floats);
  r.result.trigger_seconds += trigger.wall_seconds();
  r.result.trigger_core_seconds += trigger.core_seconds();
}

// What the progress hears at the run's current step: stage "train", in steps of the run's.
ProgressReport StepReport(const RunState& r) {
  return {.stage = "train",
          .done = static_cast<uint64_t>(r.step),
          .total = static_cast<uint64_t>(r.o.steps),
          .unit = "step"};
}

// Evaluates when an eval is due at this step; returns whether one ran.
Result<bool> EvalIfDue(RunState& r, std::vector<int>& inputs, std::vector<int>& targets,
                       const ProgressFn& progress) {
  const bool due = (r.step % r.o.eval_every == 0 || r.step == r.o.steps) &&
                   (r.curve.empty() || r.curve.back().step != r.step);
  if (!due) return false;
  const double bpb = Evaluate(r.model, r.tokens.eval, r.tokens.windows, inputs, targets);
  if (!std::isfinite(bpb)) return Diverged(r, "the eval loss", bpb);
  r.curve.push_back({r.step, bpb, r.flops_done, r.prior_train_seconds + r.result.train_seconds,
                     r.train_core_seconds});
  if (r.early && r.early->Observe(bpb)) r.stop_early = true;
  if (!r.curve_path.empty()) PF_RETURN_IF_ERROR(WriteCurve(r.curve_path, r.curve));
  if (progress) {
    ProgressReport report = StepReport(r);
    report.eval_bpb = bpb;
    progress(report);
  }
  return true;
}

// The core-seconds clock of a run: its own thread's when it trains on one thread (all of its work
// is then on that thread, and another run may share the process: trial/concurrent_runs.h), else
// the process's.
double CpuSeconds(const TrainOptions& o) {
  return o.threads == 1 ? ThreadCpuSeconds() : ProcessCpuSeconds();
}

// One optimizer step; `since` and `first_step` give the throughput this invocation reports.
Status Step(RunState& r, std::vector<int>& inputs, std::vector<int>& targets, double since,
            int64_t first_step, const ProgressFn& progress) {
  const TrainOptions& o = r.o;
  const double ts = WallSeconds();
  const double cs = CpuSeconds(o);
  const double step_flops =
      r.model.trainable().AllTrainable()
          ? r.result.flops_per_step
          : FlopsPerTokenTrainable(o.model, r.model.trainable()) * r.result.tokens_per_step;
  const float lr = LearningRate(r.step, o.steps, o.warmup_steps, o.lr, o.min_lr_ratio);
  r.sampler.Next(o.model.batch, inputs.data(), targets.data());
  const AdamWConfig adam{o.beta1, o.beta2, 1e-8f, o.weight_decay};
  const StepStats stats = TrainStep(r.model, r.adam_m.data(), r.adam_v.data(), inputs.data(),
                                    targets.data(), lr, r.step + 1, adam, o.grad_clip);
  if (!std::isfinite(stats.loss)) return Diverged(r, "the training loss", stats.loss);
  if (!std::isfinite(stats.grad_norm)) return Diverged(r, "the gradient norm", stats.grad_norm);
  r.step++;
  r.flops_done += step_flops;
  r.result.train_seconds += WallSeconds() - ts;
  r.train_core_seconds += CpuSeconds(o) - cs;
  r.result.final_train_loss = stats.loss;
  if (progress) {
    ProgressReport report = StepReport(r);
    report.train_loss = stats.loss;
    report.lr = lr;
    report.tokens_per_second = static_cast<double>(r.step - first_step) * r.result.tokens_per_step /
                               std::max(1e-9, WallSeconds() - since);
    progress(report);
  }
  return Status::Ok();
}

// Evals, checkpoints and steps until the budget, an early stop or stop_after_step.
Status RunLoop(RunState& r, const ProgressFn& progress) {
  const TrainOptions& o = r.o;
  const size_t window_tokens = static_cast<size_t>(o.model.batch) * o.model.context;
  std::vector<int> inputs(window_tokens), targets(window_tokens);
  const int64_t first_step = r.step;
  const double since = WallSeconds();
  r.result.completed = true;
  while (true) {
    ApplySchedule(r);
    PF_ASSIGN_OR_RETURN(const bool evaluated, EvalIfDue(r, inputs, targets, progress));
    const bool stop_here = r.step == o.stop_after_step && r.step < o.steps;
    if (evaluated || r.step == o.steps || stop_here ||
        (o.checkpoint_every > 0 && r.step % o.checkpoint_every == 0)) {
      PF_RETURN_IF_ERROR(SaveCheckpoint(r));
    }
    if (r.step >= o.steps) return Status::Ok();
    if (r.stop_early) {
      r.result.stopped_early = true;
      return Status::Ok();
    }
    if (stop_here) {
      r.result.completed = false;
      return Status::Ok();
    }
    PF_RETURN_IF_ERROR(Step(r, inputs, targets, since, first_step, progress));
  }
}

TrainResult Finish(RunState& r) {
  TrainResult result = std::move(r.result);
  result.curve = r.curve;
  result.steps = r.step;
  result.train_seconds += r.prior_train_seconds;
  result.core_seconds = r.prior_core_seconds + r.meter.core_seconds();
  result.tokens_per_second =
      result.train_seconds > 0
          ? static_cast<double>(r.step) * result.tokens_per_step / result.train_seconds
          : 0.0;
  result.final_eval_bpb = r.curve.empty() ? std::nan("") : r.curve.back().eval_bpb;
  result.flops = r.flops_done;
  result.train_core_seconds = r.train_core_seconds;
  result.frozen_at = r.frozen_at;
  if (r.watched_floats > 0) {
    result.trigger_checks =
        std::llround(result.trigger_flops / (5.0 * static_cast<double>(r.watched_floats)));
  }
  return result;
}

}  // namespace

Result<TrainResult> TrainOnDocuments(const TrainOptions& options,
                                     const std::vector<std::string>& train_docs,
                                     const std::vector<std::string>& eval_docs,
                                     const ProgressFn& progress) {
  PF_ASSIGN_OR_RETURN(const TrainOptions o, ResolveOptions(options));
  PF_ASSIGN_OR_RETURN(const TokenSets tokens, PrepareTokens(o, train_docs, eval_docs));
  PF_ASSIGN_OR_RETURN(const Schedule schedule, ParseSchedule(o.schedule, o.model.layers));
  SetThreads(o.threads);
  auto run = std::make_unique<RunState>(o, tokens, schedule);
  InitRun(*run);
  if (!o.run_dir.empty()) {
    PF_RETURN_IF_ERROR(MakeDirectories(o.run_dir));
    if (PathExists(run->ckpt_path)) {
      PF_ASSIGN_OR_RETURN(Checkpoint c, ReadCheckpoint(run->ckpt_path));
      PF_RETURN_IF_ERROR(Resume(*run, std::move(c)));
    }
  }
  PF_RETURN_IF_ERROR(RunLoop(*run, progress));
  return Finish(*run);
}

Result<TrainResult> Train(const TrainOptions& options, const ProgressFn& progress) {
  PF_RETURN_IF_ERROR(ValidateModel(options.model));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> train_docs,
                      ReadJsonlTexts(options.data_path, options.text_field));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> eval_docs,
                      ReadJsonlTexts(options.eval_path, options.EvalTextField()));
  return TrainOnDocuments(options, train_docs, eval_docs, progress);
}

}  // namespace preflight::engine
