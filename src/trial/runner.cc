#include "trial/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/clock.h"
#include "base/file.h"
#include "base/sha256.h"
#include "corpus/scanner.h"
#include "narrate/lab_record.h"
#include "narrate/schedule_record.h"
#include "select/selector.h"
#include "train/schedule.h"
#include "train/trainer.h"
#include "trial/result_json.h"

namespace preflight::trial {
namespace {

constexpr int kManifestVersion = 1;

std::string ArmFile(const TrialConfig& c, const std::string& arm) {
  return JoinPath(c.out_dir, "arms/" + arm + ".jsonl");
}
std::string RunDir(const TrialConfig& c, const std::string& arm, int seed) {
  return JoinPath(c.out_dir, "runs/" + arm + "-s" + std::to_string(seed));
}

bool IsScheduleTrial(const TrialConfig& c) { return !c.schedules.empty(); }

// A schedule trial's arms all train on one data file, made once under this name.
constexpr char kScheduleDataArm[] = "data";

std::string ScheduleDataKind(const TrialConfig& c) {
  if (c.schedule_data == "curated") return c.selector;
  return c.schedule_data;  // "random" or "pool"
}

// A file-name-safe arm name for a schedule: "freeze:blocks=0-1@0.7" -> "freeze-blocks-0-1-at-0.7".
std::string ScheduleArmName(const std::string& schedule) {
  std::string out;
  for (char ch : schedule) {
    if (ch == '@') {
      out += "-at-";
    } else if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_') {
      out += ch;
    } else if (out.empty() || out.back() != '-') {
      out += '-';
    }
  }
  return out;
}

std::vector<ArmSpec> ArmSpecs(const TrialConfig& c) {
  if (IsScheduleTrial(c)) {
    std::vector<ArmSpec> arms = {{"baseline", ScheduleDataKind(c), ""}};
    for (const std::string& s : c.schedules) {
      arms.push_back({ScheduleArmName(s), ScheduleDataKind(c), s});
    }
    return arms;
  }
  std::vector<ArmSpec> arms = {{"random", "random", ""}, {"curated", c.selector, ""}};
  if (c.baseline == "first") arms.push_back({"first", "first", ""});
  return arms;
}

Status Validate(const TrialConfig& c) {
  if (c.pool.empty()) return Status::InvalidArgument("--pool is required");
  if (c.target_select.empty()) return Status::InvalidArgument("--target-select is required");
  if (c.target_eval.empty()) return Status::InvalidArgument("--target-eval is required");
  if (c.out_dir.empty()) return Status::InvalidArgument("--out is required");
  if (IsScheduleTrial(c)) {
    if (c.schedule_data != "random" && c.schedule_data != "curated" && c.schedule_data != "pool") {
      return Status::InvalidArgument("--data must be random, curated or pool, not '" +
                                     c.schedule_data + "'");
    }
    if (c.schedule_data == "pool" && c.pool.size() != 1) {
      return Status::InvalidArgument(
          "--data pool trains on the pool file as it is: give one "
          "--pool file (or use --data random)");
    }
    if (c.schedule_data == "curated" && (c.selector == "random" || c.selector == "first")) {
      return Status::InvalidArgument("--data curated needs a selector (dsir or classifier)");
    }
    if (!c.baseline.empty()) {
      return Status::InvalidArgument("--baseline first is for data trials, not schedule trials");
    }
    std::vector<std::string> names;
    for (const std::string& spec : c.schedules) {
      PF_ASSIGN_OR_RETURN(train::Schedule s, train::ParseSchedule(spec, c.model.layers));
      if (s.empty()) return Status::InvalidArgument("a schedule arm needs a schedule, not 'none'");
      if (s.ToString() != spec) {
        return Status::InvalidArgument("schedule '" + spec + "' is not in canonical form; write '" +
                                       s.ToString() + "'");
      }
      const std::string name = ScheduleArmName(spec);
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        return Status::InvalidArgument("schedule '" + spec + "' is given twice");
      }
      names.push_back(name);
    }
  } else if (c.selector == "random") {
    return Status::InvalidArgument(
        "--selector random would compare random data with itself; choose dsir, "
        "classifier or first");
  }
  if (c.baseline != "" && c.baseline != "first") {
    return Status::InvalidArgument("--baseline must be 'first' (or absent), not '" + c.baseline +
                                   "'");
  }
  if (c.seeds < 1) return Status::InvalidArgument("--seeds must be at least 1");
  if (c.steps < 1) return Status::InvalidArgument("--steps must be at least 1");
  if (!(c.keep > 0 && c.keep <= 1)) return Status::InvalidArgument("--keep must be in (0, 1]");
  return train::ValidateModel(c.model);
}

