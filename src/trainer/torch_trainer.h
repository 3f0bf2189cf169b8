#pragma once
// `--trainer torch`: the project's PyTorch trainer (src/trainer/torch/train.py, written to the
// command line below; doc/trainers.md "The PyTorch trainer"), launched per run like any cmd
// template. The command, on one line:
//   LAUNCHER 'SCRIPT' --train {train_bin} --eval {eval_bin} --run-dir {run_dir} --curve {curve}
//     --layers {layers} --d-model {d_model} --heads {heads} --context {context} --batch {batch}
//     --steps {steps} --seed {seed} --lr {lr} --warmup-steps {warmup_steps}
//     --min-lr-ratio {min_lr_ratio} --eval-every {eval_every} --eval-windows {eval_windows}
//     --threads {threads} --device {device} --init {init}
// LAUNCHER is --torch-launcher as given (unquoted: it may be several words, e.g. torchrun's);
// every value is single-quoted. The curve is jsonl (curve.jsonl in the run folder).

#include <string>

#include "trainer/cmd_trainer.h"

namespace preflight::trainer {

// $PREFLIGHT_TORCH_TRAINER when set; else trainer/torch/train.py beside the running binary when
// there is one (the GPU bundle, scripts/gpu-bundle.sh); else train.py in the source tree's
// src/trainer/torch/.
std::string TorchTrainerScript();

class TorchTrainer final : public CmdTrainer {
 public:
  explicit TorchTrainer(TrainerSpec spec) : CmdTrainer(std::move(spec)) {}

 protected:
  Placeholders Values(const RunRequest& request) const override;  // cmd's, and {init}
  Result<std::string> Command(const RunRequest& request) const override;
};

}  // namespace preflight::trainer
