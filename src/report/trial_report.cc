#include "report/trial_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "base/version.h"
#include "narrate/interval.h"
#include "report/page_sections.h"
#include "report/regime_section.h"
#include "report/svg_plot.h"
#include "report/tables.h"

namespace preflight::report {
namespace {

using trial::Comparison;

// What the page shows: the data, and the result on the step axis (a schedule trial's view).
struct Page {
  const ReportData& data;
  trial::TrialResult view;
  const trial::ScheduleTrialResult* schedule;  // nullptr: a data trial
};

std::string Css() {
  return R"(
:root { --ink:#1f2328; --muted:#59636e; --rule:#d8dee4; --paper:#ffffff; --bg:#f6f7f9; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font: 16px/1.55 "Liberation Sans", "DejaVu Sans", system-ui, -apple-system, "Segoe UI",
        Roboto, Arial, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 28px 40px; }
header h1 { font-size: 28px; line-height:1.2; margin: 0 0 4px; letter-spacing:-0.01em; }
header p.sub { margin:0; color:var(--muted); }
section { background:var(--paper); border:1px solid var(--rule); border-radius:10px;
  padding: 20px 24px; margin-top: 20px; }
h2 { font-size: 19px; margin: 0 0 12px; }
#headline { display:flex; gap:28px; align-items:flex-start; flex-wrap:wrap; }
#headline .big { min-width: 230px; }
#headline .value { font-size: 44px; font-weight: 700; line-height: 1.05;
  font-variant-numeric: tabular-nums; }
#headline .label { color: var(--muted); font-size: 14px; text-transform: uppercase;
  letter-spacing: 0.04em; }
#headline .detail { font-size: 15px; color: var(--muted); font-variant-numeric: tabular-nums; }
#headline p.summary { flex: 1 1 420px; margin: 0; font-size: 17px; }
.good { color:#1a7f37; } .bad { color:#b42318; } .flat { color:#8a5f00; }
#legend { display:flex; flex-wrap:wrap; gap: 6px 22px; margin: 0 0 8px; padding:0;
  list-style:none; font-size:15px; }
#legend li { display:flex; align-items:center; gap:8px; }
#legend .note { color: var(--muted); }
svg#curve-plot { width:100%; height:auto; display:block; }
svg text { font-family: "Liberation Sans", "DejaVu Sans", Arial, sans-serif; fill:#1f2328; }
figure { margin:0; }
figcaption { color:var(--muted); font-size:14px; margin-top:6px; }
caption { text-align:left; font-weight:600; padding: 10px 0 4px; }
code { font-size: 13px; }
#provenance code { overflow-wrap: anywhere; }
table { border-collapse: collapse; width:100%; font-variant-numeric: tabular-nums; }
th, td { text-align:left; padding: 7px 10px; border-bottom:1px solid var(--rule);
  vertical-align: top; }
thead th { font-size:14px; color:var(--muted); font-weight:600; border-bottom:2px solid var(--rule); }
td.num, th.num { text-align:right; white-space:nowrap; }
tbody th { font-weight: 500; }
.sym { color: var(--muted); font-size: 14px; }
#lab-record dl { margin: 0; }
#lab-record dt { font-weight: 700; margin-top: 14px; }
#lab-record dd { margin: 4px 0 0; }
#lab-record p.summary { font-size: 17px; margin: 0; padding: 10px 14px; background:#f1f6fb;
  border-left: 4px solid #0072B2; border-radius: 4px; }
footer { color: var(--muted); font-size: 13px; margin-top: 22px; }
)";
}

std::string ClassFor(const trial::Saving& s, double value) {
  if (!s.caught_up || std::isnan(value)) return "bad";
  return value > 0 ? "good" : (value == 0 ? "flat" : "bad");
}

