#include "cli/trial_support.h"

#include <cmath>
#include <cstdio>
#include <memory>

#include "base/file.h"
#include "cli/progress.h"
#include "ledger/ledger.h"
#include "report/trial_report.h"

namespace preflight::cli {

Result<TrialRun> RunTrialWithReceipt(const trial::TrialConfig& config,
                                     const std::string& ledger_path, bool quiet) {
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
  auto outcome = trial::RunTrial(config, on_progress);
  if (bar) bar->Finish();
  if (!outcome.ok()) return outcome.status();
  if (!outcome->leader) return TrialRun{std::move(*outcome), nullptr, ""};

  report::ReportData data;
  data.title = outcome->title;
  data.arms = outcome->arms;
  data.result = outcome->trial;
  data.lab_record = outcome->lab_record;
  data.facts = outcome->facts;
  PF_RETURN_IF_ERROR(WriteFileAtomically(outcome->report_path, report::RenderTrialReport(data)));

  nlohmann::json config_json = config.ToJson();
  nlohmann::json receipt = {
      {"kind", "trial"},
      {"inputs", outcome->inputs},
      {"config", config_json},
      {"result", outcome->result},
      {"cost", {{"core_seconds", outcome->core_seconds}, {"flops", outcome->flops}}}};
  PF_ASSIGN_OR_RETURN(nlohmann::json appended, ledger::Append(ledger_path, receipt));

  TrialRun run;
  run.receipt_hash = appended["hash"];
  const nlohmann::json& r = outcome->result;
  run.summary = {{"compute_saved", r["compute_saved"]},
                 {"caught_up", r["caught_up"]},
                 {"l_star", r["l_star"]},
                 {"t_random", r["t_random"]},
                 {"t_curated", r["t_curated"]},
                 {"forecast", nullptr},
                 {"comparisons", r["comparisons"]},
                 {"lab_record", r["lab_record"]},
                 {"report", outcome->report_path},
                 {"receipt", run.receipt_hash},
                 {"reused_runs", outcome->reused_runs},
                 {"cost", {{"core_seconds", outcome->core_seconds}, {"flops", outcome->flops}}}};
  run.outcome = std::move(*outcome);
  return run;
}

std::string TrialSummaryText(const TrialRun& run) {
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
      "  compute saved, net         %s   (95%% interval %s to %s; selection cost charged)\n",
      cmp.saving.l_star, trial::FormatSteps(cmp.saving.t_baseline).c_str(),
      cmp.saving.caught_up ? ("step " + trial::FormatSteps(cmp.saving.t_arm)).c_str()
                           : "never (within the budget)",
      trial::FormatPercent(cmp.saving.gross).c_str(), trial::FormatPercent(cmp.saving.net).c_str(),
      trial::FormatPercent(cmp.ci.net.lo).c_str(), trial::FormatPercent(cmp.ci.net.hi).c_str());
  out += line;
  for (size_t i = 1; i < run.outcome.trial.comparisons.size(); ++i) {
    const auto& c = run.outcome.trial.comparisons[i];
    std::snprintf(line, sizeof(line), "  %-26s %s net\n", (c.arm + " vs " + c.baseline).c_str(),
                  trial::FormatPercent(c.saving.net).c_str());
    out += line;
  }
  std::snprintf(line, sizeof(line),
                "  report                     %s\n  receipt                    %s\n",
                run.outcome.report_path.c_str(), run.receipt_hash.substr(0, 16).c_str());
  out += line;
  return out;
}

}  // namespace preflight::cli
