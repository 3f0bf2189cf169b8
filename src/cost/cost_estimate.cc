#include "cost/cost_estimate.h"

#include <cmath>

#include "base/number_format.h"
#include "cost/pilot_saving.h"

namespace preflight::cost {
namespace {

constexpr double kDaysPerMonth = 30;

bool PositiveFinite(double x) { return std::isfinite(x) && x > 0; }
bool NonNegativeFinite(double x) { return std::isfinite(x) && x >= 0; }

std::string Got(double x) { return " (got " + FormatSci(x, 6) + ")"; }

Status ValidateAssumptions(const CostAssumptions& a) {
  if (!(std::isfinite(a.average_draw) && a.average_draw > 0 && a.average_draw <= 1)) {
    return Status::InvalidArgument("--draw must be in (0, 1], the average fraction of board power" +
                                   Got(a.average_draw));
  }
  if (!(std::isfinite(a.pue) && a.pue >= 1)) {
    return Status::InvalidArgument("--pue must be >= 1 (facility power over IT power)" +
                                   Got(a.pue));
  }
  struct {
    const char* flag;
    double value;
  } const non_negative[] = {
      {"--usd-per-kwh", a.usd_per_kwh}, {"--networking-fraction", a.networking_fraction},
      {"--engineers", a.engineers},     {"--engineer-usd-per-month", a.engineer_usd_per_month},
      {"--data-usd", a.data_usd},       {"--failure-overhead", a.failure_overhead}};
  for (const auto& [flag, value] : non_negative) {
    if (!NonNegativeFinite(value)) {
      return Status::InvalidArgument(std::string(flag) + " must be a number >= 0" + Got(value));
    }
  }
  return Status::Ok();
}

// Energy = GPU-hours x board power x average draw x PUE x $/kWh. A chip whose vendor publishes
// no board power (Google's TPUs) gets a zero line that says so, never a guessed wattage.
CostComponent EnergyComponent(const CostRequest& r, double gpu_hours) {
  const CostAssumptions& a = r.assumptions;
  if (!r.gpu.power_w) {
    return {"energy", 0,
            r.gpu.name +
                " board power is not published by its vendor, so energy is not estimated (a "
                "cloud rental price includes it; for an owned cluster add it with --data-usd or "
                "your own figure)",
            false};
  }
  const double watts = *r.gpu.power_w;
  double kwh = gpu_hours * watts / 1000 * a.average_draw * a.pue;
  return {"energy", kwh * a.usd_per_kwh,
          FormatFixed(gpu_hours, 0) + " GPU-hours x " + FormatFixed(watts, 0) + " W (" +
              r.gpu.name + " board power) x " + FormatFixed(a.average_draw, 2) +
              " average draw x PUE " + FormatFixed(a.pue, 2) + " x $" +
              FormatFixed(a.usd_per_kwh, 3) + "/kWh = " + FormatFixed(kwh, 0) + " kWh" +
              (a.energy_in_price ? "; already inside a cloud rental price, so shown but NOT "
                                   "added (--owned adds it)"
                                 : "; added: the price is an owned cluster's cost without power") +
              ". Defaults: draw 0.75 assumed; PUE 1.2 for a modern large facility (Uptime "
              "Institute's 2023 survey average is 1.58, hyperscalers report about 1.1); $0.08/kWh "
              "US industrial average 2023 (EIA)",
          !a.energy_in_price};
}

}  // namespace

Result<CostBreakdown> EstimateCost(const CostRequest& r) {
  if (!PositiveFinite(r.gpus)) {
    return Status::InvalidArgument("--gpus must be a positive number" + Got(r.gpus));
  }
  if (!PositiveFinite(r.hours)) {
    return Status::InvalidArgument("--days must be a positive number" + Got(r.hours / 24));
  }
  if (!PositiveFinite(r.price_usd_per_gpu_hour)) {
    return Status::InvalidArgument("--price must be a positive number of dollars per GPU-hour" +
                                   Got(r.price_usd_per_gpu_hour));
  }
  PF_RETURN_IF_ERROR(ValidateAssumptions(r.assumptions));
  const CostAssumptions& a = r.assumptions;

  CostBreakdown b;
  b.gpus = r.gpus;
  b.days = r.hours / 24;
  b.gpu_hours = r.gpus * r.hours;
  b.price_usd_per_gpu_hour = r.price_usd_per_gpu_hour;
  b.compute_usd = b.gpu_hours * r.price_usd_per_gpu_hour;

  b.components.push_back(EnergyComponent(r, b.gpu_hours));
  b.components.push_back(
      {"networking", b.compute_usd * a.networking_fraction,
       FormatPlain(100 * a.networking_fraction) +
           "% of compute for storage, egress and fabric surcharges not in the GPU-hour price "
           "(assumption, no published basis; set --networking-fraction from your quote)",
       true});
  double months = b.days / kDaysPerMonth;
  b.components.push_back(
      {"engineering", a.engineers * a.engineer_usd_per_month * months,
       FormatPlain(a.engineers) + " engineers x " + FormatUsd(a.engineer_usd_per_month) +
           "/month loaded cost x " + FormatPlain(months) +
           " months of wall clock (30-day months); an assumption for the people who run the job, "
           "not the research behind it (--engineers, --engineer-usd-per-month)",
       true});
  b.components.push_back({"data", a.data_usd,
                          FormatUsd(a.data_usd) +
                              " for buying, licensing or annotating data (default 0: open data; "
                              "--data-usd)",
                          true});
  b.components.push_back(
      {"failed experiments and restarts", b.compute_usd * a.failure_overhead,
       FormatPlain(100 * a.failure_overhead) +
           "% of compute. Default 15%: about 10% lost to interruptions (the Llama 3 report: 466 "
           "job interruptions in a 54-day snapshot, above 90% effective training time) plus 5% "
           "for diverged or failed runs re-done (assumption; --failure-overhead)",
       true});

  b.total_usd = b.compute_usd;
  for (const CostComponent& c : b.components) {
    if (c.in_total) b.total_usd += c.usd;
  }
  return b;
}

Status ValidateMfu(double mfu, const char* flag) {
  if (!(std::isfinite(mfu) && mfu > 0 && mfu <= 1)) {
    return Status::InvalidArgument(std::string(flag) +
                                   " must be in (0, 1], a fraction of the GPU's dense BF16 peak" +
                                   Got(mfu));
  }
  return Status::Ok();
}

Result<double> GpuHoursForFlops(double flops, const GpuSpec& gpu, double mfu) {
  if (!PositiveFinite(flops)) {
    return Status::InvalidArgument("--from-flops must be a positive FLOP count" + Got(flops));
  }
  PF_RETURN_IF_ERROR(ValidateMfu(mfu));
  return flops / (gpu.bf16_dense_flops * mfu) / 3600;
}

Result<RunShape> RunForFlops(double flops, const GpuSpec& gpu, double mfu,
                             std::optional<double> gpus, std::optional<double> days) {
  if (gpus.has_value() == days.has_value()) {
    return Status::InvalidArgument(
        "--from-flops needs the cluster size --gpus N or the run length --days D (exactly one; "
        "the other follows)");
  }
  PF_ASSIGN_OR_RETURN(double gpu_hours, GpuHoursForFlops(flops, gpu, mfu));
  if (gpus && !PositiveFinite(*gpus)) {
    return Status::InvalidArgument("--gpus must be a positive number" + Got(*gpus));
  }
  if (days && !PositiveFinite(*days)) {
    return Status::InvalidArgument("--days must be a positive number" + Got(*days));
  }
  RunShape run;
  run.gpu_hours = gpu_hours;
  run.gpus = gpus ? *gpus : gpu_hours / (*days * 24);
  run.hours = gpus ? gpu_hours / *gpus : *days * 24;
  return run;
}

Status ValidateSaving(double fraction) {
  if (!std::isfinite(fraction) || fraction >= 1) {
    return Status::InvalidArgument(
        "a compute-saved fraction must be a finite number below 1 (0.35 = 35% saved; negative "
        "= curation cost more)" +
        Got(fraction));
  }
  return Status::Ok();
}

Result<MeasuredSaving> ReadSavingFromReceipt(const std::string& path) {
  PF_ASSIGN_OR_RETURN(PilotSaving pilot, ReadPilotSaving(path));
  return pilot.saving;
}

Result<Projection> ProjectSaving(const CostRequest& request, const MeasuredSaving& saving) {
  PF_RETURN_IF_ERROR(ValidateSaving(saving.fraction));
  PF_ASSIGN_OR_RETURN(CostBreakdown base, EstimateCost(request));
  auto with_fraction = [&](double f) -> Result<CostBreakdown> {
    CostRequest r = request;
    r.hours = request.hours * (1 - f);
    return EstimateCost(r);
  };
  Projection p;
  p.saving = saving;
  PF_ASSIGN_OR_RETURN(p.projected, with_fraction(saving.fraction));
  p.gpu_hours_saved = base.gpu_hours - p.projected.gpu_hours;
  p.days_saved = base.days - p.projected.days;
  p.compute_usd_saved = base.compute_usd - p.projected.compute_usd;
  p.total_usd_saved = base.total_usd - p.projected.total_usd;
  if (saving.ci_low && saving.ci_high && *saving.ci_high < 1) {
    PF_ASSIGN_OR_RETURN(CostBreakdown low, with_fraction(*saving.ci_low));
    PF_ASSIGN_OR_RETURN(CostBreakdown high, with_fraction(*saving.ci_high));
    p.total_usd_saved_low = base.total_usd - low.total_usd;
    p.total_usd_saved_high = base.total_usd - high.total_usd;
  }
  return p;
}

}  // namespace preflight::cost
