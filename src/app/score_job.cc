#include "app/score_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/clock.h"
#include "base/file.h"
#include "base/sha256.h"
#include "ledger/ledger.h"
#include "ledger/writable.h"
#include "report/trial_report.h"
#include "engine/data.h"
#include "trainer/curve_reader.h"
#include "trial/compute_check.h"
#include "trial/ngram_scores.h"
#include "trial/outcome_builder.h"
#include "trial/result_json.h"

namespace preflight::app {
namespace {

constexpr char kNote[] =
    "These runs were made elsewhere: preflight did not make the arms, did not train the runs "
    "and did not check that they differ only in their data; it read the curves given (one per "
    "seed; the i-th of each arm make the i-th per-seed pair) and computed the numbers with the "
    "trial's arithmetic (its interval resamples each arm's seeds independently).";

Status CheckRequest(const ScoreRequest& r) {
  if (r.curated.empty() || r.random.empty()) {
    return Status::InvalidArgument("give --curated CURVE... and --random CURVE... (one per seed)");
  }
  if (r.curated.size() != r.random.size()) {
    return Status::InvalidArgument(fmt::format(
        "{} --curated curves but {} --random curves: give one per seed in each arm, paired by "
        "order",
        r.curated.size(), r.random.size()));
  }
  if (r.out_dir.empty()) return Status::InvalidArgument("--out is required");
  const int data = !r.curated_data.empty() + !r.random_data.empty() + !r.eval_data.empty();
  if (data != 0 && data != 3) {
    return Status::InvalidArgument(
        "the regime check needs --curated-data, --random-data and --eval-data (all three)");
  }
  if (r.selection_core_seconds.has_value() != r.step_seconds.has_value() ||
      (r.random_core_seconds && !r.step_seconds)) {
    return Status::InvalidArgument(
        "the net saving needs the cost stated: --selection-core-seconds X and --step-seconds F "
        "(and optionally --random-core-seconds)");
  }
  if (r.step_seconds && !(*r.step_seconds > 0)) {
    return Status::InvalidArgument("--step-seconds must be positive");
  }
  if (r.eval_tokens < 0 || r.eval_bytes < 0 || r.steps < 0 || r.context < 0) {
    return Status::InvalidArgument(
        "--eval-tokens, --eval-bytes, --steps and --context must be >= 0");
  }
  return Status::Ok();
}

const std::string& EvalTextField(const ScoreRequest& r) {
  return r.eval_text_field.empty() ? r.text_field : r.eval_text_field;
}

// A data file's documents and identity, from one read (its byte tokens are bytes + documents).
struct DataFile {
  std::vector<std::string> texts;
  ledger::InputRecord record;
};

Result<DataFile> ReadData(const std::string& path, const std::string& role,
                          const std::string& text_field) {
  PF_ASSIGN_OR_RETURN(engine::JsonlTexts read, engine::ReadJsonlFile(path, text_field));
  if (read.input.docs == 0) return Status::InvalidArgument(path + ": no documents");
  const corpus::InputSummary& in = read.input;
  return DataFile{std::move(read.texts), {role, path, in.sha256, in.docs, in.text_bytes}};
}

struct ReadCurve {
  trial::Curve curve;
  int64_t tokens_per_step = 0;  // 0 when the file states no tokens
  ledger::InputRecord input;
};

Result<ReadCurve> ReadOne(const ScoreRequest& r, const std::string& path, const std::string& role,
                          const trainer::CurveUnits& units) {
  PF_ASSIGN_OR_RETURN(trainer::CurveFormat format, trainer::ParseCurveFormat(r.curve_format));
  PF_ASSIGN_OR_RETURN(trainer::CurveColumns columns, trainer::ParseCurveColumns(r.curve_columns));
  PF_ASSIGN_OR_RETURN(trainer::RawCurve raw, trainer::ReadRawCurve(path, format, columns));
  PF_ASSIGN_OR_RETURN(std::vector<trainer::EvalPoint> points, trainer::ToEvalCurve(raw, units));
  ReadCurve out;
  for (const trainer::EvalPoint& p : points) {
    out.curve.steps.push_back(p.step);
    out.curve.bpb.push_back(p.eval_bpb);
  }
  if (!raw.points.empty() && raw.points.back().tokens && raw.points.back().step > 0) {
    out.tokens_per_step = *raw.points.back().tokens / raw.points.back().step;
  }
  PF_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  out.input = {role, path, Sha256::Hex(bytes), points.size(), bytes.size()};
  return out;
}

// Every curve read, checked complete at S and against the others (eval steps, tokens per step).
Status ReadCurves(const ScoreRequest& r, const trainer::CurveUnits& units, ScoreJob& job) {
  job.arms = {{{"random", "random", ""}, {}, {}, 0}, {{"curated", "elsewhere", ""}, {}, {}, 0}};
  std::vector<std::pair<size_t, ReadCurve>> read;
  for (size_t a = 0; a < 2; ++a) {
    for (const std::string& file : a == 0 ? r.random : r.curated) {
      PF_ASSIGN_OR_RETURN(ReadCurve c, ReadOne(r, file, "curve_" + job.arms[a].spec.name, units));
      read.emplace_back(a, std::move(c));
    }
  }
  job.result.budget_steps = r.steps;  // else the longest curve's last step: shorter ones are short
  for (const auto& [a, c] : read) {
    if (r.steps == 0 && !c.curve.steps.empty()) {
      job.result.budget_steps = std::max(job.result.budget_steps, c.curve.steps.back());
    }
  }
  std::vector<trial::RunEvalSteps> evals;
  std::vector<trial::RunCompute> compute;
  for (auto& [a, c] : read) {
    std::vector<trainer::EvalPoint> points;
    for (int64_t step : c.curve.steps) points.push_back({step, 0, 0});
    PF_RETURN_IF_ERROR(trainer::CheckCurveComplete(points, job.result.budget_steps, c.input.path));
    evals.push_back({c.input.path, c.curve.steps});
    compute.push_back({c.input.path, 0.0, job.result.budget_steps, c.tokens_per_step});
    job.arms[a].seeds.push_back(job.arms[a].seeds.size() + 1);
    job.arms[a].curves.push_back(std::move(c.curve));
    job.inputs.push_back(std::move(c.input));
  }
  PF_RETURN_IF_ERROR(trial::CheckSameEvalSteps(evals));
  PF_RETURN_IF_ERROR(trial::CheckComputeMatched(compute));
  job.tokens_per_step = compute.front().tokens_per_step;
  return Status::Ok();
}

Status ComputeNumbers(const ScoreRequest& r, ScoreJob& job) {
  job.net_stated = r.step_seconds.has_value();
  trial::TrialInputs in;
  in.arms = job.arms;
  in.arms[0].cost_core_seconds = r.random_core_seconds.value_or(0);
  in.arms[1].cost_core_seconds = r.selection_core_seconds.value_or(0);
  in.baseline = 0;
  in.core_seconds_per_step = r.step_seconds.value_or(1.0);  // unstated: net is not reported
  in.budget_steps = job.result.budget_steps;
  PF_ASSIGN_OR_RETURN(job.result, trial::ComputeTrial(in));
  job.arms = in.arms;
  return Status::Ok();
}

// The regime check on the eval set's documents (read once, with its own field) and each arm's
// (the arms' field), each file read once.
Status CheckRegime(const ScoreRequest& r, const std::optional<DataFile>& eval, ScoreJob& job) {
  if (!eval) return Status::Ok();
  const trial::NgramEvalWindows windows{r.context, r.eval_windows};
  std::map<std::string, trial::NgramScores> arms;
  for (const auto& [name, path] : {std::pair<std::string, std::string>{"random", r.random_data},
                                   {"curated", r.curated_data}}) {
    PF_ASSIGN_OR_RETURN(DataFile data, ReadData(path, name + "_data", r.text_field));
    PF_ASSIGN_OR_RETURN(arms[name], trial::ScoreNgramTexts(data.texts, eval->texts, r.eval_data,
                                                           trial::kDefaultNgramOrder, windows));
    job.inputs.push_back(data.record);
  }
  const trial::NgramScores baseline = arms.at("random");
  job.regime =
      trial::MakeRegime(baseline, std::move(arms), job.result.comparisons.front().saving.l_star);
  job.regime->baseline_arm = "random";
  return Status::Ok();
}

nlohmann::json ConfigJson(const ScoreRequest& r) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nullptr; };
  return {{"curated", r.curated},
          {"random", r.random},
          {"curve_format", r.curve_format},
          {"curve_columns", r.curve_columns},
          {"eval_tokens", r.eval_tokens},
          {"eval_bytes", r.eval_bytes},
          {"steps", r.steps},
          {"selection_core_seconds", opt(r.selection_core_seconds)},
          {"random_core_seconds", opt(r.random_core_seconds)},
          {"step_seconds", opt(r.step_seconds)},
          {"curated_data", r.curated_data},
          {"random_data", r.random_data},
          {"eval_data", r.eval_data},
          {"text_field", r.text_field},
          {"eval_text_field", EvalTextField(r)},
          {"context", r.context},
          {"eval_windows", r.eval_windows},
          {"name", r.name}};
}