// The held-out file's identity for the receipt (it is read only by the runs' evaluation).
Result<nlohmann::json> DescribeInput(const std::string& path, const std::string& role) {
  corpus::ReadOptions read;
  PF_ASSIGN_OR_RETURN(
      corpus::ScanSummary s,
      corpus::ScanDocuments({path}, read, [](int, const corpus::Record&, std::string_view) {}));
  return nlohmann::json{{"role", role},
                        {"path", path},
                        {"sha256", s.inputs[0].sha256},
                        {"docs", s.docs},
                        {"bytes", s.text_bytes}};
}

class Manifest {
 public:
  explicit Manifest(std::string path) : path_(std::move(path)) {}

  Status Load(const nlohmann::json& config) {
    if (!PathExists(path_)) {
      doc_ = {{"version", kManifestVersion},
              {"config", config},
              {"arms", nlohmann::json::object()},
              {"runs", nlohmann::json::object()},
              {"done", false}};
      return Save();
    }
    PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path_));
    doc_ = nlohmann::json::parse(text, nullptr, false);
    if (doc_.is_discarded() || !doc_.is_object() || !doc_.contains("config")) {
      return Status::Corruption(path_ + ": not a trial manifest; use a new --out folder");
    }
    // The forecast under test changes the accounting, not the arms or the runs: a trial rerun
    // to test a new forecast reuses them, and records the new forecast.
    nlohmann::json held = doc_["config"], wanted = config;
    held.erase("forecast");
    wanted.erase("forecast");
    if (held != wanted) {
      std::string diff;
      for (auto& [k, v] : wanted.items()) {
        if (!held.contains(k) || held[k] != v) diff += (diff.empty() ? "" : ", ") + k;
      }
      return Status::InvalidArgument(path_ + ": this folder holds a different trial (" + diff +
                                     " differ); use a new --out folder or the same flags");
    }
    doc_["config"] = config;
    return Status::Ok();
  }
  // For a process that only reads the manifest the leader wrote (RunExecutor).
  Status LoadExisting(const nlohmann::json& config) {
    if (!PathExists(path_)) return Status::NotFound(path_ + ": the leader wrote no trial manifest");
    return Load(config);
  }
  Status Save() { return WriteFileAtomically(path_, doc_.dump(2) + "\n"); }
  nlohmann::json& doc() { return doc_; }

 private:
  std::string path_;
  nlohmann::json doc_;
};

Curve CurveFromJson(const nlohmann::json& j) {
  Curve c;
  for (const auto& p : j) {
    c.steps.push_back(p["step"].get<int64_t>());
    c.bpb.push_back(p["eval_bpb"].get<double>());
  }
  return c;
}

nlohmann::json CurveToJson(const std::vector<train::EvalPoint>& curve) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : curve) out.push_back({{"step", p.step}, {"eval_bpb", p.eval_bpb}});
  return out;
}

train::TrainOptions RunOptions(const TrialConfig& c, const ArmSpec& arm, int seed) {
  train::TrainOptions t;
  t.model = c.model;
  t.data_path = !IsScheduleTrial(c)         ? ArmFile(c, arm.name)
                : c.schedule_data == "pool" ? c.pool[0]
                                            : ArmFile(c, kScheduleDataArm);
  t.schedule = arm.schedule;
  t.eval_path = c.target_eval;
  t.run_dir = RunDir(c, arm.name, seed);
  t.steps = c.steps;
  t.seed = static_cast<uint64_t>(seed);
  t.eval_every = c.eval_every;
  t.eval_max_windows = c.eval_max_windows;
  t.threads = c.threads;
  t.lr = c.lr;
  return t;
}

