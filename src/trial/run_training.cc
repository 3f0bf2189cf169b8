#include "trial/run_training.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "base/file.h"
#include "base/json.h"
#include "engine/init_weights.h"
#include "trainer/builtin_trainer.h"
#include "trainer/cmd_trainer.h"
#include "trainer/parallel.h"
#include "trial/concurrent_runs.h"
#include "trial/arm_specs.h"
#include "trial/outcome_builder.h"

namespace preflight::trial {
namespace {

std::string Absolute(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

struct Task {
  ArmSpec spec;
  int seed = 0;
  int number = 0;  // 1-based, of all runs
};

// Runs still to train, in training order. A schedule trial goes seed by seed, every arm in turn:
// the arms' measured times then share the machine's load (it compares wall time, not only FLOPs).
std::vector<Task> PendingTasks(const TrialConfig& c, const RunFolderManifest& m, int* reused) {
  std::vector<std::pair<ArmSpec, int>> order;
  const std::vector<ArmSpec> specs = TrialArmSpecs(c);
  if (c.IsScheduleTrial()) {
    for (int seed = 1; seed <= c.seeds; ++seed)
      for (const ArmSpec& spec : specs) order.push_back({spec, seed});
  } else {
    for (const ArmSpec& spec : specs)
      for (int seed = 1; seed <= c.seeds; ++seed) order.push_back({spec, seed});
  }
  std::vector<Task> tasks;
  for (size_t i = 0; i < order.size(); ++i) {
    if (m.runs.count(RunKey(order[i].first.name, order[i].second))) {
      ++*reused;
    } else {
      tasks.push_back({order[i].first, order[i].second, static_cast<int>(i) + 1});
    }
  }
  return tasks;
}

// The run a task asks the trainer for, every automatic value resolved as the engine resolves it.
Result<trainer::RunRequest> RequestFor(const TrialConfig& c, const RunFolder& folder,
                                       const Task& t) {
  engine::TrainOptions o;
  o.model = c.model;
  o.steps = c.steps;
  o.eval_every = c.eval_every;
  o.threads = c.threads;
  o.lr = c.lr;
  PF_ASSIGN_OR_RETURN(o, engine::ResolveOptions(o));
  trainer::RunRequest r;
  r.arm = t.spec.name;
  r.seed = t.seed;
  r.run_dir = folder.RunDir(t.spec.name, t.seed);
  r.train_path = DataPath(c, folder, c.IsScheduleTrial() ? kScheduleDataArm : t.spec.name);
  r.eval_path = c.target_eval;
  r.text_field = c.text_field;  // an arm holds the pool's lines
  r.eval_text_field = c.TargetTextField();
  r.schedule = t.spec.schedule;
  r.model_name = c.model_name;
  r.model = c.model;
  r.steps = c.steps;
  r.eval_every = o.eval_every;
  r.eval_windows = c.eval_max_windows;
  r.warmup_steps = o.warmup_steps;
  r.lr = c.lr;
  r.min_lr_ratio = o.min_lr_ratio;
  r.threads = o.threads;
  return r;
}

RunRecord RecordOf(const Task& t, const trainer::RunResult& r) {
  RunRecord run;
  run.arm = t.spec.name;
  run.seed = t.seed;
  for (const trainer::CurvePoint& p : r.curve) {
    run.curve.push_back({p.step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds, p.tokens});
  }
  run.flops_per_step = r.flops_per_step;
  run.tokens_per_step = r.tokens_per_step;
  run.steps = r.steps;
  run.params = r.params;
  run.core_seconds = r.core_seconds;
  run.train_seconds = r.train_seconds;
  run.tokens_per_second = r.tokens_per_second;
  static_cast<trainer::ScheduleFacts&>(run) = r.facts;
  run.launch = r.launch;
  return run;
}

Status Record(RunFolder& folder, const Task& t, RunRecord run) {
  folder.manifest().runs[RunKey(t.spec.name, t.seed)] = std::move(run);
  return folder.Save();
}

// What the progress bar shows of builtin runs: one at a time, each run's own bar; several side by
// side, one bar for all of them (the steps of every run of this call, summed).
class BuiltinProgress {
 public:
  BuiltinProgress(const ProgressFn& progress, const std::vector<Task>& tasks, int64_t steps,
                  int total_runs, int at_once)
      : progress_(progress),
        tasks_(tasks),
        steps_(steps),
        total_runs_(total_runs),
        at_once_(at_once),
        at_(tasks.size(), 0) {}

  // Run i's report (engine::Train's): its training steps are shown, its evals are not.
  void Step(int i, const ProgressReport& s) {
    if (!progress_ || !std::isnan(s.eval_bpb)) return;
    const Task& t = tasks_[static_cast<size_t>(i)];
    ProgressReport shown = s;
    if (at_once_ == 1) {
      shown.stage = "train " + t.spec.name + " seed " + std::to_string(t.seed);
      shown.run = t.number;
      shown.runs = total_runs_;
      progress_(shown);
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);  // called from every run's thread
    at_[static_cast<size_t>(i)] = s.done;
    uint64_t done = 0;
    for (uint64_t a : at_) done += a;
    shown.stage = "train " + std::to_string(tasks_.size()) + " runs, " + std::to_string(at_once_) +
                  " at once";
    shown.done = done;
    shown.total = static_cast<uint64_t>(steps_) * tasks_.size();
    shown.lr = std::nan("");  // the runs are at different steps
    shown.tokens_per_second = s.tokens_per_second * at_once_;
    progress_(shown);
  }

 private:
  const ProgressFn& progress_;
  const std::vector<Task>& tasks_;
  const int64_t steps_;
  const int total_runs_, at_once_;
  std::mutex mu_;
  std::vector<uint64_t> at_;
};

// The builtin: in this process, one run after another or several side by side, each on one
// thread (RunsAtOnce); or over MPI ranks (the executor's).
Status TrainInProcess(const TrialConfig& c, RunFolder& folder, RunExecutor& executor,
                      const ProgressFn& progress, const std::vector<Task>& tasks, int total_runs) {
  const int count = static_cast<int>(tasks.size());
  const int at_once = executor.InProcess() ? std::min(RunsAtOnce(c), std::max(count, 1)) : 1;
  BuiltinProgress shown(progress, tasks, c.steps, total_runs, at_once);
  auto train_task = [&](int i) -> Result<std::string> {
    const Task& t = tasks[static_cast<size_t>(i)];
    PF_ASSIGN_OR_RETURN(trainer::RunRequest request, RequestFor(c, folder, t));
    if (at_once > 1) request.threads = 1;
    trainer::BuiltinTrainer builtin;
    auto r = builtin.Run(request, [&](const ProgressReport& s) { shown.Step(i, s); });
    PF_RETURN_IF_ERROR(r.status());
    return ToJson(RecordOf(t, *r)).dump();
  };
  auto record = [&](int i, const std::string& text) -> Status {
    const Task& t = tasks[static_cast<size_t>(i)];
    const std::string where = "run " + RunKey(t.spec.name, t.seed);
    PF_ASSIGN_OR_RETURN(nlohmann::json json, ParseJson(text, where));
    PF_ASSIGN_OR_RETURN(RunRecord run, RunRecordFromJson(json, where));
    return Record(folder, t, std::move(run));
  };
  if (at_once > 1) return RunConcurrently(count, at_once, train_task, record);
  return executor.RunTasks(count, train_task, record);
}

// What launched trainers read, made once per trial: every data arm's export and T_eval's, and for
// torch the engine's initial weights of every seed.
struct LaunchInputs {
  std::map<std::string, trainer::ArmExport> arms;
  trainer::ArmExport eval;
};

Result<LaunchInputs> PrepareLaunchInputs(const TrialConfig& c, const RunFolder& folder,
                                         const ProgressFn& progress, int total_runs) {
  LaunchInputs in;
  const std::string exports = JoinPath(Absolute(c.out_dir), "exports");
  for (const ArmSpec& spec : TrialArmSpecs(c)) {
    if (progress) progress({.stage = "export " + spec.name, .runs = total_runs});
    PF_ASSIGN_OR_RETURN(in.arms[spec.name],
                        trainer::ExportArm(Absolute(DataPath(c, folder, spec.name)), c.text_field,
                                           JoinPath(exports, spec.name)));
  }
  if (progress) progress({.stage = "export eval (T_eval)", .runs = total_runs});
  PF_ASSIGN_OR_RETURN(in.eval, trainer::ExportArm(Absolute(c.target_eval), c.TargetTextField(),
                                                  JoinPath(exports, "eval")));
  if (c.trainer.kind == "torch") {
    for (int seed = 1; seed <= c.seeds; ++seed) {
      PF_RETURN_IF_ERROR(
          engine::WriteInitialWeights(c.model, static_cast<uint64_t>(seed), InitPath(c, seed)));
    }
  }
  return in;
}

// A launched trainer: the exports, then the runs, --parallel at a time.
Status TrainLaunched(const TrialConfig& c, RunFolder& folder, const ProgressFn& progress,
                     const std::vector<Task>& tasks, int total_runs, int* reused) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<trainer::CmdTrainer> launcher,
                      trainer::MakeLaunchedTrainer(c.trainer));
  PF_ASSIGN_OR_RETURN(LaunchInputs inputs, PrepareLaunchInputs(c, folder, progress, total_runs));
  std::vector<trainer::RunRequest> requests;
  for (const Task& t : tasks) {
    PF_ASSIGN_OR_RETURN(trainer::RunRequest r, RequestFor(c, folder, t));
    r.run_dir = Absolute(r.run_dir);
    r.train_export = inputs.arms.at(t.spec.name);
    r.eval_export = inputs.eval;
    if (c.trainer.kind == "torch") r.init_path = InitPath(c, t.seed);
    requests.push_back(std::move(r));
  }
  std::set<size_t> launched;
  // Run i's report at step `done` of its steps.
  auto report = [&](size_t i, int64_t done) {
    return ProgressReport{.stage = "train " + tasks[i].spec.name + " seed " +
                                   std::to_string(tasks[i].seed) + " (" + c.trainer.kind + ")",
                          .done = static_cast<uint64_t>(done),
                          .total = static_cast<uint64_t>(c.steps),
                          .unit = "step",
                          .run = tasks[i].number,
                          .runs = total_runs};
  };
  trainer::LaunchCallbacks callbacks;
  callbacks.on_start = [&](size_t i) {
    launched.insert(i);
    // One run at a time: its bar from the start. Several: the oldest's bar (on_wait), each
    // run's end (on_done).
    if (progress && c.trainer.parallel == 1) {
      ProgressReport r = report(i, 0);
      r.note = "launched: waiting for the first eval";
      progress(r);
    }
  };
  callbacks.on_wait = [&](size_t i, double seconds) {
    if (!progress) return;
    const std::optional<trainer::EvalPoint> at = launcher->LatestPoint(requests[i]);
    ProgressReport r = report(i, at ? at->step : 0);
    if (!at) {  // nothing to show but that it runs
      r.note = fmt::format("waiting for the first eval ({:.0f}s)", seconds);
    } else {
      r.eval_bpb = at->eval_bpb;
      r.tokens_per_second = seconds > 0 ? static_cast<double>(at->tokens) / seconds : 0.0;
    }
    progress(r);
  };
  callbacks.on_done = [&](size_t i, const trainer::RunResult& result) -> Status {
    if (!launched.count(i)) ++*reused;
    if (progress) {
      ProgressReport r = report(i, c.steps);
      r.eval_bpb = result.curve.back().eval_bpb;
      r.tokens_per_second = result.tokens_per_second;
      progress(r);
    }
    return Record(folder, tasks[i], RecordOf(tasks[i], result));
  };
  return trainer::RunLaunches(*launcher, requests, c.trainer.parallel, callbacks);
}

}  // namespace

std::string DataPath(const TrialConfig& c, const RunFolder& folder, const std::string& arm) {
  if (c.IsScheduleTrial() && c.schedule_data == "pool") return c.pool[0];
  return folder.ArmPath(arm);
}

std::string InitPath(const TrialConfig& c, int seed) {
  return JoinPath(Absolute(c.out_dir), "runs/init-s" + std::to_string(seed) + ".bin");
}

Status TrainRuns(const TrialConfig& c, RunFolder& folder, RunExecutor& executor,
                 const ProgressFn& progress, int* reused) {
  const std::vector<Task> tasks = PendingTasks(c, folder.manifest(), reused);
  const int total_runs = static_cast<int>(TrialArmSpecs(c).size()) * c.seeds;
  if (c.trainer.IsBuiltin()) {
    return TrainInProcess(c, folder, executor, progress, tasks, total_runs);
  }
  if (tasks.empty()) return Status::Ok();
  return TrainLaunched(c, folder, progress, tasks, total_runs, reused);
}

}  // namespace preflight::trial
