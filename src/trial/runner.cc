#include "trial/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/clock.h"
#include "base/file.h"
#include "base/json.h"
#include "engine/data.h"
#include "engine/schedule.h"
#include "engine/train.h"
#include "select/prepared.h"
#include "select/batch.h"
#include "select/selector.h"
#include "trial/arm_overlap.h"
#include "trial/concurrent_runs.h"
#include "trial/outcome_builder.h"
#include "trial/run_training.h"

namespace preflight::trial {
namespace {

std::string ScheduleDataKind(const TrialConfig& c) {
  return c.schedule_data == "curated" ? c.selector : c.schedule_data;  // or "random", "pool"
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

}  // namespace

std::vector<ArmSpec> TrialDataSpecs(const TrialConfig& c) {
  if (!c.IsScheduleTrial()) return TrialArmSpecs(c);
  return {{kScheduleDataArm, ScheduleDataKind(c), ""}};
}

std::vector<ArmSpec> TrialArmSpecs(const TrialConfig& c) {
  if (c.IsScheduleTrial()) {
    std::vector<ArmSpec> arms = {{"baseline", ScheduleDataKind(c), ""}};
    for (const std::string& s : c.schedules) {
      arms.push_back({ScheduleArmName(s), ScheduleDataKind(c), s});
    }
    return arms;
  }
  if (c.IsKeepTrial()) {
    std::vector<ArmSpec> arms = {{"random", "random", "", 1.0}};
    for (double keep : c.keeps) arms.push_back({KeepArmName(keep), c.selector, "", keep});
    return arms;
  }
  std::vector<ArmSpec> arms = {{"random", "random", ""}, {"curated", c.selector, ""}};
  if (c.baseline == "first") arms.push_back({"first", "first", ""});
  return arms;
}

std::string KeepArmName(double keep) { return fmt::format("keep-{}", keep); }

namespace {

std::vector<ArmSpec> ArmSpecs(const TrialConfig& c) { return TrialArmSpecs(c); }

Status ValidateKeeps(const TrialConfig& c) {
  if (c.IsScheduleTrial() || !c.baseline.empty()) {
    return Status::InvalidArgument(
        "several --keep fractions make their own baseline (the whole pool, random order): not "
        "with schedule arms or --baseline");
  }
  if (c.keeps.size() < 2) {
    return Status::InvalidArgument("a keep trial needs two or more --keep fractions");
  }
  if (c.keep != 1) {
    return Status::InvalidArgument("a keep trial's baseline keeps the whole pool (keep 1)");
  }
  for (size_t i = 0; i < c.keeps.size(); ++i) {
    const double k = c.keeps[i];
    if (!(k > 0 && k < 1)) {
      return Status::InvalidArgument(
          fmt::format("--keep: {} is not in (0, 1); the baseline already keeps the whole pool", k));
    }
    if (i > 0 && !(k > c.keeps[i - 1])) {
      return Status::InvalidArgument(fmt::format(
          "--keep: give each fraction once, in increasing order ({} after {})", k, c.keeps[i - 1]));
    }
  }
  return Status::Ok();
}

Status ValidateSchedules(const TrialConfig& c) {
  if (c.schedule_data != "random" && c.schedule_data != "curated" && c.schedule_data != "pool") {
    return Status::InvalidArgument("--data must be random, curated or pool, not '" +
                                   c.schedule_data + "'");
  }
  if (c.schedule_data == "pool" && c.pool.size() != 1) {
    return Status::InvalidArgument(
        "--data pool trains on the pool file as it is: give one --pool file (or use --data "
        "random)");
  }
  if (c.schedule_data == "curated" && (c.selector == "random" || c.selector == "first")) {
    return Status::InvalidArgument("--data curated needs a selector (dsir or classifier)");
  }
  if (!c.baseline.empty()) {
    return Status::InvalidArgument("--baseline first is for data trials, not schedule trials");
  }
  std::vector<std::string> names;
  for (const std::string& spec : c.schedules) {
    PF_ASSIGN_OR_RETURN(engine::Schedule s, engine::ParseSchedule(spec, c.model.layers));
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
  return Status::Ok();
}

}  // namespace

Status ValidateTrialFlags(const TrialConfig& c) {
  if (c.pool.empty()) return Status::InvalidArgument("--pool is required");
  if (c.target_select.empty()) return Status::InvalidArgument("--target-select is required");
  if (c.target_eval.empty()) return Status::InvalidArgument("--target-eval is required");
  if (c.out_dir.empty()) return Status::InvalidArgument("--out is required");
  if (c.IsScheduleTrial()) {
    PF_RETURN_IF_ERROR(ValidateSchedules(c));
  } else if (c.selector == "random") {
    return Status::InvalidArgument(
        "--selector random would compare random data with itself; choose dsir, classifier or "
        "first");
  }
  if (c.IsKeepTrial()) PF_RETURN_IF_ERROR(ValidateKeeps(c));
  if (c.baseline != "" && c.baseline != "first") {
    return Status::InvalidArgument("--baseline must be 'first' (or absent), not '" + c.baseline +
                                   "'");
  }
  PF_RETURN_IF_ERROR(trainer::ValidateTrainerSpec(c.trainer));
  if (c.IsScheduleTrial() && !c.trainer.IsBuiltin()) {
    return Status::InvalidArgument(
        "schedule arms (--arm-b, --sweep) change the engine's training and run on --trainer "
        "builtin only, not --trainer " +
        c.trainer.kind);
  }
  if (c.seeds < 1) return Status::InvalidArgument("--seeds must be at least 1");
  if (c.runs_at_once < 0) {
    return Status::InvalidArgument("--runs-at-once must be at least 1 (or 0: auto)");
  }
  if (c.steps < 1) return Status::InvalidArgument("--steps must be at least 1");
  if (!(c.keep > 0 && c.keep <= 1)) {
    return Status::InvalidArgument(
        fmt::format("--keep must be a number in (0, 1], got {}", c.keep));
  }
  return engine::ValidateModel(c.model);
}

nlohmann::json TrialConfig::ToJson() const {
  nlohmann::json j = PlanJson();
  j["target_eval"] = target_eval;
  j["target_name"] = target_name;
  j["baseline"] = baseline;
  j["eval_every"] = eval_every;
  j["eval_max_windows"] = eval_max_windows;
  j["forecast"] = forecast_hash;
  // Schedule trials and launched trainers add their keys; other trials' fingerprints stay as
  // they were.
  if (IsScheduleTrial()) {
    j["schedules"] = schedules;
    j["schedule_data"] = schedule_data;
  }
  if (!trainer.IsBuiltin()) j["trainer"] = trainer.ToJson();
  if (IsKeepTrial()) j["keeps"] = keeps;
  return j;
}

corpus::ReadOptions PoolReadOptions(const TrialConfig& c) {
  corpus::ReadOptions read;
  read.text_field = c.text_field;
  return read;
}

corpus::ReadOptions TargetReadOptions(const TrialConfig& c) {
  corpus::ReadOptions read;
  read.text_field = c.TargetTextField();
  return read;
}

select::SelectOptions SelectionOptionsOf(const TrialConfig& c) {
  select::SelectOptions o;
  o.keep = c.keep;
  o.seed = c.selection_seed;
  o.threads = c.threads;
  o.read = PoolReadOptions(c);
  o.id_field = c.id_field;
  o.target_text_field = c.TargetTextField();
  o.target_id_field = c.TargetIdField();
  return o;
}

Result<double> TimeTrainingStepSeconds(const engine::ModelConfig& model, int threads) {
  // Four steps on synthetic text; the first (allocation, warm-up) is left out.
  std::string doc;
  for (int i = 0; doc.size() < static_cast<size_t>(model.context) * model.batch * 4; ++i) {
    doc += "calibration text number " + std::to_string(i * 7919 % 1000) + ". ";
  }
  engine::TrainOptions t;
  t.model = model;
  t.steps = 4;
  t.eval_every = 1000;
  t.eval_max_windows = 1;
  t.threads = threads;
  double start = WallSeconds();
  double first_step_done = 0;
  auto r = engine::TrainOnDocuments(t, {doc}, {doc}, [&](const engine::StepInfo& info) {
    if (info.step == 1 && std::isnan(info.eval_bpb) && first_step_done == 0)
      first_step_done = WallSeconds();
  });
  PF_RETURN_IF_ERROR(r.status());
  return (WallSeconds() - (first_step_done > 0 ? first_step_done : start)) / 3.0;
}

double TrialSecondsFromStep(double seconds_per_step, int64_t steps, int arms, int seeds) {
  // Evals cost about a forward pass per eval window; selections a few seconds each.
  return seconds_per_step * static_cast<double>(steps) * arms * seeds * 1.15 + 5.0 * arms;
}

Result<double> EstimateTrialSeconds(const TrialConfig& c) {
  PF_RETURN_IF_ERROR(ValidateTrialFlags(c));
  // Runs side by side each train on one thread (trial/concurrent_runs.h).
  const int at_once = c.trainer.IsBuiltin() ? RunsAtOnce(c) : 1;
  PF_ASSIGN_OR_RETURN(double per_step,
                      TimeTrainingStepSeconds(c.model, at_once > 1 ? 1 : c.threads));
  const int arms = static_cast<int>(ArmSpecs(c).size());
  return TrialSecondsFromStep(per_step / at_once, c.steps, arms, c.seeds);
}

// --- Making the arms -------------------------------------------------------------------------

namespace {

// The arms' selections as one batch (select/batch.h), from the input check's passes when there
// are some.
Result<std::vector<ArmRecord>> SelectArms(const TrialConfig& c,
                                          const std::vector<const ArmSpec*>& specs,
                                          const std::vector<std::string>& paths,
                                          const CheckedInputs* checked) {
  std::vector<select::SelectionRequest> requests;
  for (size_t i = 0; i < specs.size(); ++i) {
    select::SelectOptions o = SelectionOptionsOf(c);
    o.selector = specs[i]->data_kind;
    if (specs[i]->keep > 0) o.keep = specs[i]->keep;
    o.out_path = paths[i];
    requests.push_back({{c.target_select}, o});
  }
  const select::PreparedInputs* passes = checked ? checked->passes.get() : nullptr;
  PF_ASSIGN_OR_RETURN(std::vector<select::SelectionResult> made,
                      select::RunSelections(c.pool, requests, {}, nullptr, passes));
  std::vector<ArmRecord> records;
  for (size_t i = 0; i < made.size(); ++i) {
    select::SelectionResult& s = made[i];
    // A keep trial charges every arm the first pass it was handed, as its selection alone pays
    // it.
    if (c.IsKeepTrial() && passes) s.core_seconds += checked->passes_core_seconds;
    ArmRecord a;
    a.data_kind = specs[i]->data_kind;
    a.schedule = specs[i]->schedule;
    a.kept_docs = s.kept_docs;
    a.kept_bytes = s.kept_bytes;
    a.budget_bytes = s.budget_bytes;
    a.pool_docs = s.pool_docs;
    a.pool_bytes = s.pool_bytes;
    a.selection_core_seconds = s.core_seconds;
    a.output_sha256 = s.manifest["output"]["sha256"].get<std::string>();
    for (const nlohmann::json& in : select::ReceiptInputs(s.manifest["inputs"])) {
      a.inputs.push_back({in["role"], in["path"], in["sha256"], in["docs"], in["bytes"]});
    }
    records.push_back(std::move(a));
  }
  return records;
}

// A schedule trial on the pool as it is: the pool file is the data (described by the input check
// when it read the pool).
Result<ArmRecord> PoolArm(const TrialConfig& c, const CheckedInputs* checked) {
  ledger::InputRecord pool;
  if (checked && !checked->pool.empty()) {
    pool = checked->pool[0];
  } else {
    PF_ASSIGN_OR_RETURN(pool, DescribeInput(c.pool[0], "pool", PoolReadOptions(c)));
  }
  ArmRecord a;
  a.data_kind = "pool";
  a.kept_docs = a.pool_docs = pool.docs;
  a.kept_bytes = a.budget_bytes = a.pool_bytes = pool.bytes;
  a.output_sha256 = pool.sha256;
  a.inputs = {pool};
  return a;
}

// Makes (or finds, from an earlier invocation) every arm's data: the selections as one batch,
// the manifest saved once they are made.
Result<std::vector<MadeArm>> MakeArms(const TrialConfig& c, RunFolder& folder, int total_runs,
                                      const std::function<void(const TrialProgress&)>& progress,
                                      const CheckedInputs* checked) {
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(c.out_dir, "arms")));
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(c.out_dir, "runs")));
  const std::vector<ArmSpec> specs = TrialDataSpecs(c);
  auto& arms = folder.manifest().arms;
  std::vector<const ArmSpec*> to_select;
  std::vector<std::string> paths;
  std::string names;
  for (const ArmSpec& spec : specs) {
    const std::string path = DataPath(c, folder, spec.name);
    if (arms.count(spec.name) && PathExists(path)) continue;
    if (spec.data_kind == "pool") {
      PF_ASSIGN_OR_RETURN(arms[spec.name], PoolArm(c, checked));
      PF_RETURN_IF_ERROR(folder.Save());
      continue;
    }
    to_select.push_back(&spec);
    paths.push_back(path);
    names += (names.empty() ? "" : ", ") + spec.name + " (" + spec.data_kind + ")";
  }
  if (!to_select.empty()) {
    if (progress) progress({"select " + names, 0, 0, 0, total_runs});
    PF_ASSIGN_OR_RETURN(std::vector<ArmRecord> records, SelectArms(c, to_select, paths, checked));
    for (size_t i = 0; i < to_select.size(); ++i) arms[to_select[i]->name] = std::move(records[i]);
    PF_RETURN_IF_ERROR(folder.Save());
  }
  std::vector<MadeArm> made;
  for (const ArmSpec& spec : specs) {
    made.push_back({spec.name, DataPath(c, folder, spec.name), arms[spec.name]});
  }
  return made;
}

