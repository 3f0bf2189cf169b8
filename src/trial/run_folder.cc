#include "trial/run_folder.h"

#include <fmt/format.h>

#include "base/file.h"
#include "base/json.h"

namespace preflight::trial {
namespace {

nlohmann::json InputsJson(const std::vector<ledger::InputRecord>& inputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& input : inputs) out.push_back(ledger::InputJson(input));
  return out;
}

Result<ledger::InputRecord> InputFromJson(const JsonReader& r) {
  ledger::InputRecord in;
  PF_ASSIGN_OR_RETURN(in.role, r.String("role"));
  PF_ASSIGN_OR_RETURN(in.path, r.String("path"));
  PF_ASSIGN_OR_RETURN(in.sha256, r.String("sha256"));
  PF_ASSIGN_OR_RETURN(int64_t docs, r.Int("docs"));
  PF_ASSIGN_OR_RETURN(int64_t bytes, r.Int("bytes"));
  in.docs = static_cast<uint64_t>(docs);
  in.bytes = static_cast<uint64_t>(bytes);
  return in;
}

Result<uint64_t> Count(const JsonReader& r, std::string_view key) {
  PF_ASSIGN_OR_RETURN(int64_t v, r.Int(key));
  if (v < 0) return r.Error(fmt::format("\"{}\" is negative", key));
  return static_cast<uint64_t>(v);
}

Result<ArmRecord> ArmFromJson(const JsonReader& r) {
  ArmRecord a;
  PF_ASSIGN_OR_RETURN(a.data_kind, r.String("data_kind"));
  PF_ASSIGN_OR_RETURN(a.schedule, r.String("schedule"));
  PF_ASSIGN_OR_RETURN(a.kept_docs, Count(r, "kept_docs"));
  PF_ASSIGN_OR_RETURN(a.kept_bytes, Count(r, "kept_bytes"));
  PF_ASSIGN_OR_RETURN(a.budget_bytes, Count(r, "budget_bytes"));
  PF_ASSIGN_OR_RETURN(a.pool_docs, Count(r, "pool_docs"));
  PF_ASSIGN_OR_RETURN(a.pool_bytes, Count(r, "pool_bytes"));
  PF_ASSIGN_OR_RETURN(a.selection_core_seconds, r.Number("selection_core_seconds"));
  PF_ASSIGN_OR_RETURN(a.output_sha256, r.String("output_sha256"));
  PF_ASSIGN_OR_RETURN(JsonReader inputs, r.Field("inputs"));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> items, inputs.Elements());
  for (const JsonReader& item : items) {
    PF_ASSIGN_OR_RETURN(ledger::InputRecord in, InputFromJson(item));
    a.inputs.push_back(std::move(in));
  }
  if (r.Has("ngram")) {  // optional: folders from before the regime check have none
    PF_ASSIGN_OR_RETURN(JsonReader ngram, r.Field("ngram"));
    PF_ASSIGN_OR_RETURN(a.ngram, NgramScoresFromJson(ngram));
  }
  if (r.Has("eval_copies")) {  // optional: folders from before it was counted have none
    PF_ASSIGN_OR_RETURN(a.eval_copies, Count(r, "eval_copies"));
  }
  return a;
}

Result<RunPoint> PointFromJson(const JsonReader& r) {
  RunPoint p;
  PF_ASSIGN_OR_RETURN(p.step, r.Int("step"));
  PF_ASSIGN_OR_RETURN(p.eval_bpb, r.Number("eval_bpb"));
  PF_ASSIGN_OR_RETURN(p.flops, r.Number("flops"));
  PF_ASSIGN_OR_RETURN(p.train_seconds, r.Number("train_seconds"));
  PF_ASSIGN_OR_RETURN(p.core_seconds, r.Number("core_seconds"));
  if (r.Has("tokens")) {
    PF_ASSIGN_OR_RETURN(p.tokens, r.Int("tokens"));
  }
  return p;
}

