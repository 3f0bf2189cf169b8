#include "app/cost_jobs.h"

#include <fmt/format.h>

#include <cmath>

#include "base/clock.h"
#include "base/file.h"
#include "base/number_format.h"
#include "base/sha256.h"
#include "cost/loss_law.h"
#include "ledger/ledger.h"

namespace preflight::app {
namespace {

using nlohmann::json;

std::string Got(double x) { return " (got " + FormatSci(x, 6) + ")"; }

// The compute GPU-hours derive from, when they do: --from-flops C, or 6ND from --params N and
// --tokens D.
Result<std::optional<double>> RequestedFlops(const CostRequest& r) {
  if (r.params.has_value() != r.tokens.has_value()) {
    return Status::InvalidArgument(
        "--params and --tokens go together: training compute C = 6ND needs both (or give "
        "--from-flops C)");
  }
  if (!r.params) return r.from_flops;
  if (r.from_flops) {
    return Status::InvalidArgument("give --from-flops C or --params N --tokens D, not both");
  }
  if (!(std::isfinite(*r.params) && *r.params > 0)) {
    return Status::InvalidArgument("--params must be a positive number of parameters" +
                                   Got(*r.params));
  }
  if (!(std::isfinite(*r.tokens) && *r.tokens > 0)) {
    return Status::InvalidArgument("--tokens must be a positive number of training tokens" +
                                   Got(*r.tokens));
  }
  if (r.gpus.has_value() == r.days.has_value()) {
    return Status::InvalidArgument(
        "--params and --tokens need the cluster size --gpus N or the run length --days D "
        "(exactly one; the other follows)");
  }
  return std::optional<double>(cost::TrainingFlops(*r.params, *r.tokens));
}

// Fills outcome->priced (GPUs, hours) from the compute or from --gpus and --days.
Status ShapeTheRun(const CostRequest& r, CostOutcome* outcome) {
  PF_ASSIGN_OR_RETURN(std::optional<double> flops, RequestedFlops(r));
  if (flops) {
    PF_ASSIGN_OR_RETURN(cost::RunShape run,
                        cost::RunForFlops(*flops, outcome->gpu, r.mfu, r.gpus, r.days));
    outcome->flops = *flops;
    outcome->priced.gpus = run.gpus;
    outcome->priced.hours = run.hours;
    return Status::Ok();
  }
  if (!r.gpus || !r.days) {
    return Status::InvalidArgument(
        "give --gpus N and --days D (or --from-flops C with --gpus or --days); see preflight "
        "cost --help");
  }
  outcome->priced.gpus = *r.gpus;
  outcome->priced.hours = *r.days * 24;
  return Status::Ok();
}

// The projection of a measured saving onto the priced run. A pilot read from a file brings its
// scale and regime; without an informative regime check there is no dollar interval.
Status Project(const CostRequest& r, CostOutcome* o) {
  if (!r.saving && r.saving_from.empty()) return Status::Ok();
  cost::MeasuredSaving measured;
  if (r.saving) {
    measured.fraction = *r.saving;
    measured.source = "--saving " + FormatPlain(*r.saving, 4);
    measured.detail = "a fraction given on the command line, not a receipt";
  } else {
    PF_ASSIGN_OR_RETURN(cost::PilotSaving pilot, cost::ReadPilotSaving(r.saving_from));
    measured = pilot.saving;
    o->interval_withheld = cost::DollarIntervalWithheld(pilot.regime);
    o->pilot = std::move(pilot);
  }
  PF_ASSIGN_OR_RETURN(cost::Projection p, cost::ProjectSaving(o->priced, measured));
  if (!o->interval_withheld.empty()) {
    p.total_usd_saved_low.reset();
    p.total_usd_saved_high.reset();
  }
  o->projection = std::move(p);
  return Status::Ok();
}

json ComponentsJson(const cost::CostBreakdown& b) {
  json out = json::array();
  for (const cost::CostComponent& c : b.components) {
    out.push_back(
        {{"name", c.name}, {"usd", c.usd}, {"assumption", c.assumption}, {"in_total", c.in_total}});
  }
  return out;
}

json Optional(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }

// What the pilot was and whether its regime check supports dollars: beside every dollar figure.
void AddPilotJson(const CostOutcome& o, json* out) {
  const cost::PilotScale& s = o.pilot->scale;
  const cost::PilotRegime& regime = o.pilot->regime;
  (*out)["pilot"] = {{"model", s.model ? json(*s.model) : json(nullptr)},
                     {"params", Optional(s.params)},
                     {"steps", Optional(s.steps)},
                     {"tokens", Optional(s.tokens)}};
  (*out)["regime"] = {
      {"informative", regime.informative ? json(*regime.informative) : json(nullptr)},
      {"margin", Optional(regime.margin)}};
  if (!o.interval_withheld.empty()) {
    (*out)["dollar_interval_withheld"] = o.interval_withheld;
    return;
  }
  const cost::Projection& p = *o.projection;
  json rounded = {{"compute_usd_saved", cost::RoundSignificant(p.compute_usd_saved, 2)},
                  {"total_usd_saved", cost::RoundSignificant(p.total_usd_saved, 2)},
                  {"projected_total_usd", cost::RoundSignificant(p.projected.total_usd, 2)}};
  if (p.total_usd_saved_low) {
    rounded["total_usd_saved_ci95"] = {cost::RoundSignificant(*p.total_usd_saved_low, 2),
                                       cost::RoundSignificant(*p.total_usd_saved_high, 2)};
  }
  (*out)["rounded_2sf"] = rounded;
}

json ProjectionJson(const CostOutcome& o) {
  const cost::Projection& p = *o.projection;
  json rests_on = {{"quantity", "compute_saved.net"},
                   {"value", p.saving.fraction},
                   {"source", p.saving.source},
                   {"detail", p.saving.detail}};
  if (p.saving.ci_low) rests_on["ci95"] = {*p.saving.ci_low, *p.saving.ci_high};
  json out = {{"rests_on", rests_on},
              {"gpu_hours_saved", p.gpu_hours_saved},
              {"days_saved", p.days_saved},
              {"compute_usd_saved", p.compute_usd_saved},
              {"total_usd_saved", p.total_usd_saved},
              {"projected_total_usd", p.projected.total_usd}};
  if (p.total_usd_saved_low) {
    out["total_usd_saved_ci95"] = {*p.total_usd_saved_low, *p.total_usd_saved_high};
  }
  if (o.pilot) AddPilotJson(o, &out);
  return out;
}

// Every input and assumption, for the receipt's "config".
json ReceiptConfig(const CostOutcome& o) {
  const CostRequest& r = o.request;
  const cost::CostAssumptions& a = o.priced.assumptions;
  json config = {{"gpu", o.gpu.name},
                 {"gpus", o.priced.gpus},
                 {"hours", o.priced.hours},
                 {"price_usd_per_gpu_hour", o.breakdown.price_usd_per_gpu_hour},
                 {"draw", a.average_draw},
                 {"pue", a.pue},
                 {"usd_per_kwh", a.usd_per_kwh},
                 {"owned", r.owned},
                 {"networking_fraction", a.networking_fraction},
                 {"engineers", a.engineers},
                 {"engineer_usd_per_month", a.engineer_usd_per_month},
                 {"data_usd", a.data_usd},
                 {"failure_overhead", a.failure_overhead}};
  if (r.from_flops) {
    config["from_flops"] = *r.from_flops;
    config["mfu"] = r.mfu;
  }
  if (r.params) {
    config["params"] = *r.params;
    config["tokens"] = *r.tokens;
    config["mfu"] = r.mfu;
  }
  if (r.saving) config["saving"] = *r.saving;
  if (o.keep) {
    config["from_ladder"] = r.from_ladder;
    config["keep"] = o.keep->keep;
    if (!r.from_flops && !r.params) {
      config["from_flops"] = o.keep->flops;
      config["mfu"] = r.mfu;
    }
  }
  return config;
}

// An opt-in receipt: a quick calculation should not grow the ledger, a projection that a
// decision rests on should be on record beside the trial it came from.
Result<std::string> Record(const CostOutcome& o, const CostMeter& meter) {
  json inputs = json::array();
  for (const std::string& path : {o.request.saving_from, o.request.from_ladder}) {
    if (path.empty()) continue;
    PF_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
    inputs.push_back(
        {{"path", path}, {"sha256", Sha256::Hex(bytes)}, {"docs", 1}, {"bytes", bytes.size()}});
  }
  json receipt = {{"kind", "cost"},
                  {"inputs", inputs},
                  {"config", ReceiptConfig(o)},
                  {"result", CostToJson(o)},
                  {"cost", {{"core_seconds", meter.core_seconds()}, {"flops", 0}}}};
  PF_ASSIGN_OR_RETURN(json appended, ledger::Append(o.request.ledger_path, receipt));
  return appended["hash"].get<std::string>();
}

std::string BreakdownText(const cost::CostBreakdown& b) {
  std::string out =
      fmt::format("  {:<34} {:>16}\n", "compute (GPUs x hours x price)", FormatUsd(b.compute_usd));
  for (const cost::CostComponent& c : b.components) {
    std::string name = c.in_total ? c.name : c.name + " (not added)";
    out += fmt::format("  {:<34} {:>16}\n", name, FormatUsd(c.usd));
  }
  out += fmt::format("  {:<34} {:>16}\n", "total", FormatUsd(b.total_usd));
  out += "assumptions:\n";
  for (const cost::CostComponent& c : b.components) {
    out += fmt::format("  {}: {}\n", c.name, c.assumption);
  }
  return out;
}

std::string RestsOnText(const cost::Projection& p) {
  std::string interval;
  if (p.saving.ci_low) {
    interval = " (95% interval " + FormatPlain(*p.saving.ci_low, 4) + " to " +
               FormatPlain(*p.saving.ci_high, 4) + ")";
  }
  std::string out = fmt::format("  rests on: compute saved (net) = {}{}, from {}{}{}\n",
                                FormatPlain(p.saving.fraction, 4), interval, p.saving.source,
                                p.saving.detail.empty() ? "" : "; ", p.saving.detail);
  out +=
      "  assumes the fraction measured at small scale holds for this run; that is the "
      "extrapolation.\n";
  out += fmt::format("  the same run needing {}% of its GPU-hours: {} GPU-hours, {} days saved\n",
                     FormatFixed(100 * (1 - p.saving.fraction), 1),
                     FormatFixed(p.gpu_hours_saved, 0), FormatFixed(p.days_saved, 1));
  return out;
}

// A fraction typed on the command line: exact dollars, as the arithmetic they are.
std::string GivenFractionText(const cost::Projection& p) {
  std::string out = fmt::format("  compute saved: {}; total saved: {}",
                                FormatUsd(p.compute_usd_saved), FormatUsd(p.total_usd_saved));
  if (p.total_usd_saved_low) {
    out += fmt::format(" (95% interval {} to {})", FormatUsd(*p.total_usd_saved_low),
                       FormatUsd(*p.total_usd_saved_high));
  }
  out += fmt::format("\n  projected total: {}\n", FormatUsd(p.projected.total_usd));
  return out;
}

std::string About(double usd) { return "about " + FormatUsd(cost::RoundSignificant(usd, 2)); }

// A pilot read from a file: its scale and regime beside every dollar figure, two significant
// figures, and a dollar interval only when the regime check calls the pilot informative.
std::string PilotText(const CostOutcome& o) {
  const cost::Projection& p = *o.projection;
  const std::string pilot = cost::DescribePilotScale(o.pilot->scale);
  const cost::PilotRegime& r = o.pilot->regime;
  const std::string regime = !r.informative   ? "not checked"
                             : *r.informative ? "informative"
                                              : "uninformative";
  std::string out =
      fmt::format("  pilot: {}; regime: {}\n", pilot, cost::DescribeRegime(o.pilot->regime));
  if (o.interval_withheld.empty()) {
    out += fmt::format("  projected savings for this run, from {}, regime {}:\n", pilot, regime);
    out += fmt::format("    compute {}; total {}", About(p.compute_usd_saved),
                       About(p.total_usd_saved));
    if (p.total_usd_saved_low) {
      out += fmt::format(" (95% interval {} to {})", About(*p.total_usd_saved_low),
                         About(*p.total_usd_saved_high));
    }
    out += fmt::format("\n    projected total: {} (two significant figures)\n",
                       About(p.projected.total_usd));
    return out;
  }
  out +=
      fmt::format("  arithmetic only, not a projection the pilot supports (from {}, regime {}):\n",
                  pilot, regime);
  out += fmt::format("    compute saved {}; total saved {}; the run would then cost {}\n",
                     About(p.compute_usd_saved), About(p.total_usd_saved),
                     About(p.projected.total_usd));
  out += "    " + o.interval_withheld + "\n";
  return out;
}

std::string ProjectionText(const CostOutcome& o) {
  const cost::Projection& p = *o.projection;
  std::string out = "\nprojection\n" + RestsOnText(p);
  return out + (o.pilot ? PilotText(o) : GivenFractionText(p));
}

}  // namespace

Result<CostOutcome> RunCost(const CostRequest& request) {
  CostMeter meter;
  CostOutcome o;
  o.request = request;
  if (request.record) PF_RETURN_IF_ERROR(ledger::CheckAppendable(request.ledger_path));
  PF_ASSIGN_OR_RETURN(o.gpu, cost::FindGpu(request.gpu));
  o.priced.gpu = o.gpu;
  o.priced.assumptions = request.assumptions;
  o.priced.assumptions.energy_in_price = !request.owned;
  o.priced.price_usd_per_gpu_hour = request.price ? *request.price : o.gpu.price_usd_per_gpu_hour;
  o.price_note =
      request.price ? "given" : "catalogue default for " + o.gpu.name + ": " + o.gpu.price_source;

  PF_RETURN_IF_ERROR(cost::ValidateMfu(request.mfu));
  CostRequest shaped = request;
  if (!request.from_ladder.empty()) {
    PF_ASSIGN_OR_RETURN(o.keep, cost::ReadLadderKeep(request.from_ladder));
    if (!shaped.from_flops && !shaped.params) shaped.from_flops = o.keep->flops;
  }
  PF_RETURN_IF_ERROR(ShapeTheRun(shaped, &o));
  PF_ASSIGN_OR_RETURN(o.breakdown, cost::EstimateCost(o.priced));
  PF_RETURN_IF_ERROR(Project(request, &o));
  if (request.record) {
    PF_ASSIGN_OR_RETURN(std::string hash, Record(o, meter));
    o.receipt_hash = hash;
  }
  return o;
}

json CostToJson(const CostOutcome& o) {
  const cost::CostBreakdown& b = o.breakdown;
  json doc = {{"gpu", o.gpu.name},
              {"gpus", b.gpus},
              {"days", b.days},
              {"gpu_hours", b.gpu_hours},
              {"price_usd_per_gpu_hour", b.price_usd_per_gpu_hour},
              {"price_source", o.price_note},
              {"compute_usd", b.compute_usd},
              {"total_usd", b.total_usd},
              {"components", ComponentsJson(b)}};
  if (o.flops) {
    doc["from_flops"] = {{"flops", *o.flops},
                         {"mfu", o.request.mfu},
                         {"peak_flops_per_gpu", o.gpu.bf16_dense_flops}};
  }
  if (o.request.params) {
    doc["training_flops"] = {{"params", *o.request.params},
                             {"tokens", *o.request.tokens},
                             {"flops", *o.flops},
                             {"formula", "C = 6ND"}};
  }
  if (o.projection) doc["projection"] = ProjectionJson(o);
  if (o.keep) doc["keep"] = cost::LadderKeepJson(*o.keep, std::nullopt, std::nullopt);
  if (o.receipt_hash) doc["receipt"] = *o.receipt_hash;
  return doc;
}

std::string CostText(const CostOutcome& o) {
  const cost::CostBreakdown& b = o.breakdown;
  std::string out;
  if (o.request.params) {
    out += fmt::format("{} params x {} tokens x 6 = {} training FLOPs (C = 6ND)\n",
                       FormatCount(*o.request.params), FormatCount(*o.request.tokens),
                       FormatSci(*o.flops));
  }
  if (o.flops) {
    out += fmt::format("{} FLOPs on {} at MFU {:.2f} of {} dense BF16 FLOP/s = {} GPU-hours\n",
                       FormatSci(*o.flops), o.gpu.name, o.request.mfu,
                       FormatSci(o.gpu.bf16_dense_flops), FormatFixed(b.gpu_hours, 0));
  }
  out +=
      fmt::format("{} {} GPUs x {} days = {} GPU-hours at {}/GPU-hour ({})\n",
                  FormatPlain(b.gpus, 1), o.gpu.name, FormatPlain(b.days, 1),
                  FormatFixed(b.gpu_hours, 0), FormatUsd(b.price_usd_per_gpu_hour), o.price_note);
  out += BreakdownText(b);
  if (o.keep) out += cost::LadderKeepText(*o.keep, std::nullopt);
  if (o.projection) out += ProjectionText(o);
  if (o.receipt_hash) {
    out += fmt::format("receipt {} appended to {}\n", o.receipt_hash->substr(0, 16),
                       o.request.ledger_path);
  }
  return out;
}

}  // namespace preflight::app
