#pragma once
// The trial's report.html: one self-contained page (inline CSS and SVG; no scripts, fonts,
// images or anything else fetched) that shows every arm's mean eval curve with its per-seed
// min-max band, the L* line, t_R and t_C, the table of numbers, and the lab record with its
// plain-language summary first.
//
// Elements tests and readers can rely on (stable ids): "headline", "curve-plot" (the <svg>),
// "numbers" (the table), "per-seed" (the per-seed table), "regime", "facts", "lab-record", and for
// schedule trials "schedules" (best fixed step beside the adaptive trigger).
// Inside the plot (svg_plot.h): path.mean-curve and path.seed-band carry data-arm="<name>";
// line#l-star; line.t-marker with data-arm. The tables are tables.h's. Pure function: same
// data, same bytes.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trial/metrics.h"
#include "trial/regime.h"
#include "trial/schedule_metrics.h"

namespace preflight::report {

struct ReportData {
  std::string title;       // what was tried, e.g. "dsir on brown:news"
  std::string created_at;  // shown in the footer; "" leaves it out (keeps the bytes reproducible)
  // The per-seed curves as given to trial::ComputeTrial (they draw the bands).
  std::vector<trial::Arm> arms;
  trial::TrialResult result;  // a data trial's result (not read when `schedule` is set)
  // A schedule trial's result (trial/schedule_metrics.h): the plot shows its step-axis view, the
  // tables its cumulative FLOPs, core-seconds and wall time, and section "schedules" the best
  // fixed step beside the adaptive trigger.
  std::optional<trial::ScheduleTrialResult> schedule;
  // The regime check (report/regime_section.h: section#regime); absent leaves the section out.
  std::optional<trial::Regime> regime;
  // narrate::BuildLabRecord or BuildScheduleLabRecord; an empty object leaves the section out.
  nlohmann::json lab_record;
  // Context rows shown as given (escaped), e.g. {"model", "tiny (100,096 parameters)"}.
  std::vector<std::pair<std::string, std::string>> facts;
};

// The page. Arms' names and every string are HTML-escaped. Any number of arms (>= 2).
std::string RenderTrialReport(const ReportData& data);

// Escapes & < > " ' for HTML text and attribute values.
std::string EscapeHtml(const std::string& text);

// Round tick values covering [lo, hi]: steps of 1, 2 or 5 times a power of ten, about
// `target` of them, all within [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int target);

}  // namespace preflight::report