// Two arms of the same documents can only measure a saving of 0: refused (InvalidArgument,
// exit 2), before the forecast and any training step. A pool too small for two different
// selections of the budget (3 documents, --keep 0.25) gives that.
Status CheckArmsDiffer(const std::vector<MadeArm>& made) {
  for (size_t i = 0; i < made.size(); ++i) {
    for (size_t j = i + 1; j < made.size(); ++j) {
      const ArmRecord& a = made[i].record;
      if (a.output_sha256.empty() || a.output_sha256 != made[j].record.output_sha256) continue;
      return Status::InvalidArgument(fmt::format(
          "the {} and {} arms hold the same {} documents ({} bytes of a pool of {} documents): "
          "a trial cannot compare an arm with itself; give a pool with more documents{}",
          made[i].name, made[j].name, a.kept_docs, a.kept_bytes, a.pool_docs,
          made[i].record.data_kind == made[j].record.data_kind
              ? " (or --keep fractions further apart)"
              : ""));
    }
  }
  return Status::Ok();
}

// The regime check's n-gram scores of every arm's data (the pool's lines: the pool's field) on
// T_eval (the target's field), scored on the runs' own eval windows; each arm's are computed once
// and saved (a folder from before the check gains them). T_eval's documents are the input
// check's, else read here once for every arm.
Status ScoreArms(const TrialConfig& c, RunFolder& folder, std::vector<MadeArm>& made,
                 int total_runs, const std::function<void(const TrialProgress&)>& progress,
                 const CheckedInputs* checked) {
  const NgramEvalWindows windows{c.model.context, c.eval_max_windows};
  const std::vector<std::string>* eval = checked ? &checked->eval_texts : nullptr;
  std::vector<std::string> eval_read_here;
  for (MadeArm& arm : made) {
    ArmRecord& record = folder.manifest().arms[arm.name];
    if (!record.ngram || !record.eval_copies) {
      if (progress) progress({"regime " + arm.name + " (byte n-grams)", 0, 0, 0, total_runs});
      if (eval == nullptr) {
        PF_ASSIGN_OR_RETURN(eval_read_here,
                            engine::ReadJsonlTexts(c.target_eval, c.TargetTextField()));
        eval = &eval_read_here;
      }
      PF_ASSIGN_OR_RETURN(std::vector<std::string> docs,
                          engine::ReadJsonlTexts(arm.path, c.text_field));
      if (!record.ngram) {
        PF_ASSIGN_OR_RETURN(
            record.ngram, ScoreNgramTexts(docs, *eval, c.target_eval, kDefaultNgramOrder, windows));
      }
      record.eval_copies = CountCopies(docs, *eval);  // from the same read (arm_overlap.h)
      PF_RETURN_IF_ERROR(folder.Save());
    }
    arm.record = record;
  }
  return Status::Ok();
}

}  // namespace

