// A trial job's words: the lab record, the one-screen summary and the report page; its JSON
// (trial/result_json.h writes it) with the words and the forecast under test.

#include <fmt/format.h>

#include "app/trial_job.h"
#include "app/trial_parts.h"
#include "base/file.h"
#include "base/json.h"
#include "base/number_format.h"
#include "engine/config.h"
#include "narrate/lab_record.h"
#include "narrate/regime_text.h"
#include "narrate/schedule_record.h"
#include "narrate/summary.h"
#include "report/trial_report.h"
#include "trial/result_json.h"

namespace preflight::app {
namespace {

// --target-name, else the target file's stem ("cj" for /x/targets/cj.jsonl).
std::string TargetName(const trial::TrialConfig& c, const std::string& target_path) {
  return c.target_name.empty() ? TargetStem(target_path) : c.target_name;
}

uint64_t PoolBytes(const trial::TrialOutcome& o) {
  for (const trial::MadeArm& arm : o.data) return arm.record.pool_bytes;
  return 0;
}

uint64_t DataBytes(const trial::TrialOutcome& o) {
  for (const trial::MadeArm& arm : o.data) {
    if (arm.name == "data") return arm.record.kept_bytes;
  }
  return 0;
}

std::string PoolName(const trial::TrialConfig& c) {
  return c.pool.size() == 1 ? c.pool[0] : std::to_string(c.pool.size()) + " pool files";
}

std::string ScheduleData(const trial::TrialConfig& c, uint64_t bytes) {
  const double mb = static_cast<double>(bytes) / 1e6;
  if (c.schedule_data == "pool") return fmt::format("the whole pool ({:.1f} MB)", mb);
  return fmt::format("{} {:g}% of the pool ({:.1f} MB)",
                     c.schedule_data == "random" ? "a random" : "the " + c.selector + "-selected",
                     c.keep * 100, mb);
}

// "tiny (120640 parameters, 2 layers, d_model 64, context 64, batch 16)", for the report.
std::string ModelFact(const trial::TrialConfig& c, int64_t params) {
  return fmt::format("{} ({} parameters, {} layers, d_model {}, context {}, batch {})",
                     c.model_name, params, c.model.layers, c.model.d_model, c.model.context,
                     c.model.batch);
}

// How a launched trainer's net was charged (doc/trainers.md, "What a launched run costs").
std::string TrainerFact(const trial::TrialConfig& c) {
  const trial::LaunchPrices& p = c.prices;
  if (!p.Resolved()) {  // a folder whose trial.json carries no prices
    return c.trainer.kind +
           " (launched per run; the net charges selection core-seconds 1:1 against each run's "
           "charged seconds per step: doc/trainers.md)";
  }
  return fmt::format(
      "{} (launched per run; the net is in dollars: each run's charged seconds at ${:.2f} per "
      "device-hour ({}), selection and forecast core-seconds at ${:.4g} per core-hour ({}): "
      "doc/trainers.md)",
      c.trainer.kind, p.device_hour.usd, p.device_hour.source, p.core_hour.usd, p.core_hour.source);
}

// The lab record's summary, as it holds it ("" when it has none).
std::string LabRecordSummary(const TrialJob& job) {
  const nlohmann::json& summary = JsonAt(job.lab_record, {"summary"});
  return summary.is_string() ? summary.get<std::string>() : std::string();
}

std::string DataTrialText(const TrialJob& job) {
  std::string out = LabRecordSummary(job) + "\n\n";
  out += narrate::TrialNumbersText(
      job.outcome.trial, job.forecast ? "selection and forecast costs" : "selection cost");
  if (job.forecast) {
    const forecast::Prediction& p = job.forecast->outcome.prediction;
    const trial::Saving& s = job.outcome.trial.comparisons.front().saving;
    const nlohmann::json correct = ForecastCorrect(p.verdict, s.net, s.caught_up);
    out += fmt::format(
        "  forecast (made before)     {}, predicted {:+.1f}%: {}\n", p.verdict, 100 * p.saving,
        correct.is_null() ? "an abstention" : (correct.get<bool>() ? "right" : "wrong"));
    const std::string note = forecast::FarSmallerNoteOf(job.forecast->outcome.result);
    if (!note.empty()) out += "  forecast's caution         " + note + "\n";
  }
  if (job.outcome.regime) out += narrate::RegimeNumbersText(*job.outcome.regime);
  return out;
}

std::string ScheduleTrialText(const TrialJob& job) {
  const trial::ScheduleTrialResult& r = *job.outcome.schedule;
  std::string out = LabRecordSummary(job) + "\n\n";
  out += narrate::ScheduleNumbersText(r);
  if (job.outcome.regime) out += narrate::RegimeNumbersText(*job.outcome.regime);
  if (!r.verdict.text.empty()) out += "\n" + r.verdict.text + "\n";
  return out + "\n";
}

}  // namespace

int64_t EvalBytes(const trial::TrialOutcome& o) {
  for (const ledger::InputRecord& in : o.inputs) {
    if (in.role == "target_eval") return static_cast<int64_t>(in.bytes);
  }
  return 0;
}

namespace {

nlohmann::json LabRecordOf(const trial::TrialOutcome& o) {
  const trial::TrialConfig& c = o.config;
  if (o.schedule) {
    narrate::ScheduleQuestion q;
    q.target = TargetName(c, c.target_eval);
    q.data = ScheduleData(c, DataBytes(o));
    q.model = c.model_name;
    q.model_params = o.params;
    q.steps = c.steps;
    q.seeds = c.seeds;
    q.eval_bytes = EvalBytes(o);
    return narrate::BuildScheduleLabRecord(q, *o.schedule);
  }
  narrate::LabQuestion q;
  q.target = TargetName(c, c.target_select);
  q.pool = PoolName(c);
  q.selector = c.selector;
  q.keep = c.IsKeepTrial() ? c.keeps.front() : c.keep;  // the first comparison's arm
  q.whole_pool_baseline = c.IsKeepTrial();
  q.model = c.model_name;
  q.model_params = o.params;
  q.steps = c.steps;
  q.seeds = c.seeds;
  q.pool_bytes = static_cast<int64_t>(PoolBytes(o));
  q.eval_bytes = EvalBytes(o);
  q.launched = !c.trainer.IsBuiltin();
  return narrate::BuildLabRecord(q, o.trial);
}

}  // namespace

Status Narrate(TrialJob& job) {
  if (job.outcome.schedule) {
    job.outcome.schedule->verdict.text = narrate::ScheduleVerdictText(*job.outcome.schedule);
  }
  job.lab_record = LabRecordOf(job.outcome);
  if (job.outcome.regime) narrate::AddRegimeToLabRecord(*job.outcome.regime, job.lab_record);
  return Status::Ok();
}

nlohmann::json TrialResultJson(const TrialJob& job) {
  return trial::OutcomeResultJson(job.outcome, {job.lab_record, ForecastUnderTestJson(job)});
}

nlohmann::json TrialJson(const TrialJob& job) {
  return trial::OutcomeSummaryJson(job.outcome, TrialResultJson(job), job.report_path,
                                   job.receipt_hash);
}

std::string TrialText(const TrialJob& job) {
  if (!job.outcome.leader) return "";  // an MPI rank other than 0: rank 0 prints the summary
  std::string out = job.outcome.schedule ? ScheduleTrialText(job) : DataTrialText(job);
  out += fmt::format("  report                     {}\n  receipt                    {}\n",
                     job.report_path, job.receipt_hash.substr(0, 16));
  return out;
}

Status WriteTrialReport(const TrialJob& job) {
  const trial::TrialOutcome& o = job.outcome;
  const trial::TrialConfig& c = o.config;
  report::ReportData data;
  data.arms = o.arms;
  data.result = o.trial;
  data.lab_record = job.lab_record;
  data.regime = o.regime;
  const std::string budget =
      fmt::format("{} steps x {} seeds per arm{}", c.steps, c.seeds, o.schedule ? " (paired)" : "");
  if (o.schedule) {
    data.title = "schedules on " + TargetName(c, c.target_eval);
    data.facts = {{"model", ModelFact(c, o.params)},
                  {"budget", budget},
                  {"data (both arms)", ScheduleData(c, DataBytes(o))},
                  {"target (eval, held out)", c.target_eval}};
    data.schedule = *o.schedule;
  } else {
    data.title = c.selector + " on " + TargetName(c, c.target_select);
    data.facts = {{"model", ModelFact(c, o.params)},
                  {"budget", budget},
                  {"pool", PoolName(c)},
                  {"target (select)", c.target_select},
                  {"target (eval, held out)", c.target_eval}};
    if (!c.trainer.IsBuiltin()) data.facts.push_back({"trainer", TrainerFact(c)});
    data.forecast = ForecastTestedOf(job);
    PF_ASSIGN_OR_RETURN(data.selection, SelectionOf(job));
  }
  data.provenance = ProvenanceOf(job);
  return WriteFileAtomically(job.report_path, report::RenderTrialReport(data));
}

}  // namespace preflight::app
