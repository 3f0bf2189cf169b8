#include "app/forecast_job.h"

#include <fmt/format.h>

#include <cmath>

#include "app/remeasure.h"
#include "base/file.h"
#include "base/json.h"
#include "ledger/ledger.h"
#include "ledger/receipt.h"
#include "ledger/writable.h"

namespace preflight::app {

std::string CalibrationPath(const std::string& ledger_path) {
  return JoinPath(DirName(ledger_path), "calibration.json");
}

Result<forecast::Calibration> LoadCalibration(const std::string& ledger_path) {
  const std::string path = CalibrationPath(ledger_path);
  if (!PathExists(path)) return forecast::DefaultCalibration();
  auto json = ReadJsonFile(path);
  if (!json.ok()) {
    return Status::Corruption(json.status().message() +
                              "; delete it to use the default calibration, or rerun `preflight "
                              "forecast --calibrate`");
  }
  return forecast::Calibration::FromJson(*json, path);
}

Result<ForecastJob> RunForecastJob(const forecast::ForecastConfig& config,
                                   const std::string& ledger_path,
                                   const std::optional<forecast::ForecastArms>& arms,
                                   const ProgressFn& progress) {
  // Where the receipt and the kept arms go, before any work (exit 2: ledger/writable.h).
  PF_RETURN_IF_ERROR(ledger::CheckAppendable(ledger_path));
  if (!config.work_dir.empty()) {
    PF_RETURN_IF_ERROR(ledger::CheckWritableFolder(config.work_dir, "--work"));
  }
  if (!config.remeasures.empty()) {
    PF_ASSIGN_OR_RETURN(nlohmann::json trial, RemeasuredTrial(ledger_path, config));
    PF_RETURN_IF_ERROR(CheckSameInputs(trial, config));
  }
  ForecastJob job;
  job.config = config;
  auto outcome = arms ? forecast::ForecastOnArms(config, *arms, progress)
                      : forecast::RunForecast(config, progress);
  PF_RETURN_IF_ERROR(outcome.status());
  job.outcome = std::move(outcome).value();
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kForecast;
  for (const nlohmann::json& in : job.outcome.inputs) {
    receipt.inputs.push_back({in["role"], in["path"], in["sha256"], in["docs"], in["bytes"]});
  }
  receipt.config = config.ToJson();
  receipt.result = job.outcome.result;
  receipt.core_seconds = job.outcome.core_seconds;
  receipt.flops = job.outcome.flops;
  PF_ASSIGN_OR_RETURN(job.receipt_hash, ledger::AppendReceipt(ledger_path, receipt));
  return job;
}

nlohmann::json ForecastCorrect(const std::string& verdict, double net_saving, bool caught_up) {
  auto correct =
      forecast::Correct(verdict, caught_up ? std::optional<double>(net_saving) : std::nullopt);
  return correct ? nlohmann::json(*correct) : nlohmann::json(nullptr);
}

nlohmann::json ForecastJson(const ForecastJob& job) {
  const forecast::ForecastOutcome& o = job.outcome;
  // The receipt's result (forecast.cc builds it once), its calibration without the residuals,
  // and the receipt's hash.
  nlohmann::json doc = o.result;
  doc["calibration"].erase("residuals");
  doc["receipt"] = job.receipt_hash;
  return doc;
}

namespace {

std::string SignalLines(const ForecastJob& job) {
  std::string text;
  for (auto& [name, value] : job.outcome.signals.items()) {
    auto x = forecast::SignalFromJson(value);
    if (!x) continue;
    if (!value.contains("interval")) {
      text += fmt::format("  {:<20} {:.4f}{}\n", name, x->value,
                          name == job.config.calibration.signal ? "   <- the verdict's" : "");
      continue;
    }
    text += fmt::format("  {:<20} {:+.4f}  ({:+.4f} .. {:+.4f}){}\n", name, x->value, x->lo, x->hi,
                        name == job.config.calibration.signal ? "   <- the verdict's" : "");
  }
  return text;
}

}  // namespace

std::string ForecastText(const ForecastJob& job) {
  const forecast::ForecastOutcome& o = job.outcome;
  const forecast::Prediction& p = o.prediction;
  const forecast::Calibration& cal = job.config.calibration;
  std::string text = fmt::format("verdict: {} (chance that curating pays: {:.0f}%; {})\n",
                                 p.verdict, 100 * p.probability, p.strength);
  text += "  because: " + o.result["reason"].get<std::string>() + "\n";
  text += fmt::format(
      "predicted net compute saving: {:+.1f}% (80% interval {:+.1f}% .. {:+.1f}%; expected "
      "{:+.1f}%)\n",
      100 * p.saving, 100 * p.lo, 100 * p.hi, 100 * p.expected);
  if (!p.scale_matches) {
    text += fmt::format(
        "  scale: calibrated on {} for {} steps, asked about {} for {} steps: the interval is "
        "widened; run a calibration battery at this scale to narrow it\n",
        cal.scale.model, cal.scale.steps, job.config.model_name, job.config.steps);
  }
  // The fraction the forecast was made for (its receipt's config.keep): "quarter", or "10%".
  const double keep = job.config.keep;
  const std::string part =
      std::abs(keep - 0.25) < 1e-12 ? std::string("quarter") : fmt::format("{:g}%", 100 * keep);
  text += fmt::format(
      "signals: the curated {0} against the random {0} on the target's selectable part\n"
      "(gains in bits per byte with an 80% interval over the target's documents; coverage and "
      "classifier AUC as shares)\n",
      part);
  text += SignalLines(job);
  text += fmt::format(
      "calibration: {} ({} trials from {} corpus groups; pilot {}/{} steps, {} of {} "
      "informative by the regime check)\n",
      cal.source, cal.examples, cal.groups, cal.scale.model, cal.scale.steps, cal.scale.informative,
      cal.scale.trials);
  text += fmt::format(
      "cost: {:.2f} core-seconds = {:.2f}% of the trial's training compute (estimated)\n",
      o.core_seconds, 100 * o.fraction_of_trial);
  text += "receipt " + job.receipt_hash.substr(0, 16) + "\n";
  return text;
}

}  // namespace preflight::app