Result<TrialOutcome> RunTrial(const TrialConfig& config,
                              const std::function<void(const TrialProgress&)>& progress,
                              RunExecutor* executor, const BeforeTraining& before_training,
                              const CheckedInputs* checked) {
  RunExecutor in_process;
  if (executor == nullptr) executor = &in_process;
  TrialConfig c = config;
  PF_RETURN_IF_ERROR(ValidateTrialFlags(c));
  RunFolder folder(c.out_dir);
  const int total_runs = static_cast<int>(ArmSpecs(c).size()) * c.seeds;

  // 1. The arms' data, made once by the leader, who then shows them to the caller (the forecast
  //    under test) before any training step; the other processes read the leader's manifest.
  if (executor->IsLeader()) {
    auto arms_then_forecast = [&]() -> Status {
      PF_RETURN_IF_ERROR(folder.Open(c.ToJson()));
      if (!c.trainer.IsBuiltin()) folder.manifest().prices = c.prices;  // this run's, kept
      PF_ASSIGN_OR_RETURN(std::vector<MadeArm> made,
                          MakeArms(c, folder, total_runs, progress, checked));
      PF_RETURN_IF_ERROR(CheckArmsDiffer(made));
      PF_RETURN_IF_ERROR(ScoreArms(c, folder, made, total_runs, progress, checked));
      if (!before_training) return Status::Ok();
      PF_ASSIGN_OR_RETURN(ForecastCharge charge, before_training(made));
      c.forecast_hash = charge.receipt_hash;
      c.forecast_core_seconds = charge.core_seconds;
      folder.manifest().config = c.ToJson();
      folder.manifest().forecast_core_seconds = charge.core_seconds;
      return folder.Save();
    };
    PF_RETURN_IF_ERROR(executor->AfterArms(arms_then_forecast()));
  } else {
    PF_RETURN_IF_ERROR(executor->AfterArms(Status::Ok()));
    if (!PathExists(folder.manifest_path())) {
      return Status::NotFound(folder.manifest_path() + ": the leader wrote no trial manifest");
    }
    PF_RETURN_IF_ERROR(folder.Open(c.ToJson()));
  }

  // 2. The runs: seeds 1..S per arm, paired by seed across arms.
  int reused = 0;
  PF_RETURN_IF_ERROR(TrainRuns(c, folder, *executor, progress, &reused));
  if (!executor->IsLeader()) {
    TrialOutcome outcome;
    outcome.leader = false;
    return outcome;
  }

  // 3. The numbers.
  PF_ASSIGN_OR_RETURN(TrialOutcome outcome,
                      BuildOutcome(c, folder, checked ? &checked->target_eval : nullptr));
  outcome.warnings = OverlapWarnings(folder.manifest().arms);
  outcome.reused_runs = reused;
  folder.manifest().done = true;
  PF_RETURN_IF_ERROR(folder.Save());
  return outcome;
}

