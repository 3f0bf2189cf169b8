#pragma once
// What a training run costs in dollars: GPUs x hours x price per GPU-hour, then every other
// cost as its own line with the assumption behind it (doc/design.md, "Cost conventions").
// Nothing is folded into the total silently: a component that is already inside the rental
// price (energy, by default) is shown with its dollars and marked as not added.
//
// Also: GPU-hours from a FLOP count at a stated utilisation, and projections that turn a
// measured compute-saved fraction into dollars for a stated cluster.

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "cost/hardware_catalog.h"

namespace preflight::cost {

// Every default is stated here and in doc/cost.md, and every one has a CLI flag.
struct CostAssumptions {
  // Energy = GPUs x hours x board power x average draw x PUE x $/kWh.
  double average_draw = 0.75;  // fraction of board power averaged over a run
  double pue = 1.2;            // facility power / IT power
  double usd_per_kwh = 0.08;   // US industrial average, 2023 (EIA)
  // Cloud rental prices include power; an owned cluster's amortised price per GPU-hour does
  // not. When true, energy is shown but not added to the total.
  bool energy_in_price = true;
  // Storage, egress and any fabric surcharge not in the GPU-hour price, as a fraction of
  // compute dollars.
  double networking_fraction = 0.05;
  // People who run and babysit the job, for its wall-clock length (months of 30 days).
  double engineers = 4;
  double engineer_usd_per_month = 25000;
  // Buying, licensing or annotating data: zero for open data.
  double data_usd = 0;
  // Restarts after hardware failures plus failed or diverged experiments re-run, as a
  // fraction of compute dollars.
  double failure_overhead = 0.15;
};

struct CostRequest {
  double gpus = 0;
  double hours = 0;  // wall-clock hours of the run
  double price_usd_per_gpu_hour = 0;
  GpuSpec gpu;  // supplies power for the energy line
  CostAssumptions assumptions;
};

struct CostComponent {
  std::string name;
  double usd = 0;
  std::string assumption;  // the formula with its inputs, and where the defaults come from
  bool in_total = true;
};

struct CostBreakdown {
  double gpus = 0;
  double days = 0;
  double gpu_hours = 0;
  double price_usd_per_gpu_hour = 0;
  double compute_usd = 0;  // gpus x hours x price, exactly
  double total_usd = 0;    // compute plus every component with in_total
  std::vector<CostComponent> components;
};

// InvalidArgument when GPUs, hours or price are not positive finite numbers, or an assumption
// is out of range (draw outside (0, 1], PUE < 1, negative fractions or dollars).
Result<CostBreakdown> EstimateCost(const CostRequest& request);

// GPU-hours to execute `flops` on `gpu` at model-FLOP utilisation `mfu` of its dense BF16
// peak. InvalidArgument for flops <= 0 or mfu outside (0, 1].
Result<double> GpuHoursForFlops(double flops, const GpuSpec& gpu, double mfu);

// InvalidArgument unless 0 < mfu <= 1; `flag` names the option in the message.
Status ValidateMfu(double mfu, const char* flag = "--mfu");

// The cluster and wall clock of a run that must execute `flops`: given the GPU count, the hours
// follow; given the days, the (possibly fractional) GPU count follows. Exactly one of `gpus`
// and `days` must be set; InvalidArgument otherwise, or for non-positive values.
struct RunShape {
  double gpus = 0;
  double hours = 0;
  double gpu_hours = 0;
};
Result<RunShape> RunForFlops(double flops, const GpuSpec& gpu, double mfu,
                             std::optional<double> gpus, std::optional<double> days);

// A measured compute-saved fraction and where it was measured.
struct MeasuredSaving {
  double fraction = 0;  // 1 - curated compute / random compute, net of selection cost
  std::optional<double> ci_low, ci_high;  // 95% interval, when the receipt has one
  std::string source;                     // "--saving 0.35" or the receipt's path
  std::string detail;  // what the measurement was (selector, model, steps) when known
};

// Reads `result.compute_saved.net` (and `ci95` beside it, if present) from a trial receipt or a
// trial's result.json: ReadPilotSaving (cost/pilot_saving.h) without the pilot's scale and
// regime. NotFound for a missing file; Corruption (naming the JSON path) for a damaged one;
// InvalidArgument for another kind of receipt or an arm that never caught up.
Result<MeasuredSaving> ReadSavingFromReceipt(const std::string& path);

// InvalidArgument unless the fraction is finite and below 1 (a negative saving is a loss).
Status ValidateSaving(double fraction);

// The cost of the same run if it needed (1 - fraction) of its GPU-hours on the same cluster:
// shorter wall clock, so compute and every component that scales with GPU-hours or days
// shrink; the data line does not. This is arithmetic on a small-scale measurement, so callers
// print it under the heading "projection".
struct Projection {
  MeasuredSaving saving;
  CostBreakdown projected;
  double gpu_hours_saved = 0;
  double days_saved = 0;
  double compute_usd_saved = 0;
  double total_usd_saved = 0;
  std::optional<double> total_usd_saved_low, total_usd_saved_high;  // from the interval
};
Result<Projection> ProjectSaving(const CostRequest& request, const MeasuredSaving& saving);

}  // namespace preflight::cost