Status WriteReport(const ScoreJob& job) {
  report::ReportData data;
  data.title = "runs made elsewhere" + (job.request.name.empty() ? "" : ": " + job.request.name);
  data.arms = job.arms;
  data.result = job.result;
  data.regime = job.regime;
  data.lab_record = nlohmann::json::object();
  data.facts = {{"made by", "elsewhere: preflight did not make the arms or train the runs"},
                {"what preflight did", kNote},
                {"runs", fmt::format("{} per arm (per-seed pairs by order; the interval "
                                     "resamples each arm's seeds independently); {} steps",
                                     job.arms[0].curves.size(), job.result.budget_steps)},
                {"loss unit", job.unit},
                {"net saving", job.net_stated ? "from the stated cost (--selection-core-seconds, "
                                                "--step-seconds)"
                                              : "not stated: the net shown is the gross (no cost "
                                                "charged)"}};
  report::Provenance provenance;
  provenance.receipt = job.receipt_hash;
  for (const ledger::InputRecord& in : job.inputs) {
    provenance.inputs.push_back({in.role, in.path, in.sha256, in.docs, in.bytes});
  }
  data.provenance = provenance;
  return WriteFileAtomically(job.report_path, report::RenderTrialReport(data));
}

// Without a stated cost the net numbers are not the user's: null them.
void HideNet(nlohmann::json& comparison) {
  nlohmann::json& saved = comparison["compute_saved"];
  saved["net"] = nullptr;
  saved["ci95"] = {nullptr, nullptr};
  for (auto& p : saved["per_seed"]) p["net"] = nullptr;
}

}  // namespace

