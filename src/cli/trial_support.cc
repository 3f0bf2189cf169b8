#include "cli/trial_support.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "base/file.h"
#include "base/format.h"
#include "cli/forecast_support.h"
#include "cli/progress.h"
#ifdef PREFLIGHT_HAVE_DIST
#include "dist/dist.h"
#endif
#include "ledger/ledger.h"
#include "report/trial_report.h"

namespace preflight::cli {

bool IsLeaderProcess() {
#ifdef PREFLIGHT_HAVE_DIST
  return dist::Rank() == 0;
#else
  return true;
#endif
}

Result<trial::TrialOutcome> RunTrialWithProgress(const trial::TrialConfig& config, bool quiet) {
  std::unique_ptr<trial::RunExecutor> executor;  // Under mpirun: the runs spread over the ranks.
#ifdef PREFLIGHT_HAVE_DIST
  executor = dist::MakeRunExecutor();
#endif
  if (!IsLeaderProcess()) quiet = true;
  std::unique_ptr<Progress> bar;
  std::string stage;
  auto on_progress = [&](const trial::TrialProgress& p) {
    if (quiet) return;
    if (p.stage != stage) {
      if (bar) bar->Finish();
      stage = p.stage;
      std::string label = p.runs > 0 && p.run > 0 ? "[" + std::to_string(p.run) + "/" +
                                                        std::to_string(p.runs) + "] " + p.stage
                                                  : p.stage;
      bar = std::make_unique<Progress>(label, static_cast<double>(std::max<int64_t>(1, p.steps)),
                                       "step");
    }
    char note[96];
    std::snprintf(note, sizeof(note), "loss %.3f | %.0f tok/s", p.loss, p.tokens_per_second);
    bar->Update(static_cast<double>(p.step), p.steps > 0 ? note : "");
  };
  auto outcome = trial::RunTrial(config, on_progress, executor.get());
  if (bar) bar->Finish();
  return outcome;
}

Status WriteTrialReport(const trial::TrialOutcome& outcome) {
  report::ReportData data;
  data.title = outcome.title;
  data.arms = outcome.arms;
  data.result = outcome.trial;
  data.lab_record = outcome.lab_record;
  data.facts = outcome.facts;
  data.schedule = outcome.schedule;
  return WriteFileAtomically(outcome.report_path, report::RenderTrialReport(data));
}

Result<std::string> AppendTrialReceipt(const trial::TrialConfig& config,
                                       const trial::TrialOutcome& outcome,
                                       const nlohmann::json& result,
                                       const std::string& ledger_path) {
  nlohmann::json receipt = {
      {"kind", "trial"},
      {"inputs", outcome.inputs},
      {"config", config.ToJson()},
      {"result", result},
      {"cost", {{"core_seconds", outcome.core_seconds}, {"flops", outcome.flops}}}};
  PF_ASSIGN_OR_RETURN(nlohmann::json appended, ledger::Append(ledger_path, receipt));
  return appended["hash"].get<std::string>();
}

Result<TrialRun> RunTrialWithReceipt(const trial::TrialConfig& trial_config,
                                     const std::string& ledger_path, bool quiet,
                                     bool forecast_first) {
  trial::TrialConfig config = trial_config;
  // The forecast this trial tests, made and recorded (by the leader) before any training step.
  std::optional<ForecastRun> forecast;
  if (forecast_first && config.forecast_hash.empty() && IsLeaderProcess()) {
    PF_ASSIGN_OR_RETURN(forecast::ForecastConfig fc, ForecastConfigFor(config, ledger_path));
    PF_ASSIGN_OR_RETURN(ForecastRun f, RunForecastWithReceipt(fc, ledger_path, quiet));
    if (!quiet) {
      std::fprintf(stderr, "forecast: %s (predicted net saving %+.1f%%), receipt %s\n",
                   f.outcome.prediction.verdict.c_str(), 100 * f.outcome.prediction.saving,
                   f.receipt_hash.substr(0, 16).c_str());
    }
    config.forecast_hash = f.receipt_hash;
    config.forecast_core_seconds = f.outcome.core_seconds;
    forecast = std::move(f);
  }
  PF_ASSIGN_OR_RETURN(trial::TrialOutcome outcome_value, RunTrialWithProgress(config, quiet));
  trial::TrialOutcome* outcome = &outcome_value;  // read like the Result it came from
  if (!outcome->leader) return TrialRun{std::move(*outcome), nullptr, ""};

  PF_RETURN_IF_ERROR(WriteTrialReport(*outcome));

  // The forecast under test, marked right or wrong by DESIGN.md's rule.
  nlohmann::json forecast_json = nullptr;
  if (forecast) {
    const auto& p = forecast->outcome.prediction;
    forecast_json = {
        {"receipt", forecast->receipt_hash},
        {"verdict", p.verdict},
        {"predicted_saving", p.saving},
        {"interval", {p.lo, p.hi}},
        {"strength", p.strength},
        {"signals", forecast->outcome.signals},
        {"core_seconds", forecast->outcome.core_seconds},
        {"fraction_of_trial", forecast->outcome.fraction_of_trial},
        {"correct", ForecastCorrect(p.verdict, outcome->result["compute_saved"]["net"])}};
  } else if (!config.forecast_hash.empty()) {
    forecast_json = {{"receipt", config.forecast_hash}};  // made by the caller, who marks it
  }
  nlohmann::json result = outcome->result;
  result["forecast"] = forecast_json;
  TrialRun run;
  PF_ASSIGN_OR_RETURN(run.receipt_hash, AppendTrialReceipt(config, *outcome, result, ledger_path));
  const nlohmann::json& r = outcome->result;
  run.summary = {{"compute_saved", r["compute_saved"]},
                 {"caught_up", r["caught_up"]},
                 {"l_star", r["l_star"]},
                 {"t_random", r["t_random"]},
                 {"t_curated", r["t_curated"]},
                 {"forecast", forecast_json},
                 {"comparisons", r["comparisons"]},
                 {"lab_record", r["lab_record"]},
                 {"report", outcome->report_path},
                 {"receipt", run.receipt_hash},
                 {"reused_runs", outcome->reused_runs},
                 {"cost", {{"core_seconds", outcome->core_seconds}, {"flops", outcome->flops}}}};
  run.outcome = std::move(*outcome);
  return run;
}

Result<forecast::ForecastConfig> ForecastConfigFor(const trial::TrialConfig& t,
                                                   const std::string& ledger_path) {
  forecast::ForecastConfig f;
  f.pool = t.pool;
  f.target_select = t.target_select;
  f.selector = t.selector;
  f.keep = t.keep;
  f.selection_seed = t.selection_seed;
  f.model_name = t.model_name;
  f.model = t.model;
  f.steps = t.steps;
  f.seeds = t.seeds;
  f.lr = t.lr;
  f.threads = t.threads;
  PF_ASSIGN_OR_RETURN(f.calibration, LoadCalibration(ledger_path));
  return f;
}

std::string TrialSummaryText(const TrialRun& run) {
  if (!run.outcome.leader) return "";  // An MPI rank other than 0: rank 0 prints the summary.
  const auto& cmp = run.outcome.trial.comparisons.front();
  std::string out;
  char line[512];
  std::snprintf(line, sizeof(line), "%s\n\n",
                run.outcome.lab_record.value("summary", std::string()).c_str());
  out += line;
  std::snprintf(
      line, sizeof(line),
      "  L* (best random-arm loss)  %.4f bits/byte at step %s\n"
      "  curated arm reaches it at  %s\n"
      "  compute saved, gross       %s\n"
      "  compute saved, net         %s   (95%% interval %s to %s; %s charged)\n",
      cmp.saving.l_star, FormatSteps(cmp.saving.t_baseline).c_str(),
      cmp.saving.caught_up ? ("step " + FormatSteps(cmp.saving.t_arm)).c_str()
                           : "never (within the budget)",
      FormatPercent(cmp.saving.gross).c_str(), FormatPercent(cmp.saving.net).c_str(),
      FormatPercent(cmp.ci.net.lo).c_str(), FormatPercent(cmp.ci.net.hi).c_str(),
      run.summary["forecast"].is_object() ? "selection and forecast costs" : "selection cost");
  out += line;
  for (size_t i = 1; i < run.outcome.trial.comparisons.size(); ++i) {
    const auto& c = run.outcome.trial.comparisons[i];
    std::snprintf(line, sizeof(line), "  %-26s %s net\n", (c.arm + " vs " + c.baseline).c_str(),
                  FormatPercent(c.saving.net).c_str());
    out += line;
  }
  const nlohmann::json& f = run.summary["forecast"];
  if (f.is_object() && f.contains("verdict")) {
    std::snprintf(
        line, sizeof(line), "  forecast (made before)     %s, predicted %+.1f%%: %s\n",
        f["verdict"].get<std::string>().c_str(), 100 * f["predicted_saving"].get<double>(),
        f["correct"].is_null() ? "an abstention" : (f["correct"].get<bool>() ? "right" : "wrong"));
    out += line;
  }
  std::snprintf(line, sizeof(line),
                "  report                     %s\n  receipt                    %s\n",
                run.outcome.report_path.c_str(), run.receipt_hash.substr(0, 16).c_str());
  out += line;
  return out;
}

}  // namespace preflight::cli
