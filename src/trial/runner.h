#pragma once
// A trial: does training on the curated part of a pool reach the random part's quality with less
// compute, and by how much after paying for the selection? (doc/design.md, "The metrics, exactly".)
//
// CheckTrial validates everything a trial needs before anything is written: the flags, that the
// run folder can be written, that a folder being resumed holds this same trial, and that every
// input exists and parses, reading each once and keeping what it read (CheckedInputs) so that
// the trial does not parse it again. RunTrial then makes the arms once (the selector's
// quarter, a random quarter of the same byte budget, optionally the first quarter; a schedule
// trial's one data file), lets the caller look at them before any training step (the forecast
// under test), has its trainer (config.trainer: the builtin engine, or a launched torch or cmd
// trainer; run_training.h, doc/trainers.md) train `seeds` paired runs per arm with identical
// model, optimizer, schedule, steps, batch and context, checks that the runs were compute-matched
// and evaluated alike, and computes the numbers (metrics.h, schedule_metrics.h). Everything is
// typed; the run folder's format is doc/trial-format.md (run_folder.h). The job on top
// (app/trial_job.h) writes result.json, the report and the receipt.
// Resumable: a rerun of the same config reuses finished arms and runs and resumes the
// interrupted run from its checkpoint (a launched trainer: relaunches the unfinished runs).
// Not thread-safe (the builtin's training uses every thread).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "corpus/record.h"
#include "engine/config.h"
#include "ledger/receipt.h"
#include "trial/metrics.h"
#include "trial/regime.h"
#include "trial/run_folder.h"
#include "trial/schedule_metrics.h"
#include "trial/trial_config.h"

namespace preflight::select {
struct PreparedInputs;  // select/prepared.h
}  // namespace preflight::select

namespace preflight::trial {

// Where a trial's runs are trained. The default trains them one after another in this process;
// mpi/ spreads them over MPI ranks (every rank calls RunTrial with the same config). Only the
// leader selects the arms, writes out_dir and returns a full outcome; the others train the runs
// they own and return an outcome with leader == false.
class RunExecutor {
 public:
  virtual ~RunExecutor() = default;
  virtual bool IsLeader() const { return true; }
  // Whether every run is trained in this process (the default): then builtin runs may train
  // side by side on its threads (--runs-at-once).
  virtual bool InProcess() const { return true; }
  // Called by every process once the leader has made the arms (or failed to). Returns a failure
  // on every process if any process failed, so that no process waits for one that has stopped.
  virtual Status AfterArms(Status local) { return local; }
  // Trains task i (0 <= i < count) by calling run(i) in the process that owns it, and calls
  // on_result(i, output of run(i)) on the leader as results arrive. The output is the run's
  // record as JSON text (the wire format between processes). A failed task fails every process.
  virtual Status RunTasks(int count, const std::function<Result<std::string>(int)>& run,
                          const std::function<Status(int, const std::string&)>& on_result) {
    for (int i = 0; i < count; ++i) {
      PF_ASSIGN_OR_RETURN(std::string out, run(i));
      PF_RETURN_IF_ERROR(on_result(i, out));
    }
    return Status::Ok();
  }
};

// An arm's data, made: its file and its record.
struct MadeArm {
  std::string name;
  std::string path;
  ArmRecord record;
};

// What the caller's look at the arms decided: the forecast that was made, charged to the
// curated arm.
struct ForecastCharge {
  std::string receipt_hash;
  double core_seconds = 0;
};
using BeforeTraining = std::function<Result<ForecastCharge>(const std::vector<MadeArm>& arms)>;

struct TrialOutcome {
  bool leader = true;           // false: a non-leader MPI rank; nothing below is filled in
  TrialConfig config;           // as run (forecast_hash and forecast_core_seconds filled in)
  std::vector<MadeArm> data;    // the arms' data files (one, "data", for a schedule trial)
  std::vector<Arm> arms;        // per-seed curves of every arm, in arm order
  std::vector<RunRecord> runs;  // every run, arm by arm, seed by seed
  TrialResult trial;            // a data trial's numbers; a schedule trial's step-axis view
  std::optional<ScheduleTrialResult> schedule;  // a schedule trial's numbers
  // The regime check (trial/regime.h): n-gram scores of every arm's data on T_eval against L*.
  // Absent only for a folder whose trial.json has no n-gram scores of its arms.
  std::optional<Regime> regime;
  double core_seconds_per_step = 0;  // f (data trials)
  int64_t params = 0;
  std::vector<ledger::InputRecord> inputs;  // pool files, T_sel, T_eval
  double core_seconds = 0;  // all training and selection of this trial (all invocations)
  double flops = 0;         // training FLOPs of all runs
  int reused_runs = 0;      // runs found finished in out_dir
  std::string out_dir;
  // What the data shares with the targets (arm_overlap.h): one sentence each.
  std::vector<std::string> warnings;
};

// What CheckTrial measured of the inputs, passed on so that a trial parses each input once: the
// records its receipt lists, its selections' first passes and T_eval's documents.
struct CheckedInputs {
  std::vector<ledger::InputRecord> pool;  // one per --pool path; empty when `passes` is null
  ledger::InputRecord target_select, target_eval;
  std::vector<std::string> eval_texts;  // T_eval's documents (the target's text field), in order
  // The pool's and T_sel's first passes, made for the trial's selections (select/prepared.h);
  // null when every data arm is already made (a resumed trial selects nothing).
  std::shared_ptr<const select::PreparedInputs> passes;
  double passes_core_seconds = 0;  // what making `passes` cost (a keep trial charges it)
};

// Validates the flags, that out_dir can be written and that an existing run folder holds this
// trial, then reads every input once: the pool (with the pool's fields) when an arm is left to
// make, T_sel and T_eval (with the target's). A bad line fails here, naming file and line,
// before anything is written. Writes nothing. With `checked`, keeps what it read for RunTrial.
// `progress` hears the stage "read inputs".
Status CheckTrial(const TrialConfig& config, CheckedInputs* checked = nullptr,
                  const ProgressFn& progress = {});

// progress: stages without a measure ("select <arms>", "regime <arm> (byte n-grams)", "export
// <arm>"), then each run's steps ("train <arm> seed <s>", its run of all runs; the builtin's
// training loss, a launched run's latest eval), or, for builtin runs side by side, their steps
// summed ("train <n> runs, <k> at once", from each run's thread, one at a time). Under MPI every
// process hears its own.
// executor: where the runs are trained (nullptr: one after another in this process).
// before_training: called by the leader once the arms exist, before any training step.
// checked: what CheckTrial read of this config's inputs (leader only; nullptr: read them here).
Result<TrialOutcome> RunTrial(const TrialConfig& config, const ProgressFn& progress = {},
                              RunExecutor* executor = nullptr,
                              const BeforeTraining& before_training = {},
                              const CheckedInputs* checked = nullptr);

// A finished trial read back from its run folder, numbers recomputed (no training). Corruption
// naming the file and JSON path for a damaged folder, InvalidArgument for an unfinished one.
Result<TrialOutcome> LoadTrial(const std::string& out_dir);

}  // namespace preflight::trial