nlohmann::json ScoreResultJson(const ScoreJob& job) {
  nlohmann::json res = trial::TrialResultToJson(job.result);
  if (!job.net_stated) {
    HideNet(res);
    for (auto& c : res["comparisons"]) HideNet(c);
  }
  res["made_by"] = "elsewhere";
  res["note"] = kNote;
  res["net_stated"] = job.net_stated;
  res["unit"] = job.unit;
  res["tokens_per_step"] = job.tokens_per_step;
  trial::AddRegimeAndFolder(job.regime, job.request.out_dir, res);
  return res;
}

nlohmann::json ScoreJson(const ScoreJob& job) {
  nlohmann::json doc = ScoreResultJson(job);
  doc["report"] = job.report_path;
  doc["receipt"] = job.receipt_hash;
  return doc;
}

Result<ScoreJob> RunScoreJob(const ScoreRequest& r) {
  PF_RETURN_IF_ERROR(CheckRequest(r));
  PF_RETURN_IF_ERROR(ledger::CheckAppendable(r.ledger_path));
  // Before any work, as a trial's: an --out that cannot be written is bad usage (exit 2).
  PF_RETURN_IF_ERROR(ledger::CheckWritableFolder(r.out_dir, "--out"));
  CostMeter meter;
  ScoreJob job;
  job.request = r;
  std::optional<DataFile> eval;
  if (!r.eval_data.empty()) {
    PF_ASSIGN_OR_RETURN(eval, ReadData(r.eval_data, "eval_data", EvalTextField(r)));
  }
  trainer::CurveUnits units;
  units.eval_bytes = r.eval_bytes;
  if (units.eval_bytes == 0 && eval)
    units.eval_bytes = static_cast<int64_t>(eval->record.bytes + eval->record.docs);
  job.unit = units.eval_bytes > 0 ? "bits per byte" : "bits per token";
  if (units.eval_bytes == 0) units.eval_bytes = 1;  // losses per token: bits per token
  units.eval_tokens = r.eval_tokens > 0 ? r.eval_tokens : units.eval_bytes;
  PF_RETURN_IF_ERROR(ReadCurves(r, units, job));
  PF_RETURN_IF_ERROR(ComputeNumbers(r, job));
  PF_RETURN_IF_ERROR(CheckRegime(r, eval, job));
  if (eval) job.inputs.push_back(eval->record);
  job.core_seconds = meter.core_seconds();
  PF_RETURN_IF_ERROR(MakeDirectories(r.out_dir));
  job.report_path = JoinPath(r.out_dir, "report.html");
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kScore;
  receipt.inputs = job.inputs;
  receipt.config = ConfigJson(r);
  receipt.result = ScoreResultJson(job);
  receipt.core_seconds = job.core_seconds;
  PF_ASSIGN_OR_RETURN(job.receipt_hash, ledger::AppendReceipt(r.ledger_path, receipt));
  nlohmann::json result = receipt.result;
  result["receipt"] = job.receipt_hash;
  PF_RETURN_IF_ERROR(
      WriteFileAtomically(JoinPath(r.out_dir, "result.json"), result.dump(2) + "\n"));
  PF_RETURN_IF_ERROR(WriteReport(job));
  return job;
}

