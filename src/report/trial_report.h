#pragma once
// The trial's report.html: one self-contained page (inline CSS and SVG; no scripts, fonts,
// images or anything else fetched) that shows every arm's mean eval curve with its per-seed
// min-max band, the L* line, t_R and t_C, the table of numbers, and the lab record with its
// plain-language summary first.
//
// Elements tests and readers can rely on (stable ids): "headline", "curve-plot" (the <svg>),
// "numbers" (the table), "per-seed" (the per-seed table), "regime", "facts", "lab-record", and for
// schedule trials "schedules" (best fixed step beside the adaptive trigger). Sections present only
// when their data is (page_sections.h):
//   "forecast-tested"  the forecast the trial tested: verdict, predicted net saving, and right or
//                      wrong against the measured net saving (span.good / span.bad / span.flat);
//   "provenance"       the trial's receipt hash and table#inputs (role, path, SHA-256 of each
//                      input file: pool, T_sel, T_eval);
//   "selected"         what the selection kept: table#selected-highest and table#selected-lowest
//                      (id, score, escaped excerpt), and table#selected-shares (the kept
//                      documents' share by a source-like field).
// Inside the plot (svg_plot.h): path.mean-curve and path.seed-band carry data-arm="<name>";
// line#l-star; line.t-marker with data-arm. The tables are tables.h's. Pure function: same
// data, same bytes.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trial/metrics.h"
#include "trial/regime.h"
#include "trial/schedule_metrics.h"

namespace preflight::report {

// The forecast a trial tested (doc/design.md: "Forecast correct").
struct ForecastTested {
  std::string receipt;  // the forecast receipt's hash
  std::string verdict;  // "curate", "random", "uncertain"; "" when only the receipt is known
  std::optional<double> predicted_saving;  // net, in [-1, 1]
  std::optional<std::pair<double, double>> interval;
  std::optional<double> measured_net;  // nullopt: never caught up (counts as <= 0)
  std::optional<bool> correct;         // nullopt: an abstention, or no verdict known
};

// One input file as the trial's receipt lists it.
struct InputFile {
  std::string role;  // "pool", "target_select", "target_eval"
  std::string path;
  std::string sha256;
  uint64_t docs = 0, bytes = 0;
};

// The trial's receipt and what it was computed from.
struct Provenance {
  std::string receipt;  // "" before the receipt exists
  std::vector<InputFile> inputs;
};

// A document the selection explains itself by (its manifest's "explain").
struct SelectedDoc {
  std::string id;
  double score = 0;
  std::string excerpt;  // the first characters of its text; "" when not found within the bound
};

// What the selected arm holds.
struct Selection {
  std::string arm;       // e.g. "curated"
  std::string selector;  // e.g. "dsir"
  std::vector<SelectedDoc> highest;  // the highest-scored kept documents, highest first
  std::vector<SelectedDoc> lowest;   // the lowest-scored documents, lowest first
  std::string lowest_label;  // what `lowest` are, e.g. "Lowest-scored kept documents"
  // The kept documents' share by a source-like field ("" when none had one): value and count,
  // most common first, over `share_docs` documents read (`share_partial`: the first ones only).
  std::string share_field;
  std::vector<std::pair<std::string, uint64_t>> shares;
  uint64_t share_docs = 0;
  bool share_partial = false;
};

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
  // The forecast the trial tested (section#forecast-tested); absent leaves the section out.
  std::optional<ForecastTested> forecast;
  // The receipt and input hashes (section#provenance); absent leaves the section out.
  std::optional<Provenance> provenance;
  // What was selected (section#selected); absent leaves the section out.
  std::optional<Selection> selection;
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
