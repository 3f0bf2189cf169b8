#include "report/tables.h"

#include <fmt/format.h>

#include <cmath>

#include "base/number_format.h"
#include "narrate/interval.h"
#include "narrate/schedule_record.h"
#include "report/trial_report.h"

namespace preflight::report {
namespace {

using trial::Comparison;

std::string CoreSeconds(double v) { return fmt::format("{:.4g} core-s", v); }

// One table row: a heading (and its symbol) and one cell per comparison.
template <typename Column, typename Cell>
std::string Row(const std::vector<Column>& columns, const std::string& name,
                const std::string& symbol, const Cell& cell) {
  std::string s = "<tr><th scope=\"row\">" + name +
                  (symbol.empty() ? "" : " <span class=\"sym\">" + symbol + "</span>") + "</th>";
  for (const Column& c : columns) s += "<td class=\"num\">" + cell(c) + "</td>";
  return s + "</tr>\n";
}

using Cells = std::vector<std::string>;

// Opens the numbers section and table#numbers, a column per comparison (escaped headings).
std::string NumbersHead(const std::string& title, const Cells& columns) {
  std::string s = "<section aria-labelledby=\"numbers-title\">\n<h2 id=\"numbers-title\">" + title +
                  "</h2>\n<table id=\"numbers\">\n<thead><tr><th></th>";
  for (const std::string& c : columns) s += "<th class=\"num\">" + c + "</th>";
  return s + "</tr></thead>\n<tbody>\n";
}

// table#per-seed: a row a seed pair, the arm first, numbers after it.
std::string PerSeedTable(const Cells& headings, const std::vector<Cells>& rows) {
  std::string s =
      "<h2 id=\"per-seed-title\">Per seed pair</h2>\n<table id=\"per-seed\">\n<thead><tr>";
  for (size_t i = 0; i < headings.size(); ++i) {
    s += (i == 0 ? "<th>" : "<th class=\"num\">") + headings[i] + "</th>";
  }
  s += "</tr></thead>\n<tbody>\n";
  for (const Cells& row : rows) {
    s += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      s += (i == 0 ? "<td>" : "<td class=\"num\">") + row[i] + "</td>";
    }
    s += "</tr>\n";
  }
  return s + "</tbody>\n</table>\n";
}

// Seed s of each arm against seed s of the baseline.
std::string DataPerSeedTable(const trial::TrialResult& r) {
  std::vector<Cells> rows;
  for (const Comparison& c : r.comparisons) {
    for (const trial::SeedSaving& p : c.per_seed) {
      rows.push_back({EscapeHtml(c.arm), fmt::format("{}", p.seed),
                      fmt::format("{:.4f}", p.saving.l_star), FormatSteps(p.saving.t_baseline),
                      p.saving.caught_up ? FormatSteps(p.saving.t_arm) : std::string("never"),
                      FormatPercent(p.saving.gross), FormatPercent(p.saving.net)});
    }
  }
  return PerSeedTable({"arm", "seed", "L*", "t<sub>R</sub>", "t<sub>C</sub>", "gross", "net"},
                      rows);
}

// Each schedule arm's seed pairs.
std::string SchedulePerSeedTable(const trial::ScheduleTrialResult& r) {
  std::vector<Cells> rows;
  for (const auto& c : r.comparisons) {
    for (const auto& p : c.per_seed) {
      rows.push_back(
          {EscapeHtml(c.schedule), fmt::format("{}", p.seed),
           p.frozen_at >= 0 ? FormatSteps(static_cast<double>(p.frozen_at)) : std::string("never"),
           FormatSteps(static_cast<double>(p.steps)), FormatPercent(p.gross), FormatPercent(p.net),
           fmt::format("{:+.4f} bpb", p.loss_at_equal_compute)});
    }
  }
  return PerSeedTable(
             {"schedule", "seed", "frozen at", "steps", "gross", "net", "loss at equal FLOPs"},
             rows) +
         "</section>\n";
}

// The best fixed step beside the adaptive trigger.
std::string VerdictSection(const trial::ScheduleTrialResult& r) {
  std::string s;
  s += "<section id=\"schedules\" aria-labelledby=\"schedules-title\">\n"
       "<h2 id=\"schedules-title\">Fixed against adaptive</h2>\n";
  if (r.verdict.best_fixed >= 0 && r.verdict.best_adaptive >= 0) {
    s += "<p>" + EscapeHtml(narrate::ScheduleVerdictText(r)) + "</p>\n";
  } else {
    s += "<p>This trial did not put a fixed step beside an adaptive trigger; add both (e.g. "
         "<code>--sweep</code> and an adaptive <code>--arm-b</code>) to compare them.</p>\n";
  }
  s += "</section>\n";
  return s;
}

}  // namespace