Status ReadRunCompute(const JsonReader& r, RunRecord& run) {
  PF_ASSIGN_OR_RETURN(run.flops_per_step, r.Number("flops_per_step"));
  PF_ASSIGN_OR_RETURN(run.tokens_per_step, r.Int("tokens_per_step"));
  PF_ASSIGN_OR_RETURN(run.steps, r.Int("steps"));
  PF_ASSIGN_OR_RETURN(run.params, r.Int("params"));
  PF_ASSIGN_OR_RETURN(run.core_seconds, r.Number("core_seconds"));
  PF_ASSIGN_OR_RETURN(run.train_seconds, r.Number("train_seconds"));
  PF_ASSIGN_OR_RETURN(run.tokens_per_second, r.Number("tokens_per_second"));
  PF_ASSIGN_OR_RETURN(run.schedule, r.String("schedule"));
  PF_ASSIGN_OR_RETURN(run.flops, r.Number("flops"));
  PF_ASSIGN_OR_RETURN(run.frozen_flops_per_step, r.Number("frozen_flops_per_step"));
  PF_ASSIGN_OR_RETURN(run.frozen_at, r.Int("frozen_at"));
  PF_ASSIGN_OR_RETURN(run.stopped_early, r.Bool("stopped_early"));
  PF_ASSIGN_OR_RETURN(run.train_core_seconds, r.Number("train_core_seconds"));
  PF_ASSIGN_OR_RETURN(JsonReader trigger, r.Field("trigger"));
  PF_ASSIGN_OR_RETURN(run.trigger_flops, trigger.Number("flops"));
  PF_ASSIGN_OR_RETURN(run.trigger_core_seconds, trigger.Number("core_seconds"));
  PF_ASSIGN_OR_RETURN(run.trigger_seconds, trigger.Number("seconds"));
  PF_ASSIGN_OR_RETURN(run.trigger_checks, trigger.Int("checks"));
  return Status::Ok();
}

nlohmann::json LaunchJson(const trainer::LaunchFacts& l) {
  return {{"trainer", l.trainer},
          {"attempts", l.attempts},
          {"exit_code", l.exit_code},
          {"wall_seconds", l.wall_seconds},
          {"cpu_seconds", l.cpu_seconds},
          {"charged_seconds", l.charged_seconds},
          {"charged_source", l.charged_source},
          {"tokens_source", l.tokens_source},
          {"flops_source", l.flops_source},
          {"params_source", l.params_source},
          {"stated", l.stated}};
}

Result<trainer::LaunchFacts> LaunchFromJson(const JsonReader& r) {
  trainer::LaunchFacts l;
  PF_ASSIGN_OR_RETURN(l.trainer, r.String("trainer"));
  PF_ASSIGN_OR_RETURN(int64_t attempts, r.Int("attempts"));
  PF_ASSIGN_OR_RETURN(int64_t exit_code, r.Int("exit_code"));
  l.attempts = static_cast<int>(attempts);
  l.exit_code = static_cast<int>(exit_code);
  PF_ASSIGN_OR_RETURN(l.wall_seconds, r.Number("wall_seconds"));
  PF_ASSIGN_OR_RETURN(l.cpu_seconds, r.Number("cpu_seconds"));
  PF_ASSIGN_OR_RETURN(l.charged_seconds, r.Number("charged_seconds"));
  PF_ASSIGN_OR_RETURN(l.charged_source, r.String("charged_source"));
  PF_ASSIGN_OR_RETURN(l.tokens_source, r.String("tokens_source"));
  PF_ASSIGN_OR_RETURN(l.flops_source, r.String("flops_source"));
  PF_ASSIGN_OR_RETURN(l.params_source, r.String("params_source"));
  PF_ASSIGN_OR_RETURN(JsonReader stated, r.Field("stated"));
  l.stated = stated.node();
  return l;
}

