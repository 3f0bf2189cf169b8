#include "cli/forecast_support.h"

#include <cstdio>
#include <optional>

#include "base/file.h"
#include "ledger/ledger.h"

namespace preflight::cli {

std::string CalibrationPath(const std::string& ledger_path) {
  return JoinPath(DirName(ledger_path), "calibration.json");
}

Result<forecast::Calibration> LoadCalibration(const std::string& ledger_path) {
  const std::string path = CalibrationPath(ledger_path);
  if (!PathExists(path)) return forecast::DefaultCalibration();
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    return Status::Corruption(path +
                              ": not JSON; delete it to use the default calibration, or "
                              "rerun `preflight forecast --calibrate`");
  }
  auto c = forecast::Calibration::FromJson(j);
  if (!c.ok()) return Status::Corruption(path + ": " + c.status().message());
  return c;
}

Result<ForecastRun> RunForecastWithReceipt(const forecast::ForecastConfig& config,
                                           const std::string& ledger_path, bool quiet) {
  auto stage = [&](const std::string& s) {
    if (!quiet) std::fprintf(stderr, "forecast: %s\n", s.c_str());
  };
  PF_ASSIGN_OR_RETURN(forecast::ForecastOutcome outcome, forecast::RunForecast(config, stage));
  nlohmann::json receipt = {
      {"kind", "forecast"},
      {"inputs", outcome.inputs},
      {"config", config.ToJson()},
      {"result", outcome.result},
      {"cost", {{"core_seconds", outcome.core_seconds}, {"flops", outcome.flops}}}};
  PF_ASSIGN_OR_RETURN(nlohmann::json appended, ledger::Append(ledger_path, receipt));
  ForecastRun run;
  run.receipt_hash = appended["hash"];
  run.summary = {
      {"verdict", outcome.prediction.verdict},
      {"strength", outcome.prediction.strength},
      {"reason", outcome.result["reason"]},
      {"predicted_saving", outcome.prediction.saving},
      {"interval", {outcome.prediction.lo, outcome.prediction.hi}},
      {"signal", config.calibration.signal},
      {"signals", outcome.signals},
      {"calibration",
       {{"source", config.calibration.source},
        {"mode", config.calibration.mode},
        {"examples", config.calibration.examples}}},
      {"cost",
       {{"core_seconds", outcome.core_seconds}, {"fraction_of_trial", outcome.fraction_of_trial}}},
      {"receipt", run.receipt_hash}};
  run.outcome = std::move(outcome);
  return run;
}

nlohmann::json ForecastCorrect(const std::string& verdict, const nlohmann::json& net_saving) {
  auto correct = forecast::Correct(verdict, net_saving.is_number()
                                                ? std::optional<double>(net_saving.get<double>())
                                                : std::nullopt);
  return correct ? nlohmann::json(*correct) : nlohmann::json(nullptr);
}

std::string ForecastSummaryText(const ForecastRun& run) {
  const auto& o = run.outcome;
  std::string text;
  char line[256];
  std::snprintf(line, sizeof(line), "verdict: %s (%s: the signal's interval %s 0)\n",
                o.prediction.verdict.c_str(), o.prediction.strength.c_str(),
                o.prediction.strength == "clear" ? "excludes" : "straddles");
  text += line;
  text += "  because: " + run.summary["reason"].get<std::string>() + "\n";
  std::snprintf(line, sizeof(line),
                "predicted net compute saving: %+.1f%% (80%% interval %+.1f%% .. %+.1f%%)\n",
                100 * o.prediction.saving, 100 * o.prediction.lo, 100 * o.prediction.hi);
  text += line;
  text +=
      "signals: gain of the curated over the random quarter on the target's selectable part\n"
      "(bits per byte; 80% interval over the target's documents)\n";
  for (auto& [name, value] : o.signals.items()) {
    auto x = forecast::SignalFromJson(value);
    if (!x) continue;
    if (!value.contains("interval")) {
      std::snprintf(line, sizeof(line), "  %-18s %.4f\n", name.c_str(), x->value);
      text += line;
      continue;
    }
    std::snprintf(line, sizeof(line), "  %-18s %+.4f  (%+.4f .. %+.4f)%s\n", name.c_str(), x->value,
                  x->lo, x->hi,
                  name == run.summary["signal"].get<std::string>() ? "   <- the verdict's" : "");
    text += line;
  }
  std::snprintf(
      line, sizeof(line), "calibration: %s (%d trials; verdict by the %s's sign)\n",
      run.summary["calibration"]["source"].get<std::string>().c_str(),
      run.summary["calibration"]["examples"].get<int>(),
      run.summary["calibration"]["mode"].get<std::string>() == "point" ? "value" : "interval");
  text += line;
  std::snprintf(line, sizeof(line),
                "cost: %.2f core-seconds = %.1f%% of the trial's training compute (estimated)\n",
                o.core_seconds, 100 * o.fraction_of_trial);
  text += line;
  text += "receipt " + run.receipt_hash.substr(0, 16) + "\n";
  return text;
}

}  // namespace preflight::cli