std::string NumbersTable(const trial::TrialResult& r) {
  Cells columns;
  for (const Comparison& c : r.comparisons) {
    columns.push_back(EscapeHtml(c.arm) + " vs " + EscapeHtml(c.baseline));
  }
  std::string s = NumbersHead("The numbers", columns);
  auto row = [&](const std::string& name, const std::string& symbol, auto value) {
    s += Row(r.comparisons, name, symbol, value);
  };
  const int level = static_cast<int>(std::lround(r.bootstrap.level * 100));
  row("Best mean loss of the baseline", "L*",
      [](const Comparison& c) { return fmt::format("{:.4f} bpb", c.saving.l_star); });
  row("Steps for the baseline to reach L*", "t<sub>R</sub>",
      [](const Comparison& c) { return FormatSteps(c.saving.t_baseline); });
  row("Steps for the arm to reach L*", "t<sub>C</sub>", [](const Comparison& c) {
    return c.saving.caught_up ? FormatSteps(c.saving.t_arm) : std::string("never caught up");
  });
  row("Compute saved, gross", "1 \u2212 t<sub>C</sub>/t<sub>R</sub>",
      [](const Comparison& c) { return FormatPercent(c.saving.gross); });
  row(fmt::format("{}% interval, gross", level), "",
      [](const Comparison& c) { return narrate::IntervalBounds(c.ci.gross); });
  row("Compute saved, net of producing each arm",
      "1 \u2212 (t<sub>C</sub>f + c<sub>C</sub>)/(t<sub>R</sub>f + c<sub>R</sub>)",
      [](const Comparison& c) { return FormatPercent(c.saving.net); });
  row(fmt::format("{}% interval, net", level), "",
      [](const Comparison& c) { return narrate::IntervalBounds(c.ci.net); });
  row("Cost of producing the arm (selection)", "c<sub>C</sub>",
      [](const Comparison& c) { return CoreSeconds(c.arm_cost_core_seconds); });
  row("Cost of producing the baseline", "c<sub>R</sub>",
      [](const Comparison& c) { return CoreSeconds(c.baseline_cost_core_seconds); });
  row("Training cost per step", "f",
      [&](const Comparison&) { return CoreSeconds(r.core_seconds_per_step); });
  row("FLOPs per step", "", [&](const Comparison&) { return FormatFlops(r.flops_per_step); });
  row("Training FLOPs to L*, baseline", "",
      [](const Comparison& c) { return FormatFlops(c.flops_to_baseline); });
  row("Training FLOPs to L*, arm", "", [](const Comparison& c) {
    return c.saving.caught_up ? FormatFlops(c.flops_to_arm) : std::string("never");
  });
  row("Step budget", "S",
      [&](const Comparison&) { return FormatSteps(static_cast<double>(r.budget_steps)); });
  row("Bootstrap resamples never caught up", "", [](const Comparison& c) {
    return fmt::format("{} of {}", c.ci.never_caught_up, c.ci.resamples);
  });
  s += "</tbody>\n</table>\n";
  s += fmt::format(
      "<p class=\"sym\">Interval: {} percentile bootstrap resamples of the seeds ({}), splitmix64 "
      "seed {:#x}; a resample that never caught up counts as the lowest saving.</p>\n",
      r.bootstrap.resamples,
      r.bootstrap.paired ? "seed pairs resampled together" : "resampled within each arm",
      r.bootstrap.seed);

  s += DataPerSeedTable(r);
  s += "</section>\n";
  return s;
}