Result<TrialOutcome> LoadTrial(const std::string& out_dir) {
  RunFolder folder(out_dir);
  if (!PathExists(folder.manifest_path())) {
    return Status::NotFound(folder.manifest_path() + ": no trial here (no trial.json)");
  }
  PF_ASSIGN_OR_RETURN(nlohmann::json json, ReadJsonFile(folder.manifest_path()));
  PF_ASSIGN_OR_RETURN(RunFolderManifest manifest, ManifestFromJson(json, folder.manifest_path()));
  PF_ASSIGN_OR_RETURN(TrialConfig config,
                      TrialConfigFromJson(manifest.config, folder.manifest_path()));
  config.out_dir = out_dir;
  config.forecast_core_seconds = manifest.forecast_core_seconds;
  config.prices = manifest.prices;
  if (!manifest.done) {
    return Status::InvalidArgument(folder.manifest_path() +
                                   ": the trial is not finished; rerun its command to finish it");
  }
  PF_RETURN_IF_ERROR(folder.Open(config.ToJson()));
  PF_ASSIGN_OR_RETURN(TrialOutcome outcome, BuildOutcome(config, folder));
  outcome.warnings = OverlapWarnings(folder.manifest().arms);
  return outcome;
}

Result<TrialConfig> TrialConfigFromJson(const nlohmann::json& json, const std::string& file) {
  JsonReader r(json, file, "$.config");
  TrialConfig c;
  PF_ASSIGN_OR_RETURN(c.pool, r.Strings("pool"));
  PF_ASSIGN_OR_RETURN(c.target_select, r.String("target_select"));
  PF_ASSIGN_OR_RETURN(c.target_eval, r.String("target_eval"));
  PF_ASSIGN_OR_RETURN(c.target_name, r.String("target_name"));
  PF_ASSIGN_OR_RETURN(c.selector, r.String("selector"));
  PF_ASSIGN_OR_RETURN(c.keep, r.Number("keep"));
  PF_ASSIGN_OR_RETURN(int64_t selection_seed, r.Int("selection_seed"));
  c.selection_seed = static_cast<uint64_t>(selection_seed);
  PF_ASSIGN_OR_RETURN(c.baseline, r.String("baseline"));
  PF_ASSIGN_OR_RETURN(int64_t seeds, r.Int("seeds"));
  c.seeds = static_cast<int>(seeds);
  PF_ASSIGN_OR_RETURN(JsonReader model, r.Field("model"));
  PF_ASSIGN_OR_RETURN(c.model_name, model.String("name"));
  for (auto [key, field] : {std::pair<const char*, int*>{"layers", &c.model.layers},
                            {"d_model", &c.model.d_model},
                            {"heads", &c.model.heads},
                            {"context", &c.model.context},
                            {"batch", &c.model.batch}}) {
    PF_ASSIGN_OR_RETURN(int64_t v, model.Int(key));
    *field = static_cast<int>(v);
  }
  PF_ASSIGN_OR_RETURN(c.steps, r.Int("steps"));
  PF_ASSIGN_OR_RETURN(c.eval_every, r.Int("eval_every"));
  PF_ASSIGN_OR_RETURN(c.eval_max_windows, r.Int("eval_max_windows"));
  PF_ASSIGN_OR_RETURN(double lr, r.Number("lr"));
  c.lr = static_cast<float>(lr);
  PF_ASSIGN_OR_RETURN(int64_t threads, r.Int("threads"));
  c.threads = static_cast<int>(threads);
  PF_ASSIGN_OR_RETURN(c.forecast_hash, r.String("forecast"));
  if (r.Has("text_field")) {
    PF_ASSIGN_OR_RETURN(c.text_field, r.String("text_field"));
  }
  if (r.Has("id_field")) {
    PF_ASSIGN_OR_RETURN(c.id_field, r.String("id_field"));
  }
  if (r.Has("target_text_field")) {
    PF_ASSIGN_OR_RETURN(c.target_text_field, r.String("target_text_field"));
  }
  if (r.Has("target_id_field")) {
    PF_ASSIGN_OR_RETURN(c.target_id_field, r.String("target_id_field"));
  }
  if (r.Has("schedules")) {
    PF_ASSIGN_OR_RETURN(c.schedules, r.Strings("schedules"));
    PF_ASSIGN_OR_RETURN(c.schedule_data, r.String("schedule_data"));
  }
  if (r.Has("trainer")) {
    PF_ASSIGN_OR_RETURN(JsonReader trainer, r.Field("trainer"));
    PF_ASSIGN_OR_RETURN(c.trainer, trainer::TrainerSpecFromJson(trainer));
  }
  if (r.Has("keeps")) {
    PF_ASSIGN_OR_RETURN(c.keeps, r.Numbers("keeps"));
  }
  return c;
}

}  // namespace preflight::trial
