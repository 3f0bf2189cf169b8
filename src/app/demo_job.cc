#include "app/demo_job.h"

#include <fmt/format.h>

#include "app/select_receipt.h"
#include "base/file.h"
#include "base/json.h"
#include "corpus/scanner.h"
#include "engine/config.h"
#include "forecast/calibration.h"
#include "forecast/holdout_record.h"
#include "ledger/ledger.h"
#include "ledger/writable.h"
#include "narrate/forecast_record.h"

namespace preflight::app {
namespace {

// Share of `genre` in the text bytes of a JSONL file's documents (their "genre" field).
Result<double> GenreShare(const std::string& path, const std::string& genre) {
  double bytes = 0, total = 0;
  corpus::ReadOptions read;
  read.threads = 1;
  PF_RETURN_IF_ERROR(
      corpus::ScanDocuments({path}, read, [&](int, const corpus::Record& r, std::string_view t) {
        auto j = nlohmann::json::parse(r.line, nullptr, false);
        const double n = static_cast<double>(t.size());
        // A document without a genre has the genre "".
        const nlohmann::json& g = JsonAt(j, {"genre"});
        if (j.is_object() && (g.is_string() ? g.get_ref<const std::string&>() : "") == genre) {
          bytes += n;
        }
        total += n;
      }).status());
  return total > 0 ? bytes / total : 0;
}

Result<BatteryTarget> DemoTarget(const DemoRequest& r) {
  const std::string path = JoinPath(r.data_dir, "battery.json");
  if (!PathExists(path)) {
    // A relative --data is read from the working directory: say so, for a demo started
    // elsewhere than the repository's root.
    const bool absolute = !r.data_dir.empty() && r.data_dir[0] == '/';
    const std::string where = absolute ? "" : " (read from the working directory)";
    return Status::NotFound(path + where +
                            ": the built-in battery is missing; run the demo from the "
                            "repository's root (or pass --data), after scripts/setup.sh (or "
                            "scripts/fetch-data.sh)");
  }
  PF_ASSIGN_OR_RETURN(BatterySpec spec, ReadBatterySpec(path));
  return FindTarget(spec, r.target);
}

Result<DemoSelection> SelectWith(const DemoRequest& r, const BatteryTarget& t,
                                 const std::string& selector) {
  select::SelectOptions o;
  o.selector = selector;
  o.seed = r.seed;
  o.threads = r.threads;
  o.out_path = JoinPath(r.out_dir, t.name + "." + selector + ".jsonl");
  if (!t.text_field.empty()) o.read.text_field = t.text_field;
  if (!t.id_field.empty()) o.id_field = t.id_field;
  DemoSelection s;
  s.selector = selector;
  std::string receipt;
  RecordSelectionBeforeNaming(o, r.ledger_path, &receipt);
  PF_ASSIGN_OR_RETURN(s.result, select::RunSelection({t.pool}, {t.target_select}, o));
  PF_ASSIGN_OR_RETURN(s.target_share, GenreShare(o.out_path, t.genre));
  return s;
}

}  // namespace

Result<trial::TrialConfig> DemoTrialConfig(const DemoRequest& r) {
  PF_ASSIGN_OR_RETURN(BatteryTarget target, DemoTarget(r));
  trial::TrialConfig c;
  c.pool = {target.pool};
  c.target_select = target.target_select;
  c.target_eval = target.target_eval;
  c.target_name = "brown:" + target.name + " (" + target.label + ")";
  c.selector = "dsir";
  c.selection_seed = r.seed;
  c.seeds = r.seeds;
  c.steps = r.steps;
  c.threads = r.threads;
  c.model_name = "tiny";
  PF_ASSIGN_OR_RETURN(c.model, engine::NamedModel("tiny"));
  c.out_dir = JoinPath(r.out_dir, "trial-" + target.name);
  if (!target.text_field.empty()) c.text_field = target.text_field;
  if (!target.id_field.empty()) c.id_field = target.id_field;
  return c;
}

Result<LadderRequest> DemoLadderRequest(const DemoRequest& r, const trial::TrialConfig& trial,
                                        const std::string& target) {
  LadderRequest ladder;
  ladder.base = trial;
  ladder.base.seeds = r.ladder_seeds;
  ladder.ledger_path = r.ledger_path;
  ladder.out_dir = JoinPath(r.out_dir, "ladder-" + target);
  PF_ASSIGN_OR_RETURN(std::vector<RungSpec> specs, ParseRungs(r.ladder_rungs));
  for (const RungSpec& spec : specs) {
    PF_ASSIGN_OR_RETURN(engine::ModelConfig model, engine::NamedModel(spec.model_name));
    ladder.rungs.push_back({spec.model_name, model, spec.steps});
  }
  PF_RETURN_IF_ERROR(CheckRungs(ladder.rungs));
  return ladder;
}

Status CheckDemoOutputs(const DemoRequest& r) {
  return ledger::CheckLedgerAndOutFolder(r.ledger_path, r.out_dir);
}

Result<DemoJob> RunDemoJob(const DemoRequest& r, const TrialObserver& observer) {
  DemoJob job;
  job.out_dir = r.out_dir;
  job.ledger_path = r.ledger_path;
  PF_ASSIGN_OR_RETURN(job.target, DemoTarget(r));
  PF_ASSIGN_OR_RETURN(trial::TrialConfig config, DemoTrialConfig(r));
  PF_RETURN_IF_ERROR(CheckDemoOutputs(r));
  PF_RETURN_IF_ERROR(MakeDirectories(r.out_dir));
  PF_ASSIGN_OR_RETURN(job.pool_share, GenreShare(job.target.pool, job.target.genre));
  for (const char* selector : {"random", "first", "dsir", "classifier"}) {
    PF_ASSIGN_OR_RETURN(DemoSelection s, SelectWith(r, job.target, selector));
    job.selections.push_back(std::move(s));
  }
  if (r.select_only) return job;
  std::optional<LadderRequest> ladder;  // checked before any training
  if (!r.ladder_rungs.empty()) {
    PF_ASSIGN_OR_RETURN(ladder, DemoLadderRequest(r, config, job.target.name));
  }
  PF_ASSIGN_OR_RETURN(TrialJob trial, RunTrialJob({config, r.ledger_path, true, ""}, observer));
  job.trial = std::move(trial);
  if (!ladder) return job;
  PF_ASSIGN_OR_RETURN(LadderJob ladder_job, RunLadderJob(*ladder, observer));
  job.ladder = std::move(ladder_job);
  return job;
}

namespace {

std::string SelectionDetails(const DemoJob& job) {
  const BatteryTarget& t = job.target;
  std::string out =
      fmt::format("preflight demo: target '{}' (Brown genre {}, {})\n", t.name, t.genre, t.label);
  out += fmt::format(
      "  pool           {}\n  target_select  {}\n  target_eval    {} (held out: never read "
      "here)\n\n",
      t.pool, t.target_select, t.target_eval);
  out += fmt::format("{:<10} {:>10} {:>10} {:>14} {:>12}\n", "selector", "kept docs", "kept MB",
                     "target genre", "core-sec");
  out += fmt::format("{:<10} {:>10} {:>10} {:>13.1f}% {:>12}\n", "(pool)", "", "",
                     100 * job.pool_share, "");
  for (const DemoSelection& s : job.selections) {
    out += fmt::format("{:<10} {:>10} {:>10.2f} {:>13.1f}% {:>12.2f}\n", s.selector,
                       s.result.kept_docs, s.result.kept_bytes / 1e6, 100 * s.target_share,
                       s.result.core_seconds);
  }
  out += fmt::format(
      "\n(\"target genre\" = share of the kept text that is genre {}; the budget is a quarter of "
      "the pool's bytes)\n\nWhy DSIR kept what it kept: log importance weight per 128-word chunk, "
      "log p_target - log p_pool over hashed unigrams+bigrams\n",
      t.genre);
  const select::SelectionResult& dsir = job.selections[2].result;
  out += "  highest kept:  ";
  for (const auto& d : dsir.top_kept)
    out += fmt::format("{} ({}, {:+.1f})  ", d.id, d.genre, d.score);
  out += "\n  lowest in pool: ";
  for (const auto& d : dsir.bottom_pool)
    out += fmt::format("{} ({}, {:+.1f})  ", d.id, d.genre, d.score);
  out +=
      fmt::format("\n\nSelections in {}/, receipts in {} (check them: preflight ledger verify)\n",
                  job.out_dir, job.ledger_path);
  return out;
}

// The trial's one screen with the forecast's record out of sample under its forecast line, so that
// the demo's one verdict (wrong, on the default target) is read beside how the forecast does on
// corpora it never saw. Only for a forecast made with the built-in calibration, whose record it
// is: a calibration fitted on the user's ledger reports its own (`forecast --calibrate`).
std::string TrialTextWithForecastRecord(const TrialJob& trial) {
  std::string text = TrialText(trial);
  if (!trial.forecast ||
      trial.forecast->config.calibration.source != forecast::DefaultCalibration().source) {
    return text;
  }
  const size_t line = text.find("\n  forecast (made before)");
  if (line == std::string::npos) return text;
  const size_t end = text.find('\n', line + 1);
  text.insert(end == std::string::npos ? text.size() : end + 1,
              narrate::ForecastRecordLines(forecast::kHoldoutRecord));
  return text;
}

}  // namespace

std::string DemoText(const DemoJob& job) {
  const std::string details = SelectionDetails(job);
  if (!job.trial) return details;
  const DemoSelection& dsir = job.selections[2];
  std::string out =
      "=== preflight demo: does training on the DSIR-selected quarter save compute? ===\n\n";
  out += fmt::format(
      "Selected: {} of {} documents of the pool (a quarter of its bytes) most like Brown genre {} "
      "({});\n{:.0f}% of the kept text is that genre, against {:.0f}% of the pool.\n\n",
      dsir.result.kept_docs, dsir.result.pool_docs, job.target.genre, job.target.label,
      100 * dsir.target_share, 100 * job.pool_share);
  out += TrialTextWithForecastRecord(*job.trial) + "\n";
  if (job.ladder) {
    out += fmt::format(
        "=== the same arms at three scales (a ladder, {} seeds per arm): does the saving grow? "
        "===\n\n",
        job.ladder->rungs.front().trial.outcome.config.seeds);
    out += LadderText(*job.ladder) + "\n";
  }
  return out + "=== details ===\n\n" + details;
}

}  // namespace preflight::app
