#include "trainer/builtin_trainer.h"

namespace preflight::trainer {

engine::TrainOptions BuiltinOptions(const RunRequest& r) {
  engine::TrainOptions t;
  t.model = r.model;
  t.data_path = r.train_path;
  t.schedule = r.schedule;
  t.eval_path = r.eval_path;
  t.text_field = r.text_field;
  t.eval_text_field = r.eval_text_field;
  t.run_dir = r.run_dir;
  t.steps = r.steps;
  t.seed = static_cast<uint64_t>(r.seed);
  t.eval_every = r.eval_every;
  t.eval_max_windows = r.eval_windows;
  t.threads = r.threads;
  t.lr = r.lr;
  t.warmup_steps = r.warmup_steps;
  t.min_lr_ratio = r.min_lr_ratio;
  return t;
}

Result<RunResult> BuiltinTrainer::Run(const RunRequest& request, const ProgressFn& progress) {
  PF_ASSIGN_OR_RETURN(engine::TrainResult r, engine::Train(BuiltinOptions(request), progress));
  RunResult out;
  for (const engine::EvalPoint& p : r.curve) {
    out.curve.push_back(
        {p.step, p.step * r.tokens_per_step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds});
  }
  out.params = r.params;
  out.tokens_per_step = r.tokens_per_step;
  out.steps = r.steps;
  out.flops_per_step = r.flops_per_step;
  out.core_seconds = r.core_seconds;
  out.train_seconds = r.train_seconds;
  out.tokens_per_second = r.tokens_per_second;
  out.facts = r;  // the engine result's ScheduleFacts, as one value
  return out;
}

}  // namespace preflight::trainer