// Makes (or finds, from an earlier invocation) every arm's data.
Status MakeArms(const TrialConfig& c, const std::vector<ArmSpec>& specs, int total_runs,
                Manifest& manifest, const std::function<void(const TrialProgress&)>& progress) {
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(c.out_dir, "arms")));
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(c.out_dir, "runs")));
  PF_RETURN_IF_ERROR(manifest.Load(c.ToJson()));
  nlohmann::json& m = manifest.doc();
  std::vector<ArmSpec> to_make = specs;
  if (IsScheduleTrial(c)) {
    to_make = {{kScheduleDataArm, ScheduleDataKind(c), ""}};
    if (c.schedule_data == "pool") {
      if (m["arms"].contains(kScheduleDataArm)) return Status::Ok();
      PF_ASSIGN_OR_RETURN(nlohmann::json pool, DescribeInput(c.pool[0], "pool"));
      m["arms"][kScheduleDataArm] = {
          {"done", true},
          {"data_kind", "pool"},
          {"kept_docs", pool["docs"]},
          {"kept_bytes", pool["bytes"]},
          {"budget_bytes", pool["bytes"]},
          {"pool_docs", pool["docs"]},
          {"pool_bytes", pool["bytes"]},
          {"selection_core_seconds", 0.0},
          {"output_sha256", pool["sha256"]},
          {"inputs", {{"pool", {pool}}, {"target", nlohmann::json::array()}}}};
      return manifest.Save();
    }
  }
  for (const ArmSpec& spec : to_make) {
    if (m["arms"].contains(spec.name) && m["arms"][spec.name].value("done", false) &&
        PathExists(ArmFile(c, spec.name))) {
      continue;
    }
    if (progress)
      progress({"select " + spec.name + " (" + spec.data_kind + ")", 0, 0, 0, total_runs});
    select::SelectOptions o;
    o.selector = spec.data_kind;
    o.keep = c.keep;
    o.seed = c.selection_seed;
    o.threads = c.threads;
    o.out_path = ArmFile(c, spec.name);
    PF_ASSIGN_OR_RETURN(select::SelectionResult s,
                        select::RunSelection(c.pool, {c.target_select}, o));
    m["arms"][spec.name] = {{"done", true},
                            {"data_kind", spec.data_kind},
                            {"schedule", spec.schedule},
                            {"kept_docs", s.kept_docs},
                            {"kept_bytes", s.kept_bytes},
                            {"budget_bytes", s.budget_bytes},
                            {"pool_docs", s.pool_docs},
                            {"pool_bytes", s.pool_bytes},
                            {"selection_core_seconds", s.core_seconds},
                            {"output_sha256", s.manifest["output"]["sha256"]},
                            {"inputs", s.manifest["inputs"]}};
    PF_RETURN_IF_ERROR(manifest.Save());
  }
  return Status::Ok();
}

// "tiny (120640 parameters, 2 layers, d_model 64, context 64, batch 16)", for the report.
std::string ModelFact(const TrialConfig& c, int64_t params) {
  return c.model_name + " (" + std::to_string(params) + " parameters, " +
         std::to_string(c.model.layers) + " layers, d_model " + std::to_string(c.model.d_model) +
         ", context " + std::to_string(c.model.context) + ", batch " +
         std::to_string(c.model.batch) + ")";
}

}  // namespace

nlohmann::json TrialConfig::ToJson() const {
  nlohmann::json j = {{"pool", pool},
                      {"target_select", target_select},
                      {"target_eval", target_eval},
                      {"target_name", target_name},
                      {"selector", selector},
                      {"keep", keep},
                      {"selection_seed", selection_seed},
                      {"baseline", baseline},
                      {"seeds", seeds},
                      {"model", train::ModelToJson(model_name, model)},
                      {"steps", steps},
                      {"eval_every", eval_every},
                      {"eval_max_windows", eval_max_windows},
                      {"lr", lr},
                      {"threads", threads},
                      {"forecast", forecast_hash}};
  // Schedule trials add their keys; data trials' fingerprints stay as they were.
  if (!schedules.empty()) {
    j["schedules"] = schedules;
    j["schedule_data"] = schedule_data;
  }
  return j;
}

