// preflight cost: flags -> app::CostRequest -> app::RunCost -> the report (stdout, or stderr
// under --json) and the JSON document. The job is in src/app/cost_jobs.h.

#include <cstdio>
#include <string>

#include "app/cost_jobs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/hardware_catalog.h"
#include "ledger/ledger.h"

namespace preflight::cli {
namespace {

void AddAssumptionFlags(CLI::App& app, cost::CostAssumptions& a, bool& owned) {
  app.add_flag("--owned", owned,
               "the price is an owned cluster's cost without power: add energy to the total");
  app.add_option("--draw", a.average_draw, "average fraction of board power drawn")
      ->capture_default_str();
  app.add_option("--pue", a.pue, "power usage effectiveness of the facility")
      ->capture_default_str();
  app.add_option("--usd-per-kwh", a.usd_per_kwh, "electricity price")->capture_default_str();
  app.add_option("--networking-fraction", a.networking_fraction,
                 "storage/egress/fabric as a fraction of compute")
      ->capture_default_str();
  app.add_option("--engineers", a.engineers, "engineers running the job")->capture_default_str();
  app.add_option("--engineer-usd-per-month", a.engineer_usd_per_month,
                 "loaded cost of one engineer-month")
      ->capture_default_str();
  app.add_option("--data-usd", a.data_usd, "dollars for data")->capture_default_str();
  app.add_option("--failure-overhead", a.failure_overhead,
                 "restarts and failed experiments as a fraction of compute")
      ->capture_default_str();
}

}  // namespace

int RunCost(int argc, char** argv) {
  CLI::App app;
  Describe(app, "cost",
           "Dollars for a training run: GPUs x hours x price per GPU-hour, then energy, "
           "networking, engineering, data and failed experiments as separate lines, each with "
           "its assumption. Every default is printed and has a flag.");
  app::CostRequest request;
  request.ledger_path = ledger::DefaultLedgerPath();
  bool as_json = false;
  app.add_option("--gpus", request.gpus, "number of GPUs in the cluster");
  app.add_option("--days", request.days, "wall-clock days of the run");
  app.add_option("--price", request.price,
                 "dollars per GPU-hour (default: the catalogue's for --gpu)");
  app.add_option("--gpu", request.gpu, "GPU from the catalogue: " + cost::KnownGpuNames())
      ->capture_default_str();
  auto* flops_opt =
      app.add_option("--from-flops", request.from_flops,
                     "derive GPU-hours from a FLOP count at --mfu of --gpu's dense BF16 peak "
                     "(then give --gpus or --days, not both)");
  app.add_option("--params", request.params,
                 "model parameters N: with --tokens, GPU-hours from training compute C = 6ND")
      ->excludes(flops_opt);
  app.add_option("--tokens", request.tokens, "training tokens D, with --params")
      ->excludes(flops_opt);
  app.add_option("--mfu", request.mfu,
                 "model-FLOP utilisation for --from-flops or --params/--tokens, in (0, 1]")
      ->capture_default_str();
  AddAssumptionFlags(app, request.assumptions, request.owned);
  auto* saving_opt = app.add_option("--saving", request.saving,
                                    "project a compute-saved fraction (0.35 = 35%) onto this run");
  app.add_option("--saving-from", request.saving_from,
                 "project the measured compute_saved.net of a trial's result.json or receipt, "
                 "with the pilot's scale and regime beside the dollars")
      ->excludes(saving_opt);
  app.add_option("--from-ladder", request.from_ladder,
                 "a keep ladder's ladder.json or receipt: price the run its recommended fraction "
                 "was made for (unless --from-flops or --params/--tokens), the fraction beside it");
  app.add_flag("--record", request.record, "append a receipt of kind 'cost' to the ledger");
  app.add_option("--ledger", request.ledger_path, "receipt ledger for --record")
      ->capture_default_str();
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  auto outcome = app::RunCost(request);
  if (!outcome.ok()) return Fail("cost", outcome.status());
  // The human report goes to stdout, or to stderr when stdout carries the JSON document.
  std::fputs(app::CostText(*outcome).c_str(), as_json ? stderr : stdout);
  if (as_json) EmitJson(app::CostToJson(*outcome));
  return 0;
}

}  // namespace preflight::cli