Result<RunRecord> RunFromReader(const JsonReader& r) {
  RunRecord run;
  PF_ASSIGN_OR_RETURN(run.arm, r.String("arm"));
  PF_ASSIGN_OR_RETURN(int64_t seed, r.Int("seed"));
  run.seed = static_cast<int>(seed);
  PF_ASSIGN_OR_RETURN(JsonReader curve, r.Field("curve"));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> points, curve.Elements());
  if (points.empty()) return curve.Error("a run's curve has no eval point");
  for (const JsonReader& point : points) {
    PF_ASSIGN_OR_RETURN(RunPoint p, PointFromJson(point));
    run.curve.push_back(p);
  }
  PF_RETURN_IF_ERROR(ReadRunCompute(r, run));
  if (r.Has("launch")) {
    PF_ASSIGN_OR_RETURN(JsonReader launch, r.Field("launch"));
    PF_ASSIGN_OR_RETURN(run.launch, LaunchFromJson(launch));
  }
  return run;
}

}  // namespace

std::string RunKey(const std::string& arm, int seed) { return arm + "-s" + std::to_string(seed); }

nlohmann::json ToJson(const ArmRecord& a) {
  nlohmann::json j = {
      {"data_kind", a.data_kind},         {"schedule", a.schedule},
      {"kept_docs", a.kept_docs},         {"kept_bytes", a.kept_bytes},
      {"budget_bytes", a.budget_bytes},   {"pool_docs", a.pool_docs},
      {"pool_bytes", a.pool_bytes},       {"selection_core_seconds", a.selection_core_seconds},
      {"output_sha256", a.output_sha256}, {"inputs", InputsJson(a.inputs)}};
  if (a.ngram) j["ngram"] = NgramScoresToJson(*a.ngram);
  if (a.eval_copies) j["eval_copies"] = *a.eval_copies;
  return j;
}

nlohmann::json ToJson(const RunRecord& r) {
  nlohmann::json curve = nlohmann::json::array();
  for (const RunPoint& p : r.curve) {
    curve.push_back({{"step", p.step},
                     {"eval_bpb", p.eval_bpb},
                     {"flops", p.flops},
                     {"train_seconds", p.train_seconds},
                     {"core_seconds", p.core_seconds}});
    if (r.launch) curve.back()["tokens"] = p.tokens;
  }
  nlohmann::json j = {{"arm", r.arm},
                      {"seed", r.seed},
                      {"curve", curve},
                      {"flops_per_step", r.flops_per_step},
                      {"tokens_per_step", r.tokens_per_step},
                      {"steps", r.steps},
                      {"params", r.params},
                      {"core_seconds", r.core_seconds},
                      {"train_seconds", r.train_seconds},
                      {"tokens_per_second", r.tokens_per_second},
                      {"schedule", r.schedule},
                      {"flops", r.flops},
                      {"frozen_flops_per_step", r.frozen_flops_per_step},
                      {"frozen_at", r.frozen_at},
                      {"stopped_early", r.stopped_early},
                      {"train_core_seconds", r.train_core_seconds},
                      {"trigger",
                       {{"flops", r.trigger_flops},
                        {"core_seconds", r.trigger_core_seconds},
                        {"seconds", r.trigger_seconds},
                        {"checks", r.trigger_checks}}}};
  if (r.launch) j["launch"] = LaunchJson(*r.launch);
  return j;
}

nlohmann::json ToJson(const RunFolderManifest& m) {
  nlohmann::json arms = nlohmann::json::object(), runs = nlohmann::json::object();
  for (const auto& [name, arm] : m.arms) arms[name] = ToJson(arm);
  for (const auto& [key, run] : m.runs) runs[key] = ToJson(run);
  nlohmann::json j = {{"version", m.version},
                      {"config", m.config},
                      {"arms", arms},
                      {"runs", runs},
                      {"forecast_core_seconds", m.forecast_core_seconds},
                      {"done", m.done}};
  if (m.prices.Resolved()) j["prices"] = LaunchPricesToJson(m.prices);
  return j;
}

Result<RunRecord> RunRecordFromJson(const nlohmann::json& json, const std::string& file) {
  return RunFromReader(JsonReader(json, file));
}