Result<double> EstimateTrialSeconds(const TrialConfig& c) {
  PF_RETURN_IF_ERROR(Validate(c));
  // Three steps on synthetic text time one step of this model on this machine.
  std::string doc;
  for (int i = 0; doc.size() < static_cast<size_t>(c.model.context) * c.model.batch * 4; ++i) {
    doc += "calibration text number " + std::to_string(i * 7919 % 1000) + ". ";
  }
  train::TrainOptions t;
  t.model = c.model;
  t.steps = 4;
  t.eval_every = 1000;
  t.eval_max_windows = 1;
  t.threads = c.threads;
  double start = WallSeconds();
  double first_step_done = 0;
  auto r = train::TrainOnDocuments(t, {doc}, {doc}, [&](const train::StepInfo& info) {
    if (info.step == 1 && std::isnan(info.eval_bpb) && first_step_done == 0)
      first_step_done = WallSeconds();
  });
  PF_RETURN_IF_ERROR(r.status());
  double per_step = (WallSeconds() - (first_step_done > 0 ? first_step_done : start)) / 3.0;
  const int arms = static_cast<int>(ArmSpecs(c).size());
  // Evals cost about a forward pass per eval window; selections a few seconds each.
  return per_step * static_cast<double>(c.steps) * arms * c.seeds * 1.15 + 5.0 * arms;
}

// The schedule trial's numbers, lab record and receipt parts, from the finished runs.
static Result<TrialOutcome> FinishScheduleTrial(const TrialConfig& c,
                                                const std::vector<ArmSpec>& specs,
                                                Manifest& manifest, TrialOutcome outcome) {
  nlohmann::json& m = manifest.doc();
  std::vector<ScheduleRunCompute> compute;
  ScheduleTrialInputs in;
  double run_core_seconds = 0, flops = 0;
  for (size_t a = 0; a < specs.size(); ++a) {
    ScheduleArm arm;
    Arm view;
    arm.spec = view.spec = specs[a];
    for (int seed = 1; seed <= c.seeds; ++seed) {
      const std::string key = specs[a].name + "-s" + std::to_string(seed);
      const nlohmann::json& run = m["runs"][key];
      if (!run.contains("curve_compute")) {
        return Status::InvalidArgument(JoinPath(c.out_dir, "trial.json") + ": run " + key +
                                       " has no compute columns; use a new --out folder");
      }
      ScheduleRun r;
      r.seed = static_cast<uint64_t>(seed);
      r.curve = CurveFromJson(run["curve"]);
      for (const auto& p : run["curve_compute"]) {
        r.flops.push_back(p["flops"].get<double>());
        r.core_seconds.push_back(p["core_seconds"].get<double>());
        r.train_seconds.push_back(p["train_seconds"].get<double>());
      }
      r.steps = run["steps"].get<int64_t>();
      r.frozen_at = run["frozen_at"].get<int64_t>();
      r.stopped_early = run["stopped_early"].get<bool>();
      r.trigger_flops = run["trigger"]["flops"].get<double>();
      r.trigger_core_seconds = run["trigger"]["core_seconds"].get<double>();
      r.trigger_seconds = run["trigger"]["seconds"].get<double>();
      compute.push_back({specs[a].name + "/seed-" + std::to_string(seed), a == 0,
                         run["flops_per_step"].get<double>(), run["tokens_per_step"].get<int64_t>(),
                         r.steps, run["flops"].get<double>()});
      run_core_seconds += run["core_seconds"].get<double>();
      flops += run["flops"].get<double>();
      view.seeds.push_back(r.seed);
      view.curves.push_back(r.curve);
      arm.runs.push_back(std::move(r));
    }
    in.arms.push_back(std::move(arm));
    outcome.arms.push_back(std::move(view));
  }
  in.baseline = 0;
  in.budget_steps = c.steps;
  PF_RETURN_IF_ERROR(CheckScheduleCompute(compute, c.steps));
  PF_ASSIGN_OR_RETURN(ScheduleTrialResult result, ComputeScheduleTrial(in));
  result.verdict.text = narrate::ScheduleVerdictText(result);

  const nlohmann::json& data = m["arms"][kScheduleDataArm];
  const double mb = data["kept_bytes"].get<double>() / 1e6;
  narrate::ScheduleQuestion q;
  q.target = c.target_name.empty() ? c.target_eval : c.target_name;
  q.data = c.schedule_data == "pool"
               ? fmt::format("the whole pool ({:.1f} MB)", mb)
               : fmt::format(
                     "{} {:g}% of the pool ({:.1f} MB)",
                     c.schedule_data == "random" ? "a random" : "the " + c.selector + "-selected",
                     c.keep * 100, mb);
  q.model = c.model_name;
  q.model_params = train::ParamCount(c.model);
  q.steps = c.steps;
  q.seeds = c.seeds;
  PF_ASSIGN_OR_RETURN(nlohmann::json eval_input, DescribeInput(c.target_eval, "target_eval"));
  q.eval_bytes = eval_input["bytes"].get<int64_t>();
  outcome.lab_record = narrate::BuildScheduleLabRecord(q, result);

  nlohmann::json res = ScheduleTrialResultToJson(result);
  res["lab_record"] = outcome.lab_record;
  res["arm_data"] = {{kScheduleDataArm,
                      {{"data_kind", data["data_kind"]},
                       {"kept_docs", data["kept_docs"]},
                       {"kept_bytes", data["kept_bytes"]},
                       {"output_sha256", data["output_sha256"]},
                       {"selection_core_seconds", data["selection_core_seconds"]}}}};
  nlohmann::json runs_json = nlohmann::json::array();
  for (const auto& rc : compute) {
    runs_json.push_back({{"run", rc.run},
                         {"flops_per_step", rc.flops_per_step},
                         {"steps", rc.steps},
                         {"tokens_per_step", rc.tokens_per_step},
                         {"flops", rc.flops}});
  }
  res["compute"] = {{"matched", true},
                    {"rule", "same model, data and step budget; a schedule may spend less"},
                    {"runs", runs_json},
                    {"flops_per_step", compute.front().flops_per_step}};
  res["model"] = train::ModelToJson(c.model_name, c.model);
  res["model"]["params"] = q.model_params;
  outcome.result = res;
  outcome.core_seconds = run_core_seconds + data["selection_core_seconds"].get<double>();
  outcome.flops = flops;

  nlohmann::json inputs = select::ReceiptInputs(data.value("inputs", nlohmann::json::object()));
  inputs.push_back(eval_input);
  outcome.inputs = inputs;

  outcome.schedule = std::move(result);
  outcome.facts = {{"model", ModelFact(c, q.model_params)},
                   {"budget", std::to_string(c.steps) + " steps x " + std::to_string(c.seeds) +
                                  " seeds per arm (paired)"},
                   {"data (both arms)", q.data},
                   {"target (eval, held out)", c.target_eval}};
  outcome.title = "schedules on " + q.target;
  outcome.report_path = JoinPath(c.out_dir, "report.html");
  PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(c.out_dir, "result.json"), res.dump(2) + "\n"));
  m["done"] = true;
  PF_RETURN_IF_ERROR(manifest.Save());
  return outcome;
}

