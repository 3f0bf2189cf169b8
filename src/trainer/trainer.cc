#include "trainer/trainer.h"

#include "trainer/builtin_trainer.h"
#include "trainer/cmd_trainer.h"
#include "trainer/torch_trainer.h"

namespace preflight::trainer {

Result<std::unique_ptr<CmdTrainer>> MakeLaunchedTrainer(const TrainerSpec& spec) {
  PF_RETURN_IF_ERROR(ValidateTrainerSpec(spec));
  if (spec.kind == "torch") return std::unique_ptr<CmdTrainer>(new TorchTrainer(spec));
  if (spec.kind == "cmd") return std::make_unique<CmdTrainer>(spec);
  return Status::InvalidArgument("the " + spec.kind + " trainer is not launched");
}

Result<std::unique_ptr<Trainer>> MakeTrainer(const TrainerSpec& spec) {
  if (spec.IsBuiltin()) {
    PF_RETURN_IF_ERROR(ValidateTrainerSpec(spec));
    return std::unique_ptr<Trainer>(new BuiltinTrainer());
  }
  PF_ASSIGN_OR_RETURN(std::unique_ptr<CmdTrainer> launched, MakeLaunchedTrainer(spec));
  return std::unique_ptr<Trainer>(std::move(launched));
}

}  // namespace preflight::trainer
