#include "app/trial_job.h"

#include <fmt/format.h>

#include "app/trial_parts.h"
#include "app/trial_prices.h"
#include "base/file.h"
#include "base/json.h"
#include "ledger/ledger.h"
#include "ledger/receipt.h"
#include "mpi/ranks.h"

namespace preflight::app {
namespace {

// The forecast of the trial `config` plans: its plan as one value, the forecast's own settings
// at their defaults.
forecast::ForecastConfig ForecastConfigFor(const trial::TrialConfig& config) {
  forecast::ForecastConfig f;
  static_cast<trial::TrialPlan&>(f) = config;
  return f;
}

forecast::ForecastArms ForecastArmsOf(const std::vector<trial::MadeArm>& made) {
  forecast::ForecastArms arms;
  for (const trial::MadeArm& m : made) {
    if (m.name != "curated" && m.name != "random") continue;
    forecast::ForecastArm& arm = m.name == "curated" ? arms.curated : arms.random;
    arm = {m.path, m.record.data_kind, m.record.kept_docs, m.record.kept_bytes,
           m.record.selection_core_seconds};
    if (m.name == "curated") {
      arms.inputs = nlohmann::json::array();
      for (const auto& in : m.record.inputs) arms.inputs.push_back(ledger::InputJson(in));
    }
  }
  return arms;  // the trial charges the selections to its arms: the forecast pays for none
}

Status AppendReceiptAndResult(TrialJob& job, const std::string& ledger_path,
                              const nlohmann::json& plan) {
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kTrial;
  receipt.inputs = job.outcome.inputs;
  receipt.config = job.outcome.config.ToJson();
  if (!plan.is_null()) receipt.config["plan"] = plan;
  receipt.result = TrialResultJson(job);
  receipt.core_seconds = job.outcome.core_seconds;
  receipt.flops = job.outcome.flops;
  PF_ASSIGN_OR_RETURN(job.receipt_hash, ledger::AppendReceipt(ledger_path, receipt));
  nlohmann::json result = receipt.result;
  result["receipt"] = job.receipt_hash;
  trial::RunFolder folder(job.outcome.out_dir);
  return WriteFileAtomically(folder.ResultPath(), result.dump(2) + "\n");
}

}  // namespace

bool IsLeaderProcess() { return mpi::Rank() == 0; }

Result<TrialJob> RunTrialJob(const TrialRequest& request, const TrialObserver& observer) {
  trial::TrialConfig config = request.config;
  if (!config.trainer.IsBuiltin() && !config.prices.Resolved()) {  // no price flags: defaults
    PF_ASSIGN_OR_RETURN(config.prices, ResolvePrices({}, config.trainer, config.threads));
  }
  const bool leader = IsLeaderProcess();
  auto note = [&](const std::string& line) {
    if (observer.note && leader) observer.note(line);
  };
  std::optional<ForecastJob> forecast;
  trial::BeforeTraining before_training;
  if (mpi::Size() > 1 && !config.trainer.IsBuiltin()) {
    return Status::InvalidArgument(
        "--trainer " + config.trainer.kind +
        " does not run under mpirun (each rank would launch the runs); run preflight once and "
        "use --parallel, torchrun (--torch-launcher) or Slurm in the template");
  }
  // The inputs are read once: what the check read is passed on to the trial (leader only).
  trial::CheckedInputs checked;
  if (leader) {
    if (request.checked) {
      checked = std::move(*request.checked);
    } else {
      PF_RETURN_IF_ERROR(trial::CheckTrial(config, &checked, observer.progress));
    }
    PF_RETURN_IF_ERROR(ledger::CheckAppendable(request.ledger_path));
  }
  if (leader && request.forecast_first && !config.IsScheduleTrial() &&
      config.forecast_hash.empty()) {
    forecast::ForecastConfig fc = ForecastConfigFor(config);
    fc.group = request.group;
    PF_ASSIGN_OR_RETURN(fc.calibration, LoadCalibration(request.ledger_path));
    before_training =
        [&, fc](const std::vector<trial::MadeArm>& arms) -> Result<trial::ForecastCharge> {
      PF_ASSIGN_OR_RETURN(ForecastJob f,
                          RunForecastJob(fc, request.ledger_path, ForecastArmsOf(arms),
                                         [&](const std::string& s) { note("forecast: " + s); }));
      note(fmt::format("forecast: {} (predicted net saving {:+.1f}%), receipt {}",
                       f.outcome.prediction.verdict, 100 * f.outcome.prediction.saving,
                       f.receipt_hash.substr(0, 16)));
      forecast = std::move(f);
      return trial::ForecastCharge{forecast->receipt_hash, forecast->outcome.core_seconds};
    };
  }
  std::unique_ptr<trial::RunExecutor> executor = mpi::MakeRunExecutor();
  PF_ASSIGN_OR_RETURN(trial::TrialOutcome outcome,
                      trial::RunTrial(config, observer.progress, executor.get(), before_training,
                                      leader ? &checked : nullptr));
  TrialJob job;
  job.outcome = std::move(outcome);
  if (!job.outcome.leader) return job;
  job.forecast = std::move(forecast);
  PF_RETURN_IF_ERROR(Narrate(job));
  job.report_path = trial::RunFolder(job.outcome.out_dir).ReportPath();
  PF_RETURN_IF_ERROR(AppendReceiptAndResult(job, request.ledger_path, request.plan));
  PF_RETURN_IF_ERROR(WriteTrialReport(job));  // after the receipt: the page shows its hash
  return job;
}

Result<TrialJob> LoadTrialJob(const std::string& out_dir) {
  TrialJob job;
  PF_ASSIGN_OR_RETURN(job.outcome, trial::LoadTrial(out_dir));
  PF_RETURN_IF_ERROR(Narrate(job));
  trial::RunFolder folder(out_dir);
  job.report_path = folder.ReportPath();
  if (PathExists(folder.ResultPath())) {
    PF_ASSIGN_OR_RETURN(nlohmann::json result, ReadJsonFile(folder.ResultPath()));
    JsonReader r(result, folder.ResultPath());
    if (r.Has("receipt")) {
      PF_ASSIGN_OR_RETURN(job.receipt_hash, r.String("receipt"));
    }
    if (result.is_object() && result.contains("forecast")) {
      job.recorded_forecast = result["forecast"];
    }
  }
  return job;
}

}  // namespace preflight::app
