// preflight cost: dollars for GPUs x hours x price, every other cost as its own line with its
// assumption, and projections of a measured compute saving. The work is in src/cost/.

#include <cstdio>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/file.h"
#include "base/format.h"
#include "base/sha256.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/cost_estimate.h"
#include "cost/hardware_catalog.h"
#include "ledger/ledger.h"

namespace preflight::cli {
namespace {

using nlohmann::json;

json ComponentsJson(const cost::CostBreakdown& b) {
  json out = json::array();
  for (const cost::CostComponent& c : b.components) {
    out.push_back(
        {{"name", c.name}, {"usd", c.usd}, {"assumption", c.assumption}, {"in_total", c.in_total}});
  }
  return out;
}

void PrintBreakdown(std::FILE* out, const cost::CostBreakdown& b) {
  std::fprintf(out, "  %-34s %16s\n", "compute (GPUs x hours x price)",
               FormatUsd(b.compute_usd).c_str());
  for (const cost::CostComponent& c : b.components) {
    std::string name = c.in_total ? c.name : c.name + " (not added)";
    std::fprintf(out, "  %-34s %16s\n", name.c_str(), FormatUsd(c.usd).c_str());
  }
  std::fprintf(out, "  %-34s %16s\n", "total", FormatUsd(b.total_usd).c_str());
}

}  // namespace

int RunCost(int argc, char** argv) {
  CLI::App app;
  Describe(app, "cost",
           "Dollars for a training run: GPUs x hours x price per GPU-hour, then energy, "
           "networking, engineering, data and failed experiments as separate lines, each with "
           "its assumption. Every default is printed and has a flag.");
  std::optional<double> gpus, days, price, from_flops, saving;
  std::string gpu_name = "H100-SXM", saving_from;
  double mfu = 0.4;
  bool as_json = false;
  cost::CostAssumptions a;
  bool owned = false, record = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
  CostMeter meter;
  app.add_option("--gpus", gpus, "number of GPUs in the cluster");
  app.add_option("--days", days, "wall-clock days of the run");
  app.add_option("--price", price, "dollars per GPU-hour (default: the catalogue's for --gpu)");
  app.add_option("--gpu", gpu_name, "GPU from the catalogue: " + cost::KnownGpuNames())
      ->capture_default_str();
  app.add_option("--from-flops", from_flops,
                 "derive GPU-hours from a FLOP count at --mfu of --gpu's dense BF16 peak "
                 "(then give --gpus or --days, not both)");
  app.add_option("--mfu", mfu, "model-FLOP utilisation for --from-flops, in (0, 1]")
      ->capture_default_str();
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
  auto* saving_opt = app.add_option("--saving", saving,
                                    "project a compute-saved fraction (0.35 = 35%) onto this run");
  app.add_option("--saving-from", saving_from,
                 "project the measured result.compute_saved.net of a trial receipt")
      ->excludes(saving_opt);
  app.add_flag("--record", record, "append a receipt of kind 'cost' to the ledger");
  app.add_option("--ledger", ledger_path, "receipt ledger for --record")->capture_default_str();
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  auto gpu = cost::FindGpu(gpu_name);
  if (!gpu.ok()) return Fail("cost", gpu.status());
  a.energy_in_price = !owned;

  cost::CostRequest request;
  request.gpu = *gpu;
  request.assumptions = a;
  request.price_usd_per_gpu_hour = price ? *price : gpu->price_usd_per_gpu_hour;
  const std::string price_note =
      price ? "given" : "catalogue default for " + gpu->name + ": " + gpu->price_source;

  // --mfu is checked even when unused, so that a typo never passes silently.
  if (Status st = cost::ValidateMfu(mfu); !st.ok()) return Fail("cost", st);
  std::optional<double> gpu_hours_from_flops;
  if (from_flops) {
    auto run = cost::RunForFlops(*from_flops, *gpu, mfu, gpus, days);
    if (!run.ok()) return Fail("cost", run.status());
    gpu_hours_from_flops = run->gpu_hours;
    request.gpus = run->gpus;
    request.hours = run->hours;
  } else {
    if (!gpus || !days) {
      return Fail("cost", Status::InvalidArgument(
                              "give --gpus N and --days D (or --from-flops C with --gpus or "
                              "--days); see preflight cost --help"));
    }
    request.gpus = *gpus;
    request.hours = *days * 24;
  }
  auto breakdown = cost::EstimateCost(request);
  if (!breakdown.ok()) return Fail("cost", breakdown.status());

  std::optional<cost::Projection> projection;
  if (saving || !saving_from.empty()) {
    cost::MeasuredSaving measured;
    if (saving) {
      measured.fraction = *saving;
      measured.source = "--saving " + FormatPlain(*saving, 4);
      measured.detail = "a fraction given on the command line, not a receipt";
    } else {
      auto read = cost::ReadSavingFromReceipt(saving_from);
      if (!read.ok()) return Fail("cost", read.status());
      measured = *read;
    }
    auto p = cost::ProjectSaving(request, measured);
    if (!p.ok()) return Fail("cost", p.status());
    projection = *p;
  }

  // The human report goes to stdout, or to stderr when stdout carries the JSON document.
  std::FILE* out = as_json ? stderr : stdout;
  const cost::CostBreakdown& b = *breakdown;
  if (gpu_hours_from_flops) {
    std::fprintf(out, "%s FLOPs on %s at MFU %.2f of %s dense BF16 FLOP/s = %s GPU-hours\n",
                 FormatSci(*from_flops).c_str(), gpu->name.c_str(), mfu,
                 FormatSci(gpu->bf16_dense_flops).c_str(), FormatFixed(b.gpu_hours, 0).c_str());
  }
  std::fprintf(out, "%s %s GPUs x %s days = %s GPU-hours at %s/GPU-hour (%s)\n",
               FormatPlain(b.gpus, 1).c_str(), gpu->name.c_str(), FormatPlain(b.days, 1).c_str(),
               FormatFixed(b.gpu_hours, 0).c_str(), FormatUsd(b.price_usd_per_gpu_hour).c_str(),
               price_note.c_str());
  PrintBreakdown(out, b);
  std::fprintf(out, "assumptions:\n");
  for (const cost::CostComponent& c : b.components) {
    std::fprintf(out, "  %s: %s\n", c.name.c_str(), c.assumption.c_str());
  }
  if (projection) {
    const cost::Projection& p = *projection;
    std::fprintf(out, "\nprojection\n");
    std::fprintf(out, "  rests on: compute saved (net) = %s%s, from %s%s%s\n",
                 FormatPlain(p.saving.fraction, 4).c_str(),
                 p.saving.ci_low ? (" (95% interval " + FormatPlain(*p.saving.ci_low, 4) + " to " +
                                    FormatPlain(*p.saving.ci_high, 4) + ")")
                                       .c_str()
                                 : "",
                 p.saving.source.c_str(), p.saving.detail.empty() ? "" : "; ",
                 p.saving.detail.c_str());
    std::fprintf(out,
                 "  assumes the fraction measured at small scale holds for this run; that is "
                 "the extrapolation.\n");
    std::fprintf(out, "  the same run needing %s of its GPU-hours: %s GPU-hours, %s days saved\n",
                 FormatFixed(100 * (1 - p.saving.fraction), 1).append("%").c_str(),
                 FormatFixed(p.gpu_hours_saved, 0).c_str(), FormatFixed(p.days_saved, 1).c_str());
    std::fprintf(out, "  compute saved: %s; total saved: %s",
                 FormatUsd(p.compute_usd_saved).c_str(), FormatUsd(p.total_usd_saved).c_str());
    if (p.total_usd_saved_low) {
      std::fprintf(out, " (95%% interval %s to %s)", FormatUsd(*p.total_usd_saved_low).c_str(),
                   FormatUsd(*p.total_usd_saved_high).c_str());
    }
    std::fprintf(out, "\n  projected total: %s\n", FormatUsd(p.projected.total_usd).c_str());
  }

  json doc = {{"gpu", gpu->name},
              {"gpus", b.gpus},
              {"days", b.days},
              {"gpu_hours", b.gpu_hours},
              {"price_usd_per_gpu_hour", b.price_usd_per_gpu_hour},
              {"price_source", price_note},
              {"compute_usd", b.compute_usd},
              {"total_usd", b.total_usd},
              {"components", ComponentsJson(b)}};
  if (gpu_hours_from_flops) {
    doc["from_flops"] = {
        {"flops", *from_flops}, {"mfu", mfu}, {"peak_flops_per_gpu", gpu->bf16_dense_flops}};
  }
  if (projection) {
    const cost::Projection& p = *projection;
    json rests_on = {{"quantity", "compute_saved.net"},
                     {"value", p.saving.fraction},
                     {"source", p.saving.source},
                     {"detail", p.saving.detail}};
    if (p.saving.ci_low) rests_on["ci95"] = {*p.saving.ci_low, *p.saving.ci_high};
    doc["projection"] = {{"rests_on", rests_on},
                         {"gpu_hours_saved", p.gpu_hours_saved},
                         {"days_saved", p.days_saved},
                         {"compute_usd_saved", p.compute_usd_saved},
                         {"total_usd_saved", p.total_usd_saved},
                         {"projected_total_usd", p.projected.total_usd}};
    if (p.total_usd_saved_low) {
      doc["projection"]["total_usd_saved_ci95"] = {*p.total_usd_saved_low, *p.total_usd_saved_high};
    }
  }

  // An opt-in receipt: a quick calculation should not grow the ledger, a projection that a
  // decision rests on should be on record beside the trial it came from.
  if (record) {
    json inputs = json::array();
    if (!saving_from.empty()) {
      auto bytes = ReadFileToString(saving_from);
      if (!bytes.ok()) return Fail("cost", bytes.status());
      inputs.push_back({{"path", saving_from},
                        {"sha256", Sha256::Hex(*bytes)},
                        {"docs", 1},
                        {"bytes", bytes->size()}});
    }
    json config = {{"gpu", gpu->name},
                   {"gpus", request.gpus},
                   {"hours", request.hours},
                   {"price_usd_per_gpu_hour", b.price_usd_per_gpu_hour},
                   {"draw", a.average_draw},
                   {"pue", a.pue},
                   {"usd_per_kwh", a.usd_per_kwh},
                   {"owned", owned},
                   {"networking_fraction", a.networking_fraction},
                   {"engineers", a.engineers},
                   {"engineer_usd_per_month", a.engineer_usd_per_month},
                   {"data_usd", a.data_usd},
                   {"failure_overhead", a.failure_overhead}};
    if (from_flops) {
      config["from_flops"] = *from_flops;
      config["mfu"] = mfu;
    }
    if (saving) config["saving"] = *saving;
    json receipt = {{"kind", "cost"},
                    {"inputs", inputs},
                    {"config", config},
                    {"result", doc},
                    {"cost", {{"core_seconds", meter.core_seconds()}, {"flops", 0}}}};
    auto appended = ledger::Append(ledger_path, receipt);
    if (!appended.ok()) return Fail("cost", appended.status());
    doc["receipt"] = (*appended)["hash"];
    std::fprintf(out, "receipt %s appended to %s\n",
                 (*appended)["hash"].get<std::string>().substr(0, 16).c_str(), ledger_path.c_str());
  }
  if (as_json) EmitJson(doc);
  return 0;
}

}  // namespace preflight::cli
