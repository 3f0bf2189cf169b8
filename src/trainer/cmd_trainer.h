#pragma once
// `--trainer cmd`: one launch per run of the user's template through /bin/sh (launch.h), the
// curve read back in the chosen format (curve_reader.h), compute from run.json or the flags
// (doc/trainers.md). The torch trainer is this with a built-in template (torch_trainer.h).
//
// A run's result is collected from its folder alone (launch.json, the curve, run.json), so a run
// that finished before preflight was killed is collected on resume without launching it again
// (Finished). Failures are IOError (exit 1) naming the run, saying what went wrong and showing the
// tail of its log: a launch that exited non-zero or was killed, and a launch that exited 0 with a
// missing, malformed or short curve (or a malformed run.json).

#include <memory>
#include <optional>
#include <string>

#include "trainer/command_template.h"
#include "trainer/curve_reader.h"
#include "trainer/launch.h"
#include "trainer/trainer.h"

namespace preflight::trainer {

class CmdTrainer : public Trainer {
 public:
  explicit CmdTrainer(TrainerSpec spec) : spec_(std::move(spec)) {}
  std::string kind() const override { return spec_.kind; }

  // The launch of `request`: the template filled in, the PREFLIGHT_* environment, the folder.
  Result<LaunchSpec> Prepare(const RunRequest& request) const;
  // The result of the run's last launch, read from its folder.
  Result<RunResult> Collect(const RunRequest& request) const;
  // The result, when the folder holds a launch that exited 0 with a complete curve; nullopt when
  // the run must be launched (never launched, killed, failed, or its curve incomplete).
  std::optional<RunResult> Finished(const RunRequest& request) const;
  // Finished, else one launch, waited for within Limits(), then Collect.
  Result<RunResult> Run(const RunRequest& request, const ProgressFn& progress) override;

  // How long each launch may run (--run-timeout, --stall-timeout).
  LaunchLimits Limits() const { return {spec_.run_timeout, spec_.stall_timeout}; }

  // The absolute path the run writes its curve to ({curve}).
  std::string CurvePath(const RunRequest& request) const;
  // The last point of the curve the run has written so far (progress); nullopt when there is
  // none yet or it does not read.
  std::optional<EvalPoint> LatestPoint(const RunRequest& request) const;

 protected:
  // The placeholders' values for `request` (doc/trainers.md's table, in its order).
  virtual Placeholders Values(const RunRequest& request) const;
  // The command line, every placeholder filled in.
  virtual Result<std::string> Command(const RunRequest& request) const;

  TrainerSpec spec_;
};

// The launched trainer `spec` names (cmd or torch). InvalidArgument for the builtin or a spec
// ValidateTrainerSpec refuses.
Result<std::unique_ptr<CmdTrainer>> MakeLaunchedTrainer(const TrainerSpec& spec);

}  // namespace preflight::trainer
