#include "narrate/summary.h"

#include <fmt/format.h>

#include <cmath>

#include "base/number_format.h"
#include "narrate/interval.h"

namespace preflight::narrate {
namespace {

std::string ScheduleRow(const std::string& schedule, const std::string& frozen,
                        const std::string& flops, const std::string& t_arm,
                        const std::string& flops_net, const std::string& core_net,
                        const std::string& wall_net, const std::string& at_equal) {
  return fmt::format("  {:<44} {:>8} {:>8} {:>6} {:>10} {:>8} {:>8} {:>14}\n", schedule, frozen,
                     flops, t_arm, flops_net, core_net, wall_net, at_equal);
}

std::string ScheduleRowOf(const trial::ScheduleComparison& c) {
  const std::string frozen = c.kind == "earlystop" ? std::to_string(c.stopped_runs) + " stop"
                             : c.frozen_runs > 0   ? FormatSteps(std::round(c.frozen_at))
                                                   : std::string("never");
  auto saved = [&](double v) { return c.caught_up ? FormatPercent(v) : std::string("never"); };
  return ScheduleRow(c.schedule, frozen,
                     FormatPercent(c.total_flops_arm / c.total_flops_baseline - 1.0),
                     c.caught_up ? FormatSteps(c.t_arm) : std::string("never"), saved(c.net),
                     saved(c.net_core_seconds), saved(c.net_wall),
                     fmt::format("{:+.4f} bpb", c.loss_at_equal_compute));
}

}  // namespace

std::string TrialNumbersText(const trial::TrialResult& r, const std::string& charged) {
  if (r.comparisons.empty()) return "";
  const trial::Comparison& c = r.comparisons[0];
  const trial::Saving& s = c.saving;
  std::string out = fmt::format(
      "  L* (best random-arm loss)  {:.4f} bits/byte at step {}\n"
      "  curated arm reaches it at  {}\n"
      "  compute saved, gross       {}\n"
      "  compute saved, net         {}   ({}; {} charged{})\n",
      s.l_star, FormatSteps(s.t_baseline),
      s.caught_up ? "step " + FormatSteps(s.t_arm) : std::string("never (within the budget)"),
      FormatPercent(s.gross), FormatPercent(s.net), IntervalSentence(c.ci.net, r.bootstrap.level),
      charged, r.prices.unit == "USD" ? " in dollars" : "");
  if (r.prices.unit == "USD") {  // a launched trainer's net: what it priced, in dollars
    const trial::NetPrices& p = r.prices;
    out += fmt::format(
        "  net priced in dollars      a training step ${:.3g} (f {:.3g} s at ${:.2f} per "
        "device-hour)\n"
        "                             arms ${:.3g} curated, ${:.3g} random (${:.4g} per "
        "core-hour)\n",
        r.core_seconds_per_step * p.step_second, r.core_seconds_per_step, p.step_second * 3600,
        c.arm_cost_core_seconds * p.core_second, c.baseline_cost_core_seconds * p.core_second,
        p.core_second * 3600);
  }
  for (size_t i = 1; i < r.comparisons.size(); ++i) {
    const trial::Comparison& o = r.comparisons[i];
    out +=
        fmt::format("  {:<26} {} net\n", o.arm + " vs " + o.baseline, FormatPercent(o.saving.net));
  }
  return out;
}

std::string ScheduleNumbersText(const trial::ScheduleTrialResult& r) {
  std::string out = ScheduleRow("schedule", "frozen@", "FLOPs", "t_C", "FLOPs net", "core-s",
                                "wall", "at equal FLOPs");
  for (const trial::ScheduleComparison& c : r.comparisons) out += ScheduleRowOf(c);
  if (!r.comparisons.empty()) {
    out += fmt::format("  baseline reaches L* = {:.4f} bits/byte at step {}\n",
                       r.comparisons[0].l_star, FormatSteps(r.comparisons[0].t_baseline));
  }
  return out;
}

}  // namespace preflight::narrate
