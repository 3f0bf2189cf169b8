#pragma once
// One selection (`preflight select`): the pool's part most like the target (or a baseline) to a
// byte budget, its outputs and manifest (select/selector.h) and its "selection" receipt, appended
// before the output is named (select_receipt.h). Under mpirun every rank runs the job; rank 0
// writes the outputs and the receipt, the others return an outcome with leader == false.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "select/selector.h"

namespace preflight::app {

struct SelectRequest {
  std::vector<std::string> pool, target;
  select::SelectOptions options;  // threads 0: every core (shared by mpirun's ranks on a machine)
  std::string ledger_path;
};

struct SelectJob {
  bool leader = true;             // false: an MPI rank other than 0; nothing below is filled
  select::SelectOptions options;  // as run (threads resolved)
  select::SelectionResult result;
  std::string receipt_hash;
  std::string ledger_path;
};

// InvalidArgument (exit 2) before any work when the ledger cannot take the receipt; the
// selection's errors otherwise. `progress` hears the leader's stages (select::RunSelection).
Result<SelectJob> RunSelectJob(const SelectRequest& request, const ProgressFn& progress = {});

// The `select --json` document.
nlohmann::json SelectJobJson(const SelectJob& job);

// The summary `select` prints: what was kept of what, the outputs and the receipt.
std::string SelectJobText(const SelectJob& job);

// The skipped bad lines (--skip-bad), one sentence each, then how many more were counted.
std::vector<std::string> SkippedLines(const select::SelectionResult& result);

}  // namespace preflight::app
