#include "trial/runner.h"

#include "base/file.h"
#include "base/json.h"
#include "trial/arm_overlap.h"
#include "trial/arm_specs.h"
#include "trial/make_arms.h"
#include "trial/outcome_builder.h"
#include "trial/run_training.h"
#include "trial/trial_flags.h"

namespace preflight::trial {

Result<TrialOutcome> RunTrial(const TrialConfig& config, const ProgressFn& progress,
                              RunExecutor* executor, const BeforeTraining& before_training,
                              const CheckedInputs* checked) {
  RunExecutor in_process;
  if (executor == nullptr) executor = &in_process;
  TrialConfig c = config;
  PF_RETURN_IF_ERROR(ValidateTrialFlags(c));
  RunFolder folder(c.out_dir);
  const int total_runs = static_cast<int>(TrialArmSpecs(c).size()) * c.seeds;

  // 1. The arms' data, made once by the leader, who then shows them to the caller (the forecast
  //    under test) before any training step; the other processes read the leader's manifest.
  if (executor->IsLeader()) {
    auto arms_then_forecast = [&]() -> Status {
      PF_RETURN_IF_ERROR(folder.Open(c.ToJson()));
      if (!c.trainer.IsBuiltin()) folder.manifest().prices = c.prices;  // this run's, kept
      PF_ASSIGN_OR_RETURN(std::vector<MadeArm> made,
                          MakeArms(c, folder, total_runs, progress, checked));
      PF_RETURN_IF_ERROR(CheckArmsDiffer(made));
      PF_RETURN_IF_ERROR(ScoreArms(c, folder, made, total_runs, progress, checked));
      if (!before_training) return Status::Ok();
      PF_ASSIGN_OR_RETURN(ForecastCharge charge, before_training(made));
      c.forecast_hash = charge.receipt_hash;
      c.forecast_core_seconds = charge.core_seconds;
      folder.manifest().config = c.ToJson();
      folder.manifest().forecast_core_seconds = charge.core_seconds;
      return folder.Save();
    };
    PF_RETURN_IF_ERROR(executor->AfterArms(arms_then_forecast()));
  } else {
    PF_RETURN_IF_ERROR(executor->AfterArms(Status::Ok()));
    if (!PathExists(folder.manifest_path())) {
      return Status::NotFound(folder.manifest_path() + ": the leader wrote no trial manifest");
    }
    PF_RETURN_IF_ERROR(folder.Open(c.ToJson()));
  }

  // 2. The runs: seeds 1..S per arm, paired by seed across arms.
  int reused = 0;
  PF_RETURN_IF_ERROR(TrainRuns(c, folder, *executor, progress, &reused));
  if (!executor->IsLeader()) {
    TrialOutcome outcome;
    outcome.leader = false;
    return outcome;
  }

  // 3. The numbers.
  PF_ASSIGN_OR_RETURN(TrialOutcome outcome,
                      BuildOutcome(c, folder, checked ? &checked->target_eval : nullptr));
  outcome.warnings = OverlapWarnings(folder.manifest().arms);
  outcome.reused_runs = reused;
  folder.manifest().done = true;
  PF_RETURN_IF_ERROR(folder.Save());
  return outcome;
}

Result<TrialOutcome> LoadTrial(const std::string& out_dir) {
  RunFolder folder(out_dir);
  if (!PathExists(folder.manifest_path())) {
    return Status::NotFound(folder.manifest_path() + ": no trial here (no trial.json)");
  }
  PF_ASSIGN_OR_RETURN(nlohmann::json json, ReadJsonFile(folder.manifest_path()));
  PF_ASSIGN_OR_RETURN(RunFolderManifest manifest, ManifestFromJson(json, folder.manifest_path()));
  PF_ASSIGN_OR_RETURN(TrialConfig config,
                      TrialConfigFromJson(manifest.config, folder.manifest_path()));
  config.out_dir = out_dir;
  config.forecast_core_seconds = manifest.forecast_core_seconds;
  config.prices = manifest.prices;
  if (!manifest.done) {
    return Status::InvalidArgument(folder.manifest_path() +
                                   ": the trial is not finished; rerun its command to finish it");
  }
  PF_RETURN_IF_ERROR(folder.Open(config.ToJson()));
  PF_ASSIGN_OR_RETURN(TrialOutcome outcome, BuildOutcome(config, folder));
  outcome.warnings = OverlapWarnings(folder.manifest().arms);
  return outcome;
}

}  // namespace preflight::trial