Result<RunFolderManifest> ManifestFromJson(const nlohmann::json& json, const std::string& file) {
  JsonReader r(json, file);
  RunFolderManifest m;
  PF_ASSIGN_OR_RETURN(int64_t version, r.Int("version"));
  if (version != kRunFolderVersion) {
    return r.Error(fmt::format(
        "run folder format version {} (this preflight reads version {}); use a new --out folder",
        version, kRunFolderVersion));
  }
  PF_ASSIGN_OR_RETURN(JsonReader config, r.Field("config"));
  if (!config.node().is_object()) return config.Error("expected an object");
  m.config = config.node();
  PF_ASSIGN_OR_RETURN(JsonReader arms, r.Field("arms"));
  if (!arms.node().is_object()) return arms.Error("expected an object");
  for (const auto& [name, value] : arms.node().items()) {
    PF_ASSIGN_OR_RETURN(JsonReader arm, arms.Field(name));
    PF_ASSIGN_OR_RETURN(m.arms[name], ArmFromJson(arm));
  }
  PF_ASSIGN_OR_RETURN(JsonReader runs, r.Field("runs"));
  if (!runs.node().is_object()) return runs.Error("expected an object");
  for (const auto& [key, value] : runs.node().items()) {
    PF_ASSIGN_OR_RETURN(JsonReader run, runs.Field(key));
    PF_ASSIGN_OR_RETURN(m.runs[key], RunFromReader(run));
  }
  PF_ASSIGN_OR_RETURN(m.forecast_core_seconds, r.Number("forecast_core_seconds"));
  if (r.Has("prices")) {
    PF_ASSIGN_OR_RETURN(JsonReader prices, r.Field("prices"));
    PF_ASSIGN_OR_RETURN(m.prices, LaunchPricesFromJson(prices));
  }
  PF_ASSIGN_OR_RETURN(m.done, r.Bool("done"));
  return m;
}

RunFolder::RunFolder(std::string dir) : dir_(std::move(dir)) {}

std::string RunFolder::manifest_path() const { return JoinPath(dir_, "trial.json"); }
std::string RunFolder::ArmPath(const std::string& arm) const {
  return JoinPath(dir_, "arms/" + arm + ".jsonl");
}
std::string RunFolder::RunDir(const std::string& arm, int seed) const {
  return JoinPath(dir_, "runs/" + RunKey(arm, seed));
}
std::string RunFolder::ResultPath() const { return JoinPath(dir_, "result.json"); }
std::string RunFolder::ReportPath() const { return JoinPath(dir_, "report.html"); }

Result<RunFolderManifest> RunFolder::Read() const {
  PF_ASSIGN_OR_RETURN(nlohmann::json json, ReadJsonFile(manifest_path()));
  return ManifestFromJson(json, manifest_path());
}

Status RunFolder::Check(const nlohmann::json& config) const {
  if (!PathExists(manifest_path())) return Status::Ok();
  PF_ASSIGN_OR_RETURN(RunFolderManifest held, Read());
  // The forecast under test changes the accounting, not the arms or the runs.
  nlohmann::json had = held.config, wanted = config;
  had.erase("forecast");
  wanted.erase("forecast");
  if (had == wanted) return Status::Ok();
  std::string diff;
  for (auto& [key, value] : wanted.items()) {
    if (!had.contains(key) || had[key] != value) diff += (diff.empty() ? "" : ", ") + key;
  }
  for (auto& [key, value] : had.items()) {
    if (!wanted.contains(key)) diff += (diff.empty() ? "" : ", ") + key;
  }
  return Status::InvalidArgument(manifest_path() + ": this folder holds a different trial (" +
                                 diff + " differ); use a new --out folder or the same flags");
}

Status RunFolder::Open(const nlohmann::json& config) {
  PF_RETURN_IF_ERROR(Check(config));
  if (PathExists(manifest_path())) {
    PF_ASSIGN_OR_RETURN(manifest_, Read());
  } else {
    manifest_ = RunFolderManifest();
  }
  manifest_.config = config;
  return Status::Ok();
}

Status RunFolder::Save() const {
  PF_RETURN_IF_ERROR(MakeDirectories(dir_));
  return WriteFileAtomically(manifest_path(), ToJson(manifest_).dump(2) + "\n");
}

}  // namespace preflight::trial