std::string ScheduleTables(const trial::ScheduleTrialResult& r) {
  const int level = static_cast<int>(std::lround(r.bootstrap.level * 100));
  Cells columns;
  for (const auto& c : r.comparisons) columns.push_back(EscapeHtml(c.schedule));
  std::string s = NumbersHead("The numbers (compute axis: cumulative training FLOPs)", columns);
  auto row = [&](const std::string& name, const std::string& symbol, auto value) {
    s += Row(r.comparisons, name, symbol, value);
  };
  using SC = trial::ScheduleComparison;
  auto pct = [](double v) { return FormatPercent(v); };
  row("Kind", "", [](const SC& c) { return EscapeHtml(c.kind); });
  row("Frozen from step (mean over runs)", "", [](const SC& c) {
    if (c.kind == "earlystop") return fmt::format("{} runs stopped early", c.stopped_runs);
    return c.frozen_runs > 0 ? fmt::format("{} ({} runs)", FormatSteps(c.frozen_at), c.frozen_runs)
                             : std::string("never");
  });
  row("Best mean loss of the baseline", "L*",
      [](const SC& c) { return fmt::format("{:.4f} bpb", c.l_star); });
  row("Baseline reaches L* at step", "t<sub>R</sub>",
      [](const SC& c) { return FormatSteps(c.t_baseline); });
  row("Arm reaches L* at step", "t<sub>C</sub>", [](const SC& c) {
    return c.caught_up ? FormatSteps(c.t_arm) : std::string("never caught up");
  });
  row("Training FLOPs to L*, baseline", "F<sub>R</sub>",
      [](const SC& c) { return FormatFlops(c.flops_baseline); });
  row("Training FLOPs to L*, arm", "F<sub>C</sub>",
      [](const SC& c) { return c.caught_up ? FormatFlops(c.flops_arm) : std::string("never"); });
  row("Trigger's own cost per run", "", [](const SC& c) {
    return fmt::format("{} ({:.3g} core-s)", FormatFlops(c.trigger_flops), c.trigger_core_seconds);
  });
  row("FLOPs saved, gross", "1 \u2212 F<sub>C</sub>/F<sub>R</sub>",
      [&](const SC& c) { return pct(c.gross); });
  row(fmt::format("{}% interval, gross", level), "",
      [](const SC& c) { return narrate::IntervalBounds(c.ci.gross); });
  row("FLOPs saved, net of the trigger", "", [&](const SC& c) { return pct(c.net); });
  row(fmt::format("{}% interval, net", level), "",
      [](const SC& c) { return narrate::IntervalBounds(c.ci.net); });
  row("Core-seconds saved (measured, trigger charged)", "",
      [&](const SC& c) { return pct(c.net_core_seconds); });
  row("Wall time saved (measured, trigger charged)", "",
      [&](const SC& c) { return pct(c.net_wall); });
  row("Training FLOPs of the whole run, arm / baseline", "", [](const SC& c) {
    return FormatFlops(c.total_flops_arm) + " / " + FormatFlops(c.total_flops_baseline);
  });
  row("Final loss minus baseline's at equal FLOPs", "",
      [](const SC& c) { return fmt::format("{:+.4f} bpb", c.loss_at_equal_compute); });
  row("Bootstrap resamples never caught up", "",
      [](const SC& c) { return fmt::format("{} of {}", c.ci.never_caught_up, c.ci.resamples); });
  s += "</tbody>\n</table>\n";
  s += fmt::format(
      "<p class=\"sym\">Interval: {} percentile bootstrap resamples of the seed pairs (same "
      "data and seeds in both arms), splitmix64 seed {:#x}. Both arms train on the same data, "
      "so its cost is not charged.</p>\n",
      r.bootstrap.resamples, r.bootstrap.seed);
  s += SchedulePerSeedTable(r);
  return s + VerdictSection(r);
}

}  // namespace preflight::report
