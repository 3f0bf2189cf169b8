#pragma once
// The `preflight cost` job: dollars for GPUs x hours x price with every other cost as its own
// line, GPU-hours from a FLOP count or from 6ND, projections of a measured compute saving,
// and an opt-in receipt. The arithmetic is in src/cost/; this file runs it in order for one
// request and says what came out, typed (CostOutcome), as the --json document (CostToJson) and
// as the report a person reads (CostText). src/cli/cost_command.cc turns flags into a request.
//
// Errors are Status values: bad input (flags, files) is InvalidArgument/NotFound/Corruption and
// names the flag or the file and JSON path; a ledger that cannot be written is IOError.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "cost/cost_estimate.h"
#include "cost/hardware_catalog.h"
#include "cost/ladder_keep.h"
#include "cost/pilot_saving.h"

namespace preflight::app {

struct CostRequest {
  std::string gpu = "H100-SXM";
  std::optional<double> gpus;
  std::optional<double> days;
  std::optional<double> price;  // dollars per GPU-hour; the catalogue's for `gpu` when unset
  // GPU-hours from compute at `mfu` of the GPU's dense BF16 peak: a FLOP count, or a model of
  // `params` parameters trained on `tokens` tokens (C = 6ND). Not both.
  std::optional<double> from_flops;
  std::optional<double> params;
  std::optional<double> tokens;
  double mfu = 0.4;                   // checked even when unused, so a typo never passes silently
  cost::CostAssumptions assumptions;  // energy_in_price is set from `owned`
  bool owned = false;
  // A projection: a fraction given on the command line, or a trial's result/receipt file.
  std::optional<double> saving;
  std::string saving_from;
  // `--from-ladder FILE`: the fraction a keep ladder recommended (cost/ladder_keep.h), priced at
  // the compute it was made for unless --from-flops or --params/--tokens say otherwise.
  std::string from_ladder;
  bool record = false;  // append a receipt of kind "cost" to `ledger_path`
  std::string ledger_path;
};

struct CostOutcome {
  CostRequest request;
  cost::GpuSpec gpu;
  std::string price_note;    // "given" or where the catalogue price comes from
  cost::CostRequest priced;  // the run as priced: GPUs, hours, price, assumptions
  cost::CostBreakdown breakdown;
  std::optional<double> flops;  // the compute GPU-hours were derived from, when they were
  std::optional<cost::Projection> projection;
  // With --saving-from: the pilot's scale and regime, and why there is no dollar interval
  // (empty when the regime check calls the pilot informative).
  std::optional<cost::PilotSaving> pilot;
  std::string interval_withheld;
  std::optional<cost::LadderKeep> keep;     // with from_ladder
  std::optional<std::string> receipt_hash;  // with --record
};

// Runs the job. With `record`, appends the receipt (its "result" is CostToJson of the outcome
// without the "receipt" key) and sets receipt_hash.
Result<CostOutcome> RunCost(const CostRequest& request);

// The --json document: {"gpu","gpus","days","gpu_hours","price_usd_per_gpu_hour","price_source",
// "compute_usd","total_usd","components":[{"name","usd","assumption","in_total"}]}, plus
// "from_flops", "training_flops", "projection", "keep" and "receipt" when they apply.
nlohmann::json CostToJson(const CostOutcome& outcome);

// The human report, ending in a newline.
std::string CostText(const CostOutcome& outcome);

}  // namespace preflight::app