Result<TrialOutcome> RunTrial(const TrialConfig& c,
                              const std::function<void(const TrialProgress&)>& progress,
                              RunExecutor* executor) {
  RunExecutor in_process;
  if (executor == nullptr) executor = &in_process;
  PF_RETURN_IF_ERROR(Validate(c));
  Manifest manifest(JoinPath(c.out_dir, "trial.json"));
  TrialOutcome outcome;
  const std::vector<ArmSpec> specs = ArmSpecs(c);
  const int total_runs = static_cast<int>(specs.size()) * c.seeds;

  // 1. The arms' data, made by the leader; the other processes read its manifest.
  if (executor->IsLeader()) {
    PF_RETURN_IF_ERROR(executor->AfterArms(MakeArms(c, specs, total_runs, manifest, progress)));
  } else {
    PF_RETURN_IF_ERROR(executor->AfterArms(Status::Ok()));
    PF_RETURN_IF_ERROR(manifest.LoadExisting(c.ToJson()));
  }
  nlohmann::json& m = manifest.doc();

  // 2. The runs: seeds 1..S per arm, paired by seed across arms.
  struct Task {
    const ArmSpec* spec;
    int seed;
    int number;  // 1-based, of all runs
    std::string key;
  };
  std::vector<Task> tasks;
  int run_number = 0;
  auto add_task = [&](const ArmSpec& spec, int seed) {
    ++run_number;
    std::string key = spec.name + "-s" + std::to_string(seed);
    if (m["runs"].contains(key) && m["runs"][key].value("done", false)) {
      ++outcome.reused_runs;
      return;
    }
    tasks.push_back({&spec, seed, run_number, key});
  };
  if (IsScheduleTrial(c)) {
    // Seed by seed, every arm in turn: the arms' measured times then share the machine's load
    // (a schedule trial compares wall time, not only FLOPs).
    for (int seed = 1; seed <= c.seeds; ++seed) {
      for (const ArmSpec& spec : specs) add_task(spec, seed);
    }
  } else {
    for (const ArmSpec& spec : specs) {
      for (int seed = 1; seed <= c.seeds; ++seed) add_task(spec, seed);
    }
  }
  auto train_task = [&](int i) -> Result<std::string> {
    const Task& t = tasks[static_cast<size_t>(i)];
    std::string stage = "train " + t.spec->name + " seed " + std::to_string(t.seed);
    auto r = train::Train(RunOptions(c, *t.spec, t.seed), [&](const train::StepInfo& s) {
      if (progress && std::isnan(s.eval_bpb)) {
        progress({stage, s.step, s.steps, t.number, total_runs, s.loss, s.tokens_per_second});
      }
    });
    if (!r.ok()) return r.status();
    nlohmann::json run = {{"done", true},
                          {"arm", t.spec->name},
                          {"seed", t.seed},
                          {"curve", CurveToJson(r->curve)},
                          {"flops_per_step", r->flops_per_step},
                          {"tokens_per_step", r->tokens_per_step},
                          {"steps", r->steps},
                          {"params", r->params},
                          {"core_seconds", r->core_seconds},
                          {"train_seconds", r->train_seconds},
                          {"tokens_per_second", r->tokens_per_second}};
    if (IsScheduleTrial(c)) {
      nlohmann::json compute = nlohmann::json::array();
      for (const auto& p : r->curve) {
        compute.push_back({{"flops", p.flops},
                           {"train_seconds", p.train_seconds},
                           {"core_seconds", p.core_seconds}});
      }
      run["curve_compute"] = compute;
      run["schedule"] = r->schedule;
      run["flops"] = r->flops;
      run["frozen_flops_per_step"] = r->frozen_flops_per_step;
      run["frozen_at"] = r->frozen_at;
      run["stopped_early"] = r->stopped_early;
      run["train_core_seconds"] = r->train_core_seconds;
      run["trigger"] = {{"flops", r->trigger_flops},
                        {"core_seconds", r->trigger_core_seconds},
                        {"seconds", r->trigger_seconds},
                        {"checks", r->trigger_checks}};
    }
    return run.dump();
  };
  auto record = [&](int i, const std::string& run) -> Status {
    m["runs"][tasks[static_cast<size_t>(i)].key] = nlohmann::json::parse(run);
    return manifest.Save();
  };
  PF_RETURN_IF_ERROR(executor->RunTasks(static_cast<int>(tasks.size()), train_task, record));
  if (!executor->IsLeader()) {
    outcome.leader = false;
    return outcome;
  }
  if (IsScheduleTrial(c)) return FinishScheduleTrial(c, specs, manifest, std::move(outcome));

  // 3. Compute matching, checked before any saving is computed.
  std::vector<RunCompute> compute;
  std::vector<double> per_step_core_seconds;
  double run_core_seconds = 0;
  int64_t run_steps = 0;
  for (const ArmSpec& spec : specs) {
    for (int seed = 1; seed <= c.seeds; ++seed) {
      const auto& run = m["runs"][spec.name + "-s" + std::to_string(seed)];
      compute.push_back({spec.name + "/seed-" + std::to_string(seed),
                         run["flops_per_step"].get<double>(), run["steps"].get<int64_t>(),
                         run["tokens_per_step"].get<int64_t>()});
      run_core_seconds += run["core_seconds"].get<double>();
      per_step_core_seconds.push_back(
          run["core_seconds"].get<double>() /
          static_cast<double>(std::max<int64_t>(1, run["steps"].get<int64_t>())));
      run_steps += run["steps"].get<int64_t>();
    }
  }
  PF_RETURN_IF_ERROR(CheckComputeMatched(compute));

  // 4. The numbers.
  TrialInputs in;
  for (size_t a = 0; a < specs.size(); ++a) {
    Arm arm;
    arm.spec = specs[a];
    arm.cost_core_seconds = m["arms"][specs[a].name]["selection_core_seconds"].get<double>();
    if (specs[a].name == "curated") arm.cost_core_seconds += c.forecast_core_seconds;
    for (int seed = 1; seed <= c.seeds; ++seed) {
      arm.seeds.push_back(static_cast<uint64_t>(seed));
      arm.curves.push_back(
          CurveFromJson(m["runs"][specs[a].name + "-s" + std::to_string(seed)]["curve"]));
    }
    in.arms.push_back(std::move(arm));
  }
  in.baseline = 0;  // random
  // f: measured core-seconds per training step, the median over the trial's runs (robust to a
  // run slowed by other work on the machine); the runs' periodic evaluations are included: a run
  // stopped at t_R would have made them too.
  std::sort(per_step_core_seconds.begin(), per_step_core_seconds.end());
  const size_t mid = per_step_core_seconds.size() / 2;
  in.core_seconds_per_step =
      per_step_core_seconds.size() % 2
          ? per_step_core_seconds[mid]
          : 0.5 * (per_step_core_seconds[mid - 1] + per_step_core_seconds[mid]);
  in.flops_per_step = compute.front().flops_per_step;
  in.budget_steps = c.steps;
  PF_ASSIGN_OR_RETURN(TrialResult result, ComputeTrial(in));

  narrate::LabQuestion q;
  q.target = c.target_name.empty() ? c.target_select : c.target_name;
  q.pool = c.pool.size() == 1 ? c.pool[0] : std::to_string(c.pool.size()) + " pool files";
  q.selector = c.selector;
  q.keep = c.keep;
  q.model = c.model_name;
  q.model_params = train::ParamCount(c.model);
  q.steps = c.steps;
  q.seeds = c.seeds;
  q.pool_bytes = m["arms"]["random"]["pool_bytes"].get<int64_t>();
  PF_ASSIGN_OR_RETURN(nlohmann::json eval_input, DescribeInput(c.target_eval, "target_eval"));
  q.eval_bytes = eval_input["bytes"].get<int64_t>();
  outcome.lab_record = narrate::BuildLabRecord(q, result);

  double selection_core_seconds = 0;
  for (const ArmSpec& spec : specs)
    selection_core_seconds += m["arms"][spec.name]["selection_core_seconds"].get<double>();
  outcome.core_seconds = run_core_seconds + selection_core_seconds;
  outcome.flops = in.flops_per_step * static_cast<double>(run_steps);

  nlohmann::json res = TrialResultToJson(result);
  res["lab_record"] = outcome.lab_record;
  nlohmann::json arms_json = nlohmann::json::object();
  for (const ArmSpec& spec : specs) {
    const auto& a = m["arms"][spec.name];
    arms_json[spec.name] = {{"data_kind", spec.data_kind},
                            {"kept_docs", a["kept_docs"]},
                            {"kept_bytes", a["kept_bytes"]},
                            {"output_sha256", a["output_sha256"]},
                            {"selection_core_seconds", a["selection_core_seconds"]}};
  }
  res["arm_data"] = arms_json;
  nlohmann::json runs_json = nlohmann::json::array();
  for (const auto& rc : compute) {
    runs_json.push_back({{"run", rc.run},
                         {"flops_per_step", rc.flops_per_step},
                         {"steps", rc.steps},
                         {"tokens_per_step", rc.tokens_per_step},
                         {"tokens", rc.steps * rc.tokens_per_step}});
  }
  res["compute"] = {{"matched", true},
                    {"runs", runs_json},
                    {"core_seconds_per_step", in.core_seconds_per_step},
                    {"flops_per_step", in.flops_per_step}};
  res["model"] = train::ModelToJson(c.model_name, c.model);
  res["model"]["params"] = q.model_params;
  outcome.result = res;

  // Inputs for the receipt: the pool files, T_sel and T_eval.
  nlohmann::json inputs = select::ReceiptInputs(m["arms"]["curated"]["inputs"]);
  inputs.push_back(eval_input);
  outcome.inputs = inputs;

  // 5. What the report needs (the CLI renders it: report/ sits above trial/).
  outcome.arms = in.arms;
  outcome.trial = result;
  outcome.facts = {{"model", ModelFact(c, q.model_params)},
                   {"budget", std::to_string(c.steps) + " steps x " + std::to_string(c.seeds) +
                                  " seeds per arm"},
                   {"pool", q.pool},
                   {"target (select)", c.target_select},
                   {"target (eval, held out)", c.target_eval}};
  outcome.title = c.selector + " on " + q.target;
  outcome.report_path = JoinPath(c.out_dir, "report.html");
  PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(c.out_dir, "result.json"), res.dump(2) + "\n"));
  m["done"] = true;
  PF_RETURN_IF_ERROR(manifest.Save());
  return outcome;
}

}  // namespace preflight::trial
