#pragma once
// Which trainer a trial's runs are trained by, and how a launched trainer's output is read back:
// the flags --trainer, --trainer-cmd, --device, --torch-launcher, --curve-format, --curve-file,
// --curve-columns, --eval-tokens, --params, --flops-per-step and --parallel (doc/trainers.md).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "base/json.h"
#include "base/status.h"

namespace preflight::trainer {

inline constexpr char kDefaultTorchLauncher[] = "/usr/bin/python3";
// --stall-timeout's default: longer than any start-up seen (a torch compile, a dataset's
// tokenisation, the first eval of a large model), short enough that a hung run does not hold a
// trial for a night. --run-timeout has none: a run's length depends on the model and the machine.
inline constexpr double kDefaultStallTimeoutSeconds = 1800;

struct TrainerSpec {
  std::string kind = "builtin";                  // builtin | torch | cmd
  std::string command;                           // cmd: the template
  std::string device = "cpu";                    // cpu | cuda: {device}; where torch trains
  std::string launcher = kDefaultTorchLauncher;  // torch: what starts the script
  std::string curve_format = "auto";             // auto | jsonl | csv | llmc | hf | nanogpt
  std::string curve_file;     // relative to each run's folder; "" = the format's default
  std::string curve_columns;  // csv: "step=step,loss=val_loss[,tokens=COL]"
  int64_t eval_tokens = 0;    // the eval set in the trainer's tokens; 0 = its byte tokens
  int64_t params = 0;         // stated parameters; 0 = not stated
  double flops_per_step = 0;  // stated FLOPs per step; 0 = not stated
  int parallel = 1;           // launches at a time
  double run_timeout = 0;     // a launch's wall seconds at most; 0 = no limit (launch.h)
  // seconds a launch may go without its curve or logs changing; 0 = no limit
  double stall_timeout = kDefaultStallTimeoutSeconds;

  bool IsBuiltin() const { return kind == "builtin"; }
  // What the run folder's fingerprint records (TrialConfig::ToJson's "trainer", present only for
  // a trainer other than builtin): every field that changes what the runs compute or how their
  // curves are read. --parallel, --torch-launcher (how runs are started), --run-timeout and
  // --stall-timeout (when a run is given up) are left out, so a trial resumes under other
  // values of them.
  nlohmann::json ToJson() const;
  // The curve file relative to a run's folder (the format's default when curve_file is "").
  std::string CurveFile() const;
};

// The inverse of ToJson (launcher and parallel at their defaults).
Result<TrainerSpec> TrainerSpecFromJson(const JsonReader& json);

// InvalidArgument, naming the flag, for: an unknown kind, cmd without a template or with an
// unknown placeholder, a template or curve flags given to the builtin, a device other than cpu
// or cuda, torch with a curve format other than jsonl, an absolute or escaping --curve-file,
// --curve-columns without csv, a bad --curve-columns, --parallel < 1 (or > 1 on the builtin, or
// above the launches preflight can track), negative counts or timeouts, a timeout other than the
// default on the builtin, and a torch trainer whose script is missing.
Status ValidateTrainerSpec(const TrainerSpec& spec);

}  // namespace preflight::trainer
