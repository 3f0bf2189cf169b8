#include "trainer/cmd_trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "base/file.h"
#include "base/json.h"
#include "trainer/curve_reader.h"

namespace preflight::trainer {
namespace {

// A launched run's failure: the run, what went wrong, and its log's tail.
Status RunFailed(const RunRequest& r, const std::string& what) {
  return Status::IOError("run " + r.Name() + " " + what + "\n" + LogTail(r.run_dir));
}

// What the trainer states in run.json (doc/trainers.md, "run.json"); every key optional.
struct Stated {
  nlohmann::json json = nullptr;
  int64_t params = 0, tokens_per_step = 0;
  double flops_per_step = 0, train_seconds = 0, tokens_per_second = 0;
};

Result<Stated> ReadStated(const std::string& run_dir) {
  Stated s;
  const std::string path = JoinPath(run_dir, "run.json");
  if (!PathExists(path)) return s;
  PF_ASSIGN_OR_RETURN(s.json, ReadJsonFile(path));
  JsonReader r(s.json, path);
  if (!s.json.is_object()) return r.Error("expected an object");
  if (r.Has("params")) {
    PF_ASSIGN_OR_RETURN(s.params, r.Int("params"));
  }
  if (r.Has("tokens_per_step")) {
    PF_ASSIGN_OR_RETURN(s.tokens_per_step, r.Int("tokens_per_step"));
  }
  for (auto [key, out] : {std::pair<const char*, double*>{"flops_per_step", &s.flops_per_step},
                          {"train_seconds", &s.train_seconds},
                          {"tokens_per_second", &s.tokens_per_second}}) {
    if (r.Has(key)) {
      PF_ASSIGN_OR_RETURN(*out, r.Number(key));
    }
  }
  if (s.params < 0 || s.tokens_per_step < 0 || !(s.flops_per_step >= 0) ||
      !(s.train_seconds >= 0)) {
    return r.Error("params, tokens_per_step, flops_per_step and train_seconds must be >= 0");
  }
  return s;
}

// Tokens per step: from the curve's tokens at its last point, else run.json, else the request.
Result<int64_t> TokensPerStep(const RawCurve& raw, const Stated& stated, const RunRequest& r,
                              LaunchFacts& facts) {
  if (!raw.points.empty() && raw.points.back().tokens && raw.points.back().step > 0) {
    const RawPoint& last = raw.points.back();
    if (*last.tokens % last.step != 0) {
      return Status::Corruption(
          fmt::format("{}: {} training tokens at step {} are not a whole number of tokens per step",
                      raw.path, *last.tokens, last.step));
    }
    facts.tokens_source = "curve";
    return *last.tokens / last.step;
  }
  if (stated.tokens_per_step > 0) {
    facts.tokens_source = "run.json";
    return stated.tokens_per_step;
  }
  facts.tokens_source = "requested";
  return r.TokensPerStep();
}

// Parameters and FLOPs per step: what the trainer states, else the flags, else the trial's model.
void Compute(const TrainerSpec& spec, const Stated& stated, const RunRequest& r, RunResult& out,
             LaunchFacts& facts) {
  out.params = stated.params > 0 ? stated.params
               : spec.params > 0 ? spec.params
                                 : engine::ParamCount(r.model);
  facts.params_source = stated.params > 0 ? "run.json" : spec.params > 0 ? "--params" : "model";
  if (stated.flops_per_step > 0) {
    out.flops_per_step = stated.flops_per_step;
    facts.flops_source = "run.json";
  } else if (spec.flops_per_step > 0) {
    out.flops_per_step = spec.flops_per_step;
    facts.flops_source = "--flops-per-step";
  } else if (facts.params_source != "model") {
    out.flops_per_step = 6.0 * static_cast<double>(out.params) * out.tokens_per_step;
    facts.flops_source = "6 x params x tokens";
  } else {
    out.flops_per_step = engine::FlopsPerToken(r.model) * static_cast<double>(out.tokens_per_step);
    facts.flops_source = "model";
  }
}

// Costs: measured by preflight; the seconds charged to training (doc/trainers.md).
void Costs(const LaunchRecord& rec, const Stated& stated, RunResult& out, LaunchFacts& facts) {
  facts.attempts = rec.attempt;
  facts.exit_code = rec.exit_code.value_or(-1);
  facts.wall_seconds = rec.earlier_wall_seconds + rec.wall_seconds;
  facts.cpu_seconds = rec.earlier_cpu_seconds + rec.cpu_seconds;
  const bool stated_smaller = stated.train_seconds > 0 && stated.train_seconds < facts.wall_seconds;
  facts.charged_seconds = stated_smaller ? stated.train_seconds : facts.wall_seconds;
  facts.charged_source = stated_smaller ? "run.json train_seconds" : "wall_seconds";
  out.core_seconds = facts.cpu_seconds;
  out.train_seconds = facts.charged_seconds;
  const double tokens = static_cast<double>(out.steps) * static_cast<double>(out.tokens_per_step);
  out.tokens_per_second = stated.tokens_per_second > 0 ? stated.tokens_per_second
                          : facts.charged_seconds > 0  ? tokens / facts.charged_seconds
                                                       : 0.0;
}

// The directory preflight was started in ({start_dir}); preflight never changes it. Empty when it
// cannot be read (it was removed), and relative paths are then left as they are.
std::string StartDir() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::current_path(ec);
  return ec ? std::string() : dir.string();
}

}  // namespace

