#pragma once
// The `preflight fit` job: read runs (a CSV of N, D, loss, or the trial/train receipts of a
// ledger), fit L(N, D) = E + A/N^alpha + B/D^beta with bootstrap intervals, and optionally write
// the result for `preflight plan --law-json`. The fit is in src/cost/law_fit.h; this reads the
// input, reports progress, runs the fit and says what came out: typed (FitOutcome), as --json
// (FitToJson) and as text (FitText).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/progress.h"
#include "base/status.h"
#include "cost/law_fit.h"

namespace preflight::app {

struct FitRequest {
  std::string csv;  // exactly one of csv and ledger
  std::string ledger;
  cost::FitOptions options;
  std::string out_path;  // also write FitToJson here (atomically) when set
  // Stages announced with a note (one line): "read the ledger" (how many runs it held), then,
  // before the slow part, "fit" (how many runs, starts, resamples). On the caller's thread.
  ProgressFn progress;
};

struct FitOutcome {
  FitRequest request;
  std::optional<cost::LedgerScan> scan;  // when the runs came from a ledger
  cost::FitResult fit;
};

Result<FitOutcome> RunFit(const FitRequest& request);

// {"law":{"E","A","B","alpha","beta"},"intervals":{...},"optimal_params_exponent","points",
//  "starts","bootstrap","seed","huber_delta","objective","rms_log_error","source":{...}}
nlohmann::json FitToJson(const FitOutcome& outcome);

// The human report, ending in a newline.
std::string FitText(const FitOutcome& outcome);

}  // namespace preflight::app
