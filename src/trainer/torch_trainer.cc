#include "trainer/torch_trainer.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace preflight::trainer {
namespace {

// Everything after the launcher and the script (torch_trainer.h).
constexpr char kArguments[] =
    "--train {train_bin} --eval {eval_bin} --run-dir {run_dir} --curve {curve} "
    "--layers {layers} --d-model {d_model} --heads {heads} --context {context} --batch {batch} "
    "--steps {steps} --seed {seed} --lr {lr} --warmup-steps {warmup_steps} "
    "--min-lr-ratio {min_lr_ratio} --eval-every {eval_every} --eval-windows {eval_windows} "
    "--threads {threads} --device {device} --init {init}";

}  // namespace

std::string TorchTrainerScript() {
  if (const char* script = std::getenv("PREFLIGHT_TORCH_TRAINER"); script && *script) return script;
  // A relocated binary (scripts/gpu-bundle.sh) carries the trainer beside it; the source tree it
  // was built from is not there.
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path beside = exe.parent_path() / "trainer" / "torch" / "train.py";
    if (std::filesystem::is_regular_file(beside, error)) return beside.string();
  }
  return std::string(PREFLIGHT_TORCH_TRAINER_DIR) + "/train.py";
}

Placeholders TorchTrainer::Values(const RunRequest& request) const {
  Placeholders values = CmdTrainer::Values(request);
  values.emplace_back("init", request.init_path);
  return values;
}

Result<std::string> TorchTrainer::Command(const RunRequest& request) const {
  PF_ASSIGN_OR_RETURN(std::string arguments, ExpandTemplate(kArguments, Values(request)));
  return spec_.launcher + " " + ShellQuote(TorchTrainerScript()) + " " + arguments;
}

}  // namespace preflight::trainer
