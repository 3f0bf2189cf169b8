#include "train/trainer.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/file.h"
#include "base/sha256.h"
#include "train/blas.h"
#include "train/checkpoint.h"
#include "train/data.h"
#include "train/model.h"
#include "train/optimizer.h"
#include "train/schedule.h"

namespace preflight::train {
namespace {

// The window sampler's stream is kept apart from the initialisation's (both come from seed).
constexpr uint64_t kSamplerSalt = 0xd1b54a32d192ed03ULL;

std::string TokensHash(const std::vector<uint16_t>& tokens) {
  return Sha256::Hex(std::string_view(reinterpret_cast<const char*>(tokens.data()),
                                      tokens.size() * sizeof(uint16_t)));
}

// Everything that determines the curve; a checkpoint resumes only a run with the same one.
// (The thread count is left out: the kernels' results do not depend on it; see doc/train.md.)
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
  // Only a scheduled run carries the key, so plain runs keep their fingerprints (and resume
  // from checkpoints written before schedules existed).
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

Result<TrainResult> TrainOnDocuments(const TrainOptions& options,
                                     const std::vector<std::string>& train_docs,
                                     const std::vector<std::string>& eval_docs,
                                     const std::function<void(const StepInfo&)>& on_step) {
  CostMeter meter;
  PF_ASSIGN_OR_RETURN(const TrainOptions o, ResolveOptions(options));
  const ModelConfig& cfg = o.model;
  const int B = cfg.batch, T = cfg.context;
  const std::string data_name = o.data_path.empty() ? "training data" : o.data_path;
  const std::string eval_name = o.eval_path.empty() ? "eval data" : o.eval_path;

  const std::vector<uint16_t> train_tokens = Tokenize(train_docs);
  if (train_tokens.size() < static_cast<size_t>(T) + 1) {
    return Status::InvalidArgument(
        data_name + ": " + std::to_string(train_tokens.size()) +
        " tokens (bytes plus one boundary per document), fewer than one context window of " +
        std::to_string(T + 1) + "; give more data or a smaller --context");
  }
  if (eval_docs.empty()) {
    return Status::InvalidArgument(eval_name +
                                   ": the eval set is empty; give a held-out JSONL "
                                   "file with at least one document");
  }
  const std::vector<uint16_t> eval_tokens = Tokenize(eval_docs);
  if (eval_tokens.size() < static_cast<size_t>(T) + 1) {
    return Status::InvalidArgument(eval_name + ": " + std::to_string(eval_tokens.size()) +
                                   " tokens, fewer than one context window of " +
                                   std::to_string(T + 1) +
                                   "; give more held-out text or a "
                                   "smaller --context");
  }
  const std::vector<EvalWindow> windows =
      MakeEvalWindows(static_cast<int64_t>(eval_tokens.size()), T, o.eval_max_windows);

  SetThreads(o.threads);
  Gpt model(cfg);
  model.InitWeights(o.seed);
  const size_t n = model.num_params();
  std::vector<float> adam_m(n, 0.0f), adam_v(n, 0.0f);
  WindowSampler sampler(&train_tokens, T, o.seed ^ kSamplerSalt);
  AdamWConfig adam{o.beta1, o.beta2, 1e-8f, o.weight_decay};

  TrainResult result;
  result.params = ParamCount(cfg);
  result.tokens_per_step = static_cast<int64_t>(B) * T;
  result.flops_per_step = FlopsPerToken(cfg) * static_cast<double>(result.tokens_per_step);
  result.final_train_loss = std::nanf("");

  // The schedule: what it freezes and when, or when it stops.
  PF_ASSIGN_OR_RETURN(const Schedule schedule, ParseSchedule(o.schedule, cfg.layers));
  result.schedule = o.schedule;
  const bool freezes = schedule.kind == Schedule::Kind::kFreeze;
  const Trainable frozen_mask = schedule.Frozen(cfg.layers);
  const double tokens = static_cast<double>(result.tokens_per_step);
  result.frozen_flops_per_step =
      freezes ? FlopsPerTokenTrainable(cfg, frozen_mask) * tokens : result.flops_per_step;
  const int64_t freeze_step = freezes && !schedule.adaptive ? schedule.FreezeStep(o.steps) : -1;
  const int64_t window = schedule.window > 0 ? schedule.window : o.eval_every;
  std::vector<std::pair<size_t, size_t>> watched;
  std::vector<float> snapshot;
  size_t watched_floats = 0;
  if (freezes && schedule.adaptive) {
    watched = WatchedRanges(model, frozen_mask);
    for (const auto& r : watched) watched_floats += r.second;
  }
  int64_t frozen_at = -1, last_check = -1;
  double flops_done = 0, train_core_seconds = 0;
  std::unique_ptr<EarlyStop> early;
  if (schedule.kind == Schedule::Kind::kEarlyStop) {
    early = std::make_unique<EarlyStop>(schedule.patience, schedule.min_delta);
  }
  bool stop_early = false;

  const std::string fingerprint = Fingerprint(o, TokensHash(train_tokens), TokensHash(eval_tokens));
  const std::string ckpt_path = o.run_dir.empty() ? "" : JoinPath(o.run_dir, "checkpoint.bin");
  const std::string curve_path = o.run_dir.empty() ? "" : JoinPath(o.run_dir, "curve.jsonl");
  int64_t step = 0, last_saved = -1;
  double prior_train_seconds = 0, prior_core_seconds = 0;
  std::vector<EvalPoint> curve;

  if (!o.run_dir.empty()) {
    PF_RETURN_IF_ERROR(MakeDirectories(o.run_dir));
    if (PathExists(ckpt_path)) {
      PF_ASSIGN_OR_RETURN(Checkpoint c, ReadCheckpoint(ckpt_path));
      if (c.fingerprint != fingerprint) {
        return Status::InvalidArgument(
            ckpt_path +
            ": this run folder holds a checkpoint of a different run (model, steps, "
            "seed, schedule or data differ); use a new --out folder, or delete it to start over");
      }
      if (c.params.size() != n) return Status::Corruption(ckpt_path + ": parameter count differs");
      std::copy(c.params.begin(), c.params.end(), model.params());
      adam_m = std::move(c.adam_m);
      adam_v = std::move(c.adam_v);
      sampler.rng().set_state(c.rng);
      step = last_saved = c.step;
      for (const auto& p : c.curve) {
        curve.push_back({p.step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds});
      }
      prior_train_seconds = c.train_seconds;
      prior_core_seconds = c.core_seconds;
      // A checkpoint from before schedules existed is of a plain run: every step cost the same.
      flops_done = c.flops >= 0 ? c.flops : static_cast<double>(c.step) * result.flops_per_step;
      train_core_seconds = std::max(0.0, c.train_core_seconds);
      frozen_at = c.frozen_at;
      last_check = c.last_check;
      result.trigger_seconds = c.trigger_seconds;
      result.trigger_core_seconds = c.trigger_core_seconds;
      result.trigger_flops = c.trigger_flops;
      snapshot = std::move(c.snapshot);
      if (!watched.empty() && frozen_at < 0 && last_check >= 0 &&
          snapshot.size() != watched_floats) {
        return Status::Corruption(ckpt_path +
                                  ": the adaptive trigger's snapshot is missing or "
                                  "of the wrong size; delete the run folder to start over");
      }
      if (frozen_at >= 0) model.SetTrainable(frozen_mask);
      // Early stopping's state is a function of the curve: replay it.
      for (const EvalPoint& p : curve) {
        if (early && early->Observe(p.eval_bpb)) stop_early = true;
      }
      result.resumed = true;
      // The curve file may hold a point written after this checkpoint; the checkpoint rules.
      PF_RETURN_IF_ERROR(WriteCurve(curve_path, curve));
    }
  }

  auto save = [&]() -> Status {
    if (ckpt_path.empty() || last_saved == step) return Status::Ok();
    Checkpoint c;
    c.fingerprint = fingerprint;
    c.step = step;
    c.rng = sampler.rng().state();
    for (const EvalPoint& p : curve) {
      c.curve.push_back({p.step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds});
    }
    c.train_seconds = prior_train_seconds + result.train_seconds;
    c.core_seconds = prior_core_seconds + meter.core_seconds();
    c.params.assign(model.params(), model.params() + n);
    c.adam_m = adam_m;
    c.adam_v = adam_v;
    c.flops = flops_done;
    c.train_core_seconds = train_core_seconds;
    c.frozen_at = frozen_at;
    c.last_check = last_check;
    c.trigger_seconds = result.trigger_seconds;
    c.trigger_core_seconds = result.trigger_core_seconds;
    c.trigger_flops = result.trigger_flops;
    if (frozen_at < 0) c.snapshot = snapshot;  // frozen: the trigger is done, nothing to keep
    PF_RETURN_IF_ERROR(WriteCheckpoint(ckpt_path, c));
    last_saved = step;
    return Status::Ok();
  };
  auto diverged = [&](const char* what, double value) {
    std::string kept = last_saved >= 0
                           ? "the last good checkpoint (step " + std::to_string(last_saved) +
                                 ") is kept in " + ckpt_path
                           : "no checkpoint was written";
    return Status::InvalidArgument("training diverged at step " + std::to_string(step + 1) + ": " +
                                   what + " is " + NonFinite(value) + "; " + kept + "; lower --lr");
  };

  std::vector<int> inputs(static_cast<size_t>(B) * T), targets(static_cast<size_t>(B) * T);
  const int64_t first_step = step;
  const double t0 = WallSeconds();
  result.completed = true;
  while (true) {
    // The schedule acts before the step it concerns (and before the checkpoint of this step, so
    // that a resume here sees the same state).
    if (freezes && frozen_at < 0 && step < o.steps) {
      if (!schedule.adaptive && step >= freeze_step) {
        frozen_at = freeze_step;
        model.SetTrainable(frozen_mask);
      } else if (schedule.adaptive && step % window == 0 && step != last_check) {
        CostMeter trigger;
        if (snapshot.empty()) {
          snapshot.assign(watched_floats, 0.0f);
          RelativeChangeAndSnapshot(model.params(), watched, snapshot);  // the first snapshot
        } else {
          const double change = RelativeChangeAndSnapshot(model.params(), watched, snapshot);
          result.trigger_trace.push_back({step, change});
          if (change < schedule.threshold) {
            frozen_at = step;
            model.SetTrainable(frozen_mask);
            snapshot.clear();
          }
        }
        last_check = step;
        result.trigger_flops += 5.0 * static_cast<double>(watched_floats);
        result.trigger_seconds += trigger.wall_seconds();
        result.trigger_core_seconds += trigger.core_seconds();
      }
    }
    const bool eval_due = (step % o.eval_every == 0 || step == o.steps) &&
                          (curve.empty() || curve.back().step != step);
    if (eval_due) {
      const double bpb = Evaluate(model, eval_tokens, windows, inputs, targets);
      if (!std::isfinite(bpb)) return diverged("the eval loss", bpb);
      curve.push_back(
          {step, bpb, flops_done, prior_train_seconds + result.train_seconds, train_core_seconds});
      if (early && early->Observe(bpb)) stop_early = true;
      if (!curve_path.empty()) PF_RETURN_IF_ERROR(WriteCurve(curve_path, curve));
      if (on_step) {
        StepInfo info;
        info.step = step;
        info.steps = o.steps;
        info.loss = std::nanf("");
        info.eval_bpb = bpb;
        on_step(info);
      }
    }
    const bool stop_here = step == o.stop_after_step && step < o.steps;
    if (eval_due || step == o.steps || stop_here ||
        (o.checkpoint_every > 0 && step % o.checkpoint_every == 0)) {
      PF_RETURN_IF_ERROR(save());
    }
    if (step >= o.steps) break;
    if (stop_early) {
      result.stopped_early = true;
      break;
    }
    if (stop_here) {
      result.completed = false;
      break;
    }

    const double ts = WallSeconds();
    const double cs = ProcessCpuSeconds();
    const double step_flops = model.trainable().AllTrainable()
                                  ? result.flops_per_step
                                  : FlopsPerTokenTrainable(cfg, model.trainable()) * tokens;
    const float lr = LearningRate(step, o.steps, o.warmup_steps, o.lr, o.min_lr_ratio);
    sampler.Next(B, inputs.data(), targets.data());
    const StepStats stats = TrainStep(model, adam_m.data(), adam_v.data(), inputs.data(),
                                      targets.data(), lr, step + 1, adam, o.grad_clip);
    const float loss = stats.loss;
    if (!std::isfinite(loss)) return diverged("the training loss", loss);
    if (!std::isfinite(stats.grad_norm)) return diverged("the gradient norm", stats.grad_norm);
    step++;
    flops_done += step_flops;
    result.train_seconds += WallSeconds() - ts;
    train_core_seconds += ProcessCpuSeconds() - cs;
    result.final_train_loss = loss;
    if (on_step) {
      StepInfo info;
      info.step = step;
      info.steps = o.steps;
      info.loss = loss;
      info.lr = lr;
      info.tokens_per_second = static_cast<double>(step - first_step) * result.tokens_per_step /
                               std::max(1e-9, WallSeconds() - t0);
      info.eval_bpb = std::nan("");
      on_step(info);
    }
  }

  result.curve = curve;
  result.steps = step;
  result.train_seconds += prior_train_seconds;
  result.core_seconds = prior_core_seconds + meter.core_seconds();
  result.tokens_per_second =
      result.train_seconds > 0
          ? static_cast<double>(step) * result.tokens_per_step / result.train_seconds
          : 0.0;
  result.final_eval_bpb = curve.empty() ? std::nan("") : curve.back().eval_bpb;
  result.flops = flops_done;
  result.train_core_seconds = train_core_seconds;
  result.frozen_at = frozen_at;
  if (watched_floats > 0) {
    result.trigger_checks =
        std::llround(result.trigger_flops / (5.0 * static_cast<double>(watched_floats)));
  }
  return result;
}

Result<TrainResult> Train(const TrainOptions& options,
                          const std::function<void(const StepInfo&)>& on_step) {
  PF_RETURN_IF_ERROR(ValidateModel(options.model));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> train_docs, ReadJsonlTexts(options.data_path, options.text_field));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> eval_docs, ReadJsonlTexts(options.eval_path, options.text_field));
  return TrainOnDocuments(options, train_docs, eval_docs, on_step);
}

}  // namespace preflight::train
