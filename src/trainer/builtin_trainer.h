#pragma once
// `--trainer builtin` (the default and the reference): the C++ engine (engine/train.h) in this
// process, on the arm's JSONL file, resuming from the run folder's checkpoint.bin. Its results are
// exactly the engine's: a run on it gives, bit for bit, the curve engine::Train gives for the same
// options.

#include "trainer/trainer.h"

namespace preflight::trainer {

// The engine's options for `request` (the trial's fields, resolved).
engine::TrainOptions BuiltinOptions(const RunRequest& request);

class BuiltinTrainer final : public Trainer {
 public:
  std::string kind() const override { return "builtin"; }
  Result<RunResult> Run(const RunRequest& request, const ProgressFn& progress) override;
};

}  // namespace preflight::trainer
