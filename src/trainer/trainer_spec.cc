#include "trainer/trainer_spec.h"

#include "base/file.h"
#include "trainer/command_template.h"
#include "trainer/curve_reader.h"
#include "trainer/process_group.h"
#include "trainer/torch_trainer.h"

namespace preflight::trainer {
namespace {

Status CheckBuiltin(const TrainerSpec& s) {
  const TrainerSpec defaults;
  if (!s.command.empty()) {
    return Status::InvalidArgument("--trainer-cmd is for --trainer cmd (the trainer is builtin)");
  }
  if (s.device != "cpu") {
    return Status::InvalidArgument("--device " + s.device +
                                   ": the builtin engine trains on the CPU; use --trainer torch");
  }
  if (s.curve_format != defaults.curve_format || !s.curve_file.empty() ||
      !s.curve_columns.empty() || s.eval_tokens != 0 || s.params != 0 || s.flops_per_step != 0) {
    return Status::InvalidArgument(
        "--curve-format, --curve-file, --curve-columns, --eval-tokens, --params and "
        "--flops-per-step are for launched trainers (--trainer torch or cmd)");
  }
  if (s.parallel != 1) {
    return Status::InvalidArgument(
        "--parallel is for launched trainers: the builtin engine trains one run at a time with "
        "every thread (spread runs over machines with mpirun)");
  }
  if (s.run_timeout != defaults.run_timeout || s.stall_timeout != defaults.stall_timeout) {
    return Status::InvalidArgument(
        "--run-timeout and --stall-timeout are for launched trainers (--trainer torch or cmd); "
        "the builtin engine trains in this process");
  }
  return Status::Ok();
}

Status CheckCurveFlags(const TrainerSpec& s) {
  PF_ASSIGN_OR_RETURN(CurveFormat format, ParseCurveFormat(s.curve_format));
  if (!s.curve_file.empty() &&
      (s.curve_file.front() == '/' || s.curve_file == ".." || s.curve_file.rfind("../", 0) == 0 ||
       s.curve_file.find("/../") != std::string::npos)) {
    return Status::InvalidArgument("--curve-file '" + s.curve_file +
                                   "' must be a path inside each run's folder (relative, no ..)");
  }
  const bool csv =
      format == CurveFormat::kCsv ||
      (format == CurveFormat::kAuto && CurveFormatFromName(s.CurveFile()) == CurveFormat::kCsv);
  if (!s.curve_columns.empty() && !csv) {
    return Status::InvalidArgument("--curve-columns is for --curve-format csv");
  }
  PF_RETURN_IF_ERROR(ParseCurveColumns(s.curve_columns).status());
  if (s.kind == "torch" && format != CurveFormat::kAuto && format != CurveFormat::kJsonl) {
    return Status::InvalidArgument("--trainer torch writes a jsonl curve; drop --curve-format " +
                                   s.curve_format);
  }
  return Status::Ok();
}

}  // namespace

std::string TrainerSpec::CurveFile() const {
  if (!curve_file.empty()) return curve_file;
  auto format = ParseCurveFormat(curve_format);
  return DefaultCurveFile(format.ok() ? *format : CurveFormat::kAuto);
}

nlohmann::json TrainerSpec::ToJson() const {
  return {{"kind", kind},
          {"command", command},
          {"device", device},
          {"curve_format", curve_format},
          {"curve_file", curve_file},
          {"curve_columns", curve_columns},
          {"eval_tokens", eval_tokens},
          {"params", params},
          {"flops_per_step", flops_per_step}};
}

Result<TrainerSpec> TrainerSpecFromJson(const JsonReader& r) {
  TrainerSpec s;
  PF_ASSIGN_OR_RETURN(s.kind, r.String("kind"));
  PF_ASSIGN_OR_RETURN(s.command, r.String("command"));
  PF_ASSIGN_OR_RETURN(s.device, r.String("device"));
  PF_ASSIGN_OR_RETURN(s.curve_format, r.String("curve_format"));
  PF_ASSIGN_OR_RETURN(s.curve_file, r.String("curve_file"));
  PF_ASSIGN_OR_RETURN(s.curve_columns, r.String("curve_columns"));
  PF_ASSIGN_OR_RETURN(s.eval_tokens, r.Int("eval_tokens"));
  PF_ASSIGN_OR_RETURN(s.params, r.Int("params"));
  PF_ASSIGN_OR_RETURN(s.flops_per_step, r.Number("flops_per_step"));
  return s;
}

Status ValidateTrainerSpec(const TrainerSpec& s) {
  if (s.kind != "builtin" && s.kind != "torch" && s.kind != "cmd") {
    return Status::InvalidArgument("--trainer '" + s.kind + "' is not one of builtin, torch, cmd");
  }
  if (s.IsBuiltin()) return CheckBuiltin(s);
  if (s.device != "cpu" && s.device != "cuda") {
    return Status::InvalidArgument("--device '" + s.device + "' is not one of cpu, cuda");
  }
  if (s.parallel < 1 || s.parallel > kMaxLiveGroups) {
    return Status::InvalidArgument("--parallel must be at least 1 and at most " +
                                   std::to_string(kMaxLiveGroups));
  }
  if (!(s.run_timeout >= 0) || !(s.stall_timeout >= 0)) {
    return Status::InvalidArgument(
        "--run-timeout and --stall-timeout must be seconds >= 0 (0: no limit)");
  }
  if (s.eval_tokens < 0 || s.params < 0 || !(s.flops_per_step >= 0)) {
    return Status::InvalidArgument("--eval-tokens, --params and --flops-per-step must be >= 0");
  }
  PF_RETURN_IF_ERROR(CheckCurveFlags(s));
  if (s.kind == "cmd") {
    if (s.command.empty()) {
      return Status::InvalidArgument(
          "--trainer cmd needs --trainer-cmd 'TEMPLATE', e.g. --trainer-cmd 'python train.py "
          "--data {train_bin} --out {curve}'");
    }
    return CheckTemplate(s.command, CmdPlaceholderNames());
  }
  if (!s.command.empty()) {
    return Status::InvalidArgument("--trainer-cmd is for --trainer cmd (the trainer is torch)");
  }
  if (s.launcher.empty()) return Status::InvalidArgument("--torch-launcher is empty");
  const std::string script = TorchTrainerScript();
  if (!PathExists(script)) {
    return Status::InvalidArgument("--trainer torch: the script " + script +
                                   " is missing; set PREFLIGHT_TORCH_TRAINER to train.py's path");
  }
  return Status::Ok();
}

}  // namespace preflight::trainer