std::string CmdTrainer::CurvePath(const RunRequest& r) const {
  return JoinPath(r.run_dir, spec_.CurveFile());
}

Placeholders CmdTrainer::Values(const RunRequest& r) const {
  const engine::ModelConfig& m = r.model;
  return {{"arm", r.arm},
          {"seed", std::to_string(r.seed)},
          {"run_dir", r.run_dir},
          {"train_jsonl", r.train_export.text_jsonl},
          {"train_bin", r.train_export.tokens_bin},
          {"train_llmc", r.train_export.llmc_bin},
          {"train_manifest", r.train_export.manifest},
          {"eval_jsonl", r.eval_export.text_jsonl},
          {"eval_bin", r.eval_export.tokens_bin},
          {"eval_llmc", r.eval_export.llmc_bin},
          {"eval_manifest", r.eval_export.manifest},
          {"vocab", std::to_string(engine::kVocabSize)},
          {"boundary", std::to_string(engine::kBoundaryToken)},
          {"steps", std::to_string(r.steps)},
          {"tokens_per_step", std::to_string(r.TokensPerStep())},
          {"eval_every", std::to_string(r.eval_every)},
          {"eval_bytes", std::to_string(r.eval_export.tokens)},
          {"curve", CurvePath(r)},
          {"model", r.model_name},
          {"layers", std::to_string(m.layers)},
          {"d_model", std::to_string(m.d_model)},
          {"heads", std::to_string(m.heads)},
          {"context", std::to_string(m.context)},
          {"batch", std::to_string(m.batch)},
          {"lr", fmt::format("{}", r.lr)},
          {"warmup_steps", std::to_string(r.warmup_steps)},
          {"min_lr_ratio", fmt::format("{}", r.min_lr_ratio)},
          {"eval_windows", std::to_string(r.eval_windows)},
          {"threads", std::to_string(r.threads)},
          {"device", spec_.device},
          {"start_dir", StartDir()}};
}

Result<std::string> CmdTrainer::Command(const RunRequest& r) const {
  return ExpandTemplate(spec_.command, Values(r));
}

Result<LaunchSpec> CmdTrainer::Prepare(const RunRequest& r) const {
  LaunchSpec launch;
  launch.run = r.Name();
  launch.cwd = r.run_dir;
  launch.watch = {CurvePath(r)};
  PF_ASSIGN_OR_RETURN(std::string command, Command(r));
  // The launch runs in the run folder; the template's relative paths mean what they mean where
  // the user typed it (command_template.h).
  launch.command = ResolveRelativePaths(command, StartDir(), r.run_dir);
  for (const auto& [name, value] : Values(r)) launch.env.emplace_back(EnvName(name), value);
  return launch;
}

