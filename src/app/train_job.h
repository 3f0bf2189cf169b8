#pragma once
// One training run (`preflight train`): the run folder (checkpoint, curve; resumable) and a
// "train" receipt naming the model, its parameters, the tokens and FLOPs it trained on, its final
// held-out loss and the SHA-256 of its data, which `preflight fit --ledger` can fit a loss law to.

#include <nlohmann/json.hpp>
#include <string>

#include "base/progress.h"
#include "base/status.h"
#include "engine/train.h"
#include "ledger/receipt.h"

namespace preflight::app {

struct TrainRequest {
  engine::TrainOptions options;
  std::string model_name;
  std::string ledger_path;
};

struct TrainJob {
  TrainRequest request;
  engine::TrainResult result;
  ledger::InputRecord data, eval;
  std::string receipt_hash;
};

// InvalidArgument (exit 2) unless the ledger and the run folder can be written
// (ledger/writable.h). RunTrainJob checks it first; the CLI before it prints anything.
Status CheckTrainOutputs(const TrainRequest& request);

// `progress` hears the run's steps and evals (engine::Train).
Result<TrainJob> RunTrainJob(const TrainRequest& request, const ProgressFn& progress = {});

// The `train --json` document (doc/design.md, "The command-line contract") and the receipt's hash.
nlohmann::json TrainJson(const TrainJob& job);

}  // namespace preflight::app