std::string Headline(const Page& p) {
  const trial::TrialResult& r = p.view;
  std::string s = "<section id=\"headline\" aria-label=\"Headline\">\n";
  if (!r.comparisons.empty()) {
    const Comparison& c = r.comparisons[0];
    const double level = r.bootstrap.level * 100;
    if (c.saving.caught_up) {
      s += fmt::format(
          "<div class=\"big\"><div class=\"label\">{}</div>"
          "<div class=\"value {}\">{}</div><div class=\"detail\">{:g}% interval {}</div></div>\n",
          p.schedule != nullptr ? "Training FLOPs saved to L*, net (" + EscapeHtml(c.arm) + ")"
                                : std::string("Compute saved, net"),
          ClassFor(c.saving, c.saving.net), FormatPercent(c.saving.net), level,
          narrate::IntervalBounds(c.ci.net));
      s += fmt::format(
          "<div class=\"big\"><div class=\"label\">{}</div>"
          "<div class=\"value {}\">{}</div><div class=\"detail\">{:g}% interval {}</div></div>\n",
          p.schedule != nullptr ? "Gross (before the trigger's cost)"
                                : "Gross (before selection cost)",
          ClassFor(c.saving, c.saving.gross), FormatPercent(c.saving.gross), level,
          narrate::IntervalBounds(c.ci.gross));
    } else {
      s += fmt::format(
          "<div class=\"big\"><div class=\"label\">Compute saved</div>"
          "<div class=\"value bad\">Never caught up</div><div class=\"detail\">{} did not reach "
          "L* within {} steps</div></div>\n",
          EscapeHtml(c.arm), FormatSteps(static_cast<double>(r.budget_steps)));
    }
  }
  if (p.data.lab_record.contains("summary") && p.data.lab_record["summary"].is_string()) {
    s += "<p class=\"summary\">" + EscapeHtml(p.data.lab_record["summary"].get<std::string>()) +
         "</p>\n";
  }
  s += "</section>\n";
  return s;
}

std::string Legend(const Page& p) {
  const trial::TrialResult& r = p.view;
  std::string s = "<ul id=\"legend\">\n";
  for (size_t a = 0; a < r.arms.size(); ++a) {
    const Palette& c = ColourOf(a, r.baseline);
    size_t seeds = a < p.data.arms.size() ? p.data.arms[a].curves.size() : 1;
    std::string note = a == r.baseline ? "baseline, sets L*" : "";
    for (const Comparison& k : r.comparisons) {
      if (k.arm == r.arms[a].name && !k.saving.caught_up) note = "never caught up";
    }
    std::string kind =
        r.arms[a].data_kind +
        (r.arms[a].schedule.empty() ? std::string() : ", schedule " + r.arms[a].schedule);
    s += fmt::format(
        "<li><svg width=\"34\" height=\"14\" aria-hidden=\"true\"><rect x=\"0\" y=\"1\" "
        "width=\"34\" height=\"12\" fill=\"{0}\" fill-opacity=\"0.16\"/><line x1=\"0\" x2=\"34\" "
        "y1=\"7\" y2=\"7\" stroke=\"{0}\" stroke-width=\"3\"{1}/></svg><span><strong>{2}</strong> "
        "<span class=\"note\">({3}; mean of {4} seed{5}{6})</span></span></li>\n",
        c.line, DashAttribute(c), EscapeHtml(r.arms[a].name), EscapeHtml(kind), seeds,
        seeds == 1 ? "" : "s", note.empty() ? "" : "; " + note);
  }
  s += "</ul>\n";
  return s;
}