std::string ScoreText(const ScoreJob& job) {
  const trial::Comparison& c = job.result.comparisons.front();
  auto pct = [](double x) {
    return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : std::string("never caught up");
  };
  std::string out = "score: runs made elsewhere (preflight did not make the arms or train them)\n";
  out += fmt::format("  runs                       {} per arm, {} steps ({})\n",
                     job.arms[0].curves.size(), job.result.budget_steps, job.unit);
  out += fmt::format("  L* (random's best)         {:.4f} at step {:.0f}\n", c.saving.l_star,
                     c.saving.t_baseline);
  out += fmt::format("  compute saved, gross       {}  (95% interval {} to {})\n",
                     pct(c.saving.gross), pct(c.ci.gross.lo), pct(c.ci.gross.hi));
  out += job.net_stated ? fmt::format("  compute saved, net         {}  (95% interval {} to {})\n",
                                      pct(c.saving.net), pct(c.ci.net.lo), pct(c.ci.net.hi))
                        : "  compute saved, net         not stated (give --selection-core-seconds "
                          "and --step-seconds)\n";
  if (job.regime) {
    out += fmt::format("  regime                     margin {:+.3f} bits per byte: {}\n",
                       job.regime->margin,
                       job.regime->informative ? "informative" : "NOT informative");
  }
  out += fmt::format("  report                     {}\n  receipt                    {}\n",
                     job.report_path, job.receipt_hash.substr(0, 16));
  return out;
}

}  // namespace preflight::app