Result<RunResult> CmdTrainer::Collect(const RunRequest& r) const {
  PF_ASSIGN_OR_RETURN(LaunchRecord rec, ReadLaunchRecord(r.run_dir));
  if (!rec.succeeded()) {
    const std::string how = rec.exit_code ? fmt::format("exited with code {}", *rec.exit_code)
                            : rec.signal  ? fmt::format("was killed by signal {}", rec.signal)
                                          : std::string("did not finish");
    return RunFailed(r, "failed: its command " + how + " (" + LaunchJsonPath(r.run_dir) + ")");
  }
  PF_ASSIGN_OR_RETURN(CurveFormat format, ParseCurveFormat(spec_.curve_format));
  PF_ASSIGN_OR_RETURN(CurveColumns columns, ParseCurveColumns(spec_.curve_columns));
  auto raw = ReadRawCurve(CurvePath(r), format, columns);
  if (!raw.ok()) {
    if (raw.status().kind() == Status::Kind::kNotFound) {
      return RunFailed(r, "exited 0 but wrote no curve at " + CurvePath(r));
    }
    return RunFailed(r, "exited 0 but its curve is malformed: " + raw.status().message());
  }
  auto stated = ReadStated(r.run_dir);
  if (!stated.ok()) return RunFailed(r, "exited 0 but " + stated.status().message());
  RunResult out;
  LaunchFacts facts;
  facts.trainer = spec_.kind;
  facts.stated = stated->json;
  auto tokens_per_step = TokensPerStep(*raw, *stated, r, facts);
  if (!tokens_per_step.ok())
    return RunFailed(r, "exited 0 but " + tokens_per_step.status().message());
  out.tokens_per_step = *tokens_per_step;
  auto curve = ToEvalCurve(
      *raw, {static_cast<int64_t>(r.eval_export.tokens), spec_.eval_tokens, out.tokens_per_step});
  if (!curve.ok())
    return RunFailed(r, "exited 0 but its curve is malformed: " + curve.status().message());
  if (Status st = CheckCurveComplete(*curve, r.steps, CurvePath(r)); !st.ok()) {
    return RunFailed(r, "exited 0 but its curve is incomplete: " + st.message());
  }
  out.steps = r.steps;
  Compute(spec_, *stated, r, out, facts);
  for (const EvalPoint& p : *curve) {
    out.curve.push_back(
        {p.step, p.tokens, p.eval_bpb, out.flops_per_step * static_cast<double>(p.step), 0.0, 0.0});
  }
  Costs(rec, *stated, out, facts);
  out.facts.flops = out.flops_per_step * static_cast<double>(out.steps);
  out.facts.frozen_flops_per_step = out.flops_per_step;
  out.facts.train_core_seconds = out.core_seconds;
  out.launch = std::move(facts);
  return out;
}

std::optional<EvalPoint> CmdTrainer::LatestPoint(const RunRequest& r) const {
  auto format = ParseCurveFormat(spec_.curve_format);
  auto columns = ParseCurveColumns(spec_.curve_columns);
  if (!format.ok() || !columns.ok() || !PathExists(CurvePath(r))) return std::nullopt;
  auto raw = ReadRawCurve(CurvePath(r), *format, *columns);
  if (!raw.ok()) return std::nullopt;
  auto curve = ToEvalCurve(
      *raw, {static_cast<int64_t>(r.eval_export.tokens), spec_.eval_tokens, r.TokensPerStep()});
  if (!curve.ok() || curve->empty()) return std::nullopt;
  return curve->back();
}

std::optional<RunResult> CmdTrainer::Finished(const RunRequest& r) const {
  auto rec = ReadLaunchRecord(r.run_dir);
  if (!rec.ok() || !rec->succeeded()) return std::nullopt;
  auto result = Collect(r);
  if (!result.ok()) return std::nullopt;
  return std::move(result).value();
}

Result<RunResult> CmdTrainer::Run(const RunRequest& r, const ProgressFn& progress) {
  if (std::optional<RunResult> done = Finished(r)) return std::move(*done);
  PF_ASSIGN_OR_RETURN(LaunchSpec spec, Prepare(r));
  PF_ASSIGN_OR_RETURN(RunningLaunch launch, StartLaunch(spec));
  PF_RETURN_IF_ERROR(WaitLaunch(launch, Limits()).status());
  PF_ASSIGN_OR_RETURN(RunResult result, Collect(r));
  if (progress) {
    const auto steps = static_cast<uint64_t>(r.steps);
    progress({.stage = "train",
              .done = steps,
              .total = steps,
              .unit = "step",
              .eval_bpb = result.curve.back().eval_bpb});
  }
  return result;
}

}  // namespace preflight::trainer