std::string LabRecord(const nlohmann::json& rec, bool schedule) {
  if (!rec.is_object() || rec.empty()) return "";
  auto text = [&](const char* key) {
    return rec.contains(key) && rec[key].is_string() ? EscapeHtml(rec[key].get<std::string>())
                                                     : std::string();
  };
  std::string s = "<section id=\"lab-record\" aria-labelledby=\"lab-title\">\n";
  s += "<h2 id=\"lab-title\">Lab record</h2>\n";
  s += "<p class=\"summary\">" + text("summary") + "</p>\n<dl>\n";
  s += "<dt>Question</dt><dd>" + text("question") + "</dd>\n";
  s += std::string("<dt>What would have proved ") + (schedule ? "the schedule" : "curation") +
       " wrong (fixed before training)</dt><dd>" + text("falsifier") + "</dd>\n";
  s += "<dt>Finding</dt><dd>" + text("finding") + "</dd>\n";
  if (rec.contains("does_not_show") && rec["does_not_show"].is_array()) {
    s += "<dt>What this does not show</dt><dd><ul>\n";
    for (const auto& item : rec["does_not_show"]) {
      if (item.is_string()) s += "<li>" + EscapeHtml(item.get<std::string>()) + "</li>\n";
    }
    s += "</ul></dd>\n";
  }
  s += "</dl>\n</section>\n";
  return s;
}

}  // namespace

std::string EscapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo) || target < 1) return {lo};
  double raw = (hi - lo) / target;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power * 10;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * 0.999) {
      step = m * power;
      break;
    }
  }
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    double v = k * step;
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string RenderTrialReport(const ReportData& d) {
  const Page page{d, d.schedule ? trial::ScheduleTrialAsTrialResult(*d.schedule) : d.result,
                  d.schedule ? &*d.schedule : nullptr};
  std::string title = d.title.empty() ? "trial" : d.title;
  std::string s;
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += "<title>preflight trial: " + EscapeHtml(title) + "</title>\n";
  s += "<style>" + Css() + "</style>\n</head>\n<body>\n<main>\n";
  s += "<header><h1>preflight trial</h1><p class=\"sub\">" + EscapeHtml(title) + "</p></header>\n";
  if (page.view.mean_curves.size() < 2) {
    s += "<section><p>This trial has fewer than two arms: nothing to compare.</p></section>\n";
  } else {
    s += Headline(page);
    const Plot plot = PlotSvg(page.view, d.arms);
    s += "<section aria-labelledby=\"plot-heading\">\n<h2 id=\"plot-heading\">Held-out loss "
         "during training</h2>\n";
    s += Legend(page);
    s += "<figure>\n" + plot.svg;
    s += "<figcaption>Lines: each arm's mean over seeds; shaded: the range from the best to the "
         "worst seed at each eval step. Dashed: L*, the baseline's best mean loss. Dotted "
         "verticals: the steps at which each arm first reaches L* (t<sub>C</sub> is "
         "interpolated between eval points).";
    if (plot.clipped) {
      s += fmt::format(" Losses above {:g} bits per byte (the first steps) run off the top.",
                       plot.clip_at);
    }
    s += "</figcaption>\n</figure>\n</section>\n";
    s += page.schedule != nullptr ? ScheduleTables(*page.schedule) : NumbersTable(page.view);
  }
  if (d.forecast) s += ForecastTestedSection(*d.forecast);
  if (d.regime) s += RegimeSection(*d.regime);
  if (d.selection) s += SelectionSection(*d.selection);
  if (!d.facts.empty()) {
    s += "<section aria-labelledby=\"facts-title\"><h2 id=\"facts-title\">Setup</h2>\n"
         "<table id=\"facts\"><tbody>\n";
    for (const auto& [k, v] : d.facts) {
      s += "<tr><th scope=\"row\">" + EscapeHtml(k) + "</th><td>" + EscapeHtml(v) + "</td></tr>\n";
    }
    s += "</tbody></table></section>\n";
  }
  if (d.provenance) s += ProvenanceSection(*d.provenance);
  s += LabRecord(d.lab_record, page.schedule != nullptr);
  s += fmt::format(
      "<footer>Written by preflight {} ({}){}. Self-contained: no scripts, nothing "
      "fetched.</footer>\n",
      kVersion, kGitCommit, d.created_at.empty() ? "" : " on " + EscapeHtml(d.created_at));
  s += "</main>\n</body>\n</html>\n";
  return s;
}

}  // namespace preflight::report
