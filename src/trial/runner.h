#pragma once
// A trial: does training on the curated part of a pool reach the random part's quality with less
// compute, and by how much after paying for the selection? (DESIGN.md, "The metrics, exactly".)
//
// RunTrial makes the arms (the selector's quarter, a random quarter of the same byte budget, and
// optionally the first quarter), trains `seeds` runs per arm with paired seeds and identical
// model, optimizer, schedule, steps, batch and context, evaluates every run on the held-out
// target on one schedule, checks that the runs were compute-matched, and computes the savings,
// the bootstrap interval and the lab record (metrics.h). It writes into out_dir:
//   trial.json          the manifest: the config and what is done (rewritten atomically)
//   arms/<arm>.jsonl    each arm's documents (+ .manifest.json, the selection's manifest)
//   runs/<arm>-s<seed>/ each run's checkpoint and curve (train/trainer.h)
//   result.json         the result (the receipt's "result")
// and the caller renders report.html from the outcome (report/trial_report.h).
// Resumable: a rerun of the same config reuses finished arms and runs and resumes the interrupted
// run from its checkpoint; the result is the same as an uninterrupted trial's, except for the
// measured costs (core-seconds), which are measurements of the work actually done. A different
// config in an existing out_dir is refused (nothing is overwritten).
// Not thread-safe (training uses every thread of the process).

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "train/config.h"
#include "trial/metrics.h"
#include "trial/schedule_metrics.h"

namespace preflight::trial {

struct TrialConfig {
  std::vector<std::string> pool;
  std::string target_select;  // T_sel: what the selector may read
  std::string target_eval;    // T_eval: held out; read only by the evaluation of training runs
  std::string target_name;    // for the lab record, e.g. "brown:cj (learned)"
  std::string selector = "dsir";
  double keep = 0.25;
  uint64_t selection_seed = 1;
  std::string baseline;  // "" or "first": adds the first quarter as a third arm
  int seeds = 4;         // runs per arm, seeds 1..seeds
  std::string model_name = "tiny";
  train::ModelConfig model;
  int64_t steps = 300;
  int64_t eval_every = 0;  // 0 = steps / 20
  // Eval windows, evenly spread over the held-out file: a fixed set, the same for every run and
  // every eval point. 256 windows keep an eval at about 16 training steps' worth of forward work.
  int64_t eval_max_windows = 256;
  float lr = 1e-3f;
  int threads = 2;
  std::string out_dir;
  // The forecast receipt (hash) this trial tests, and the forecast's cost, charged to the curated
  // arm when the forecast is what chose it. Empty when no forecast was made.
  std::string forecast_hash;
  double forecast_core_seconds = 0;
  // A schedule trial (doc/schedules.md) when not empty: a plain baseline arm against one arm per
  // schedule (canonical spelling, train/schedule.h), all trained on the same data, chosen by
  // schedule_data: "random" (a random `keep` of the pool), "curated" (the selector's) or "pool"
  // (the single pool file as it is). No data arm is compared; the selector is used only for
  // "curated".
  std::vector<std::string> schedules;
  std::string schedule_data = "random";

  nlohmann::json ToJson() const;  // Everything that defines the trial (the fingerprint).
};

// Where a trial's runs are trained. The default trains them one after another in this process;
// dist/ spreads them over MPI ranks (every rank calls RunTrial with the same config). Only the
// leader selects the arms, writes out_dir and returns a full outcome; the others train the runs
// they own and return an outcome with leader == false.
class RunExecutor {
 public:
  virtual ~RunExecutor() = default;
  virtual bool IsLeader() const { return true; }
  // Called by every process once the leader has made the arms (or failed to). Returns a failure
  // on every process if any process failed, so that no process waits for one that has stopped.
  virtual Status AfterArms(Status local) { return local; }
  // Trains task i (0 <= i < count) by calling run(i) in the process that owns it, and calls
  // on_result(i, output of run(i)) on the leader as results arrive. A failed task fails every
  // process, with a message naming where and why it failed.
  virtual Status RunTasks(int count, const std::function<Result<std::string>(int)>& run,
                          const std::function<Status(int, const std::string&)>& on_result) {
    for (int i = 0; i < count; ++i) {
      PF_ASSIGN_OR_RETURN(std::string out, run(i));
      PF_RETURN_IF_ERROR(on_result(i, out));
    }
    return Status::Ok();
  }
};

struct TrialProgress {
  std::string stage;  // "select <arm>", "train <arm> seed <s>"
  int64_t step = 0, steps = 0;
  int run = 0, runs = 0;  // 1-based run being trained, of all runs
  double loss = 0;
  double tokens_per_second = 0;
};

struct TrialOutcome {
  bool leader = true;     // false: a non-leader MPI rank; nothing below is filled in
  nlohmann::json result;  // DESIGN.md keys + comparisons, lab record, compute, arms
  nlohmann::json lab_record;
  nlohmann::json inputs;    // for the receipt: path, sha256, docs, bytes of pool, T_sel, T_eval
  double core_seconds = 0;  // all training and selection of this trial (all invocations)
  double flops = 0;         // training FLOPs of all runs
  std::string report_path;  // out_dir/report.html, for the caller to render (report/)
  int reused_runs = 0;      // runs found finished in out_dir
  // What the report shows.
  std::string title;
  std::vector<Arm> arms;
  TrialResult trial;
  std::vector<std::pair<std::string, std::string>> facts;
  // Schedule trials only (config.schedules not empty): the full result (`trial` above is then
  // unset; the report derives its step-axis view).
  std::optional<ScheduleTrialResult> schedule;
};

// Estimated wall seconds of the whole trial from a short timing of this model on this machine.
Result<double> EstimateTrialSeconds(const TrialConfig& config);

// executor: where the runs are trained (nullptr: one after another in this process).
Result<TrialOutcome> RunTrial(const TrialConfig& config,
                              const std::function<void(const TrialProgress&)>& progress = {},
                              RunExecutor* executor = nullptr);

}  // namespace preflight::trial
