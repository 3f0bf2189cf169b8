#include "report/ledger_site.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/number_format.h"
#include "report/ledger_site_plot.h"
#include "report/svg_plot.h"
#include "report/trial_report.h"

namespace preflight::report {
namespace {

// The trial report's Okabe-Ito palette (svg_plot.h): blue draws, green marks a right forecast,
// vermillion a wrong one.
const char* Blue() { return ColourOf(0, 0).line; }
const char* Vermillion() { return ColourOf(1, 0).line; }
const char* Green() { return ColourOf(2, 0).line; }

std::string Esc(const std::string& s) { return EscapeHtml(s); }

std::string Pct(const std::optional<double>& v) { return v ? FormatPercent(*v) : "—"; }

std::string Range(const std::optional<Bounds>& b) {
  return b ? FormatPercent(b->first) + " to " + FormatPercent(b->second) : "";
}

// "receipt 0123456789abcdef": what every number's title says.
std::string From(const std::string& hash) { return "receipt " + HashPrefix(hash); }

// A table cell holding a number, titled with the receipt it came from.
std::string NumCell(const std::string& text, const std::string& hash,
                    const std::string& cls = "num") {
  return fmt::format("<td class=\"{}\" title=\"{}\">{}</td>", cls, Esc(From(hash)), text);
}

std::string HashCell(const std::string& hash, const std::string& href = "") {
  std::string code = "<code>" + Esc(HashPrefix(hash)) + "</code>";
  if (!href.empty()) code = "<a href=\"" + Esc(href) + "\">" + code + "</a>";
  return "<td class=\"hash\" title=\"" + Esc(hash) + "\">" + code + "</td>";
}

// A file: URL for an absolute path, percent-encoding all but unreserved characters and '/'.
std::string FileUrl(const std::string& path) {
  std::string url = "file://";
  for (unsigned char ch : path) {
    if (std::isalnum(ch) || ch == '/' || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      url += static_cast<char>(ch);
    } else {
      url += fmt::format("%{:02X}", ch);
    }
  }
  return url;
}

std::string Css() {
  return R"(
:root { --ink:#1f2328; --muted:#59636e; --rule:#d8dee4; --paper:#ffffff; --bg:#f6f7f9; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font: 15px/1.5 "Liberation Sans", "DejaVu Sans", system-ui, Arial, sans-serif; }
main { max-width: 1160px; margin: 0 auto; padding: 24px 24px 36px; }
header h1 { font-size: 26px; line-height:1.2; margin: 0 0 4px; }
header p.sub, p.note { margin:0; color:var(--muted); }
section { background:var(--paper); border:1px solid var(--rule); border-radius:10px;
  padding: 16px 20px; margin-top: 18px; overflow-x: auto; }
h2 { font-size: 18px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
table { border-collapse: collapse; width:100%; font-variant-numeric: tabular-nums; }
th, td { text-align:left; padding: 5px 8px; border-bottom:1px solid var(--rule); vertical-align: top; }
thead th { font-size:13px; color:var(--muted); font-weight:600; border-bottom:2px solid var(--rule); }
td.num, th.num, td.pilot { text-align:right; white-space:nowrap; }
th.num { white-space:normal; }
td.pilot { text-align:left; }
td.hash code, code { font-size: 13px; }
td.sha { font-family: monospace; font-size: 12px; word-break: break-all; }
.ci, .prob { color: var(--muted); font-size: 13px; }
#trials .ci { display: block; }
.good { color:#1a7f37; } .bad { color:#b42318; } .flat { color:#8a5f00; }
.plots { display:flex; flex-wrap:wrap; gap: 18px; }
figure { margin:0; flex: 1 1 480px; max-width: 560px; }
figure svg { width:100%; height:auto; display:block; }
figcaption { color:var(--muted); font-size:13px; margin-top:4px; }
svg text { font-family: "Liberation Sans", "DejaVu Sans", Arial, sans-serif; fill:#1f2328; font-size: 12px; }
pre { background:#f6f8fa; border:1px solid var(--rule); padding: 10px; font-size: 12px;
  overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
footer { color: var(--muted); font-size: 13px; margin-top: 20px; }
)";
}

std::string Page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         Esc(title) + "</title>\n<style>" + Css() + "</style>\n</head>\n<body>\n<main>\n" + body +
         "</main>\n</body>\n</html>\n";
}

std::string SavingClass(const std::optional<double>& v) {
  if (!v) return "bad";
  return *v > 0 ? "good" : (*v == 0 ? "flat" : "bad");
}

std::string NetText(const SiteTrial& t) {
  if (!t.caught_up) return "never caught up";
  std::string s = Pct(t.net);
  if (t.ci95) s += " <span class=\"ci\">(" + Range(t.ci95) + ")</span>";
  return s;
}

std::string GrossText(const SiteTrial& t) {
  std::string s = Pct(t.gross);
  if (t.ci95_gross) s += " <span class=\"ci\">(" + Range(t.ci95_gross) + ")</span>";
  return s;
}

std::string RegimeText(const SiteTrial& t) {
  if (!t.informative) return "not checked";
  std::string s = *t.informative ? "<span class=\"good\">informative</span>"
                                 : "<span class=\"bad\">not informative</span>";
  if (t.margin) s += fmt::format(" <span class=\"ci\">(margin {:+.3f} bits)</span>", *t.margin);
  return s;
}

std::string VerdictText(const SiteForecast& f) {
  if (f.verdict.empty()) return f.hash.empty() ? "none" : "?";
  std::string s = Esc(f.verdict);
  if (f.probability)
    s += fmt::format(" <span class=\"prob\">(p {:.0f}%)</span>", 100 * *f.probability);
  return s;
}

std::string CorrectText(const SiteForecast& f) {
  if (f.correct)
    return *f.correct ? "<span class=\"good\">right</span>" : "<span class=\"bad\">wrong</span>";
  return f.verdict.empty() ? "—" : "abstained";
}

std::string PilotText(const SiteTrial& t) {
  return Esc(t.model) + " · " + FormatInt(t.steps) + " steps";
}

std::string TrialRow(const SiteTrial& t) {
  const std::string& h = t.hash;
  // The forecast's own numbers come from the forecast receipt when there is one.
  const std::string& fh = t.forecast.hash.empty() ? h : t.forecast.hash;
  std::string row = "<tr class=\"trial\" data-hash=\"" + Esc(h) + "\">";
  row += "<td><a href=\"" + Esc(TrialPagePath(t)) + "\">" + Esc(t.target) + "</a></td>";
  row += "<td>" + Esc(t.selector) + "</td>";
  row += NumCell(PilotText(t), h, "pilot");
  row += NumCell(RegimeText(t), h, "regime");
  row += NumCell("<span class=\"" + SavingClass(t.gross) + "\">" + GrossText(t) + "</span>", h);
  row += NumCell("<span class=\"" + SavingClass(t.caught_up ? t.net : std::nullopt) + "\">" +
                     NetText(t) + "</span>",
                 h);
  std::string verdict = VerdictText(t.forecast);
  if (!t.forecast.hash.empty()) {
    verdict += " <span class=\"ci\"><code>" + Esc(HashPrefix(t.forecast.hash)) + "</code></span>";
  }
  row += NumCell(verdict, fh, "verdict");
  row += NumCell(CorrectText(t.forecast), h, "correct");
  row += HashCell(h, TrialPagePath(t));
  return row + "</tr>\n";
}

std::string TrialsTable(const SiteData& d) {
  std::string s = "<section id=\"trials-section\">\n<h2>Trials</h2>\n";
  if (d.trials.empty()) return s + "<p id=\"no-trials\">No trial receipts yet.</p>\n</section>\n";
  s += "<p class=\"note\">Net charges each arm for its selection and the forecast; intervals are "
       "95% over seeds. Hover a number for the receipt it came from.</p>\n";
  s += "<table id=\"trials\">\n<thead><tr><th>target</th><th>selector</th><th>pilot</th>"
       "<th>regime</th><th class=\"num\">gross saved</th><th class=\"num\">net saved (95%)</th>"
       "<th>forecast (its receipt)</th><th>forecast was</th><th>receipt</th></tr>"
       "</thead>\n<tbody>\n";
  for (const SiteTrial& t : d.trials) s += TrialRow(t);
  return s + "</tbody>\n</table>\n</section>\n";
}

// The calibration plot's domain, the same on both axes so that y = x is the diagonal: every point
// and bar, at least [-0.1, 0.1], at most [-1, 1] (a bar or point beyond is drawn at the edge; its
// title gives the value).
std::pair<double, double> CalibrationDomain(const std::vector<const SiteTrial*>& points) {
  double lo = -0.1, hi = 0.1;
  auto take = [&](double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  for (const SiteTrial* t : points) {
    take(*t->forecast.predicted_saving);
    if (t->forecast.interval) take(t->forecast.interval->first), take(t->forecast.interval->second);
    if (t->net && t->caught_up) take(*t->net);
    if (t->ci95 && t->caught_up) take(t->ci95->first), take(t->ci95->second);
  }
  lo = std::max(-1.0, std::floor(lo * 10) / 10);
  hi = std::min(1.0, std::ceil(hi * 10) / 10);
  return {lo, hi};
}

std::string CalibrationPoint(const Frame& f, const SiteTrial& t) {
  const SiteForecast& fc = t.forecast;
  const bool never = !t.caught_up || !t.net;
  const double x = Clamp(*fc.predicted_saving, f.x_lo, f.x_hi);
  const double y = never ? f.y_lo : Clamp(*t.net, f.y_lo, f.y_hi);
  const char* colour = fc.correct ? (*fc.correct ? Green() : Vermillion()) : "#8c959f";
  std::string title = fmt::format(
      "{} — trial {}, forecast {}: predicted {}{}; actual net {}{}; forecast {}", t.target,
      HashPrefix(t.hash), HashPrefix(fc.hash), FormatPercent(*fc.predicted_saving),
      fc.interval ? " (" + Range(fc.interval) + ")" : "", never ? "never caught up" : Pct(t.net),
      t.ci95 && !never ? " (95% " + Range(t.ci95) + ")" : "",
      fc.correct ? (*fc.correct ? "right" : "wrong") : "abstained");
  std::string s = "<g class=\"trial-point\" data-hash=\"" + Esc(t.hash) + "\"><title>" +
                  Esc(title) + "</title>";
  if (fc.interval) {
    s += fmt::format(
        "<line class=\"x-bar\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-width=\"1.5\"/>",
        Px(f.X(Clamp(fc.interval->first, f.x_lo, f.x_hi))), Px(f.Y(y)),
        Px(f.X(Clamp(fc.interval->second, f.x_lo, f.x_hi))), Px(f.Y(y)), colour);
  }
  if (t.ci95 && !never) {
    s += fmt::format(
        "<line class=\"y-bar\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-width=\"1.5\"/>",
        Px(f.X(x)), Px(f.Y(Clamp(t.ci95->first, f.y_lo, f.y_hi))), Px(f.X(x)),
        Px(f.Y(Clamp(t.ci95->second, f.y_lo, f.y_hi))), colour);
  }
  // Right: filled; wrong: hollow; abstained: grey. Shape, not colour alone, tells them apart.
  const bool filled = fc.correct.value_or(false);
  s += fmt::format(
      "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"{}\" "
      "stroke-width=\"2\"/></g>\n",
      Px(f.X(x)), Px(f.Y(y)), filled ? colour : "#ffffff", colour);
  return s;
}

std::string CalibrationPlot(const std::vector<const SiteTrial*>& points) {
  auto [lo, hi] = CalibrationDomain(points);
  const Frame f{520, 440, 62, 16, 16, 46, lo, hi, lo, hi};
  std::string s =
      "<svg id=\"calibration-plot\" viewBox=\"0 0 520 440\" role=\"img\" "
      "aria-label=\"Predicted against actual net saving\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  s += Axes(f, NiceTicks(lo, hi, 5), PercentLabel, PercentLabel, "forecast's predicted net saving",
            "measured net saving");
  s += fmt::format(
      "<line id=\"identity\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#59636e\" "
      "stroke-dasharray=\"5 4\"/>\n",
      Px(f.X(lo)), Px(f.Y(lo)), Px(f.X(hi)), Px(f.Y(hi)));
  for (const SiteTrial* t : points) s += CalibrationPoint(f, *t);
  return s + "</svg>\n";
}

// Decision accuracy after each decided trial (right or wrong; abstentions skipped), in order.
std::string AccuracyPlot(const SiteData& d) {
  std::vector<std::pair<const SiteTrial*, double>> steps;
  int right = 0, decided = 0;
  for (const SiteTrial& t : d.trials) {
    if (!t.forecast.correct) continue;
    right += *t.forecast.correct;
    ++decided;
    steps.emplace_back(&t, static_cast<double>(right) / decided);
  }
  const Frame f{520, 440, 62, 16, 16, 46, 0.5, std::max(1.5, decided + 0.5), 0, 1};
  std::string s =
      "<svg id=\"accuracy-plot\" viewBox=\"0 0 520 440\" role=\"img\" "
      "aria-label=\"Decision accuracy as trials accumulate\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n";
  std::vector<double> x_ticks;
  for (double v : NiceTicks(1, std::max(1, decided), 6)) {
    if (v == std::floor(v)) x_ticks.push_back(v);
  }
  s += Axes(
      f, x_ticks, [](double v) { return FormatPlain(v, 0); }, PercentLabel,
      "decided trials, in ledger order", "forecast decisions right");
  s += fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#59636e\" "
      "stroke-dasharray=\"5 4\"/>\n",
      Px(f.left), Px(f.Y(0.5)), Px(f.width - f.right), Px(f.Y(0.5)));
  std::string path;
  for (size_t i = 0; i < steps.size(); ++i) {
    path += fmt::format("{}{},{} ", i == 0 ? "M" : "L", Px(f.X(i + 1.0)), Px(f.Y(steps[i].second)));
  }
  if (!path.empty()) {
    s += fmt::format(
        "<path id=\"accuracy-line\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
        path, Blue());
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const SiteTrial& t = *steps[i].first;
    s += fmt::format(
        "<circle class=\"accuracy-point\" cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"><title>{}"
        "</title></circle>\n",
        Px(f.X(i + 1.0)), Px(f.Y(steps[i].second)), Blue(),
        Esc(fmt::format("after trial {} ({}, {}): {} right", HashPrefix(t.hash), t.target,
                        *t.forecast.correct ? "right" : "wrong", FormatPercent(steps[i].second))));
  }
  return s + "</svg>\n";
}

std::string CalibrationSection(const SiteData& d) {
  std::vector<const SiteTrial*> points;
  int right = 0, wrong = 0, abstained = 0;
  for (const SiteTrial& t : d.trials) {
    if (t.forecast.verdict.empty()) continue;
    if (t.forecast.predicted_saving) points.push_back(&t);
    if (!t.forecast.correct) {
      ++abstained;
    } else {
      (*t.forecast.correct ? right : wrong)++;
    }
  }
  std::string s = "<section id=\"calibration\">\n<h2>The forecast's calibration</h2>\n";
  if (right + wrong + abstained == 0) {
    return s + "<p id=\"no-forecasts\">No trial has tested a forecast yet.</p>\n</section>\n";
  }
  s += fmt::format(
      "<p id=\"accuracy-summary\">Decisions right: {} of {}{}; {} abstained (\"uncertain\").</p>\n",
      right, right + wrong,
      right + wrong > 0 ? " (" + FormatPercent(static_cast<double>(right) / (right + wrong)) + ")"
                        : std::string(),
      abstained);
  s += "<div class=\"plots\">\n<figure>\n" + CalibrationPlot(points) +
       "<figcaption>Each trial: the forecast's predicted net saving with its interval "
       "(horizontal bar) against the measured net saving with its 95% interval (vertical bar); "
       "dashed: y = x. Filled green: the forecast was right; hollow vermillion: wrong; grey: "
       "abstained. A trial that never caught up sits on the bottom edge.</figcaption>\n"
       "</figure>\n<figure>\n" +
       AccuracyPlot(d) +
       "<figcaption>Share of forecast decisions that were right after each decided trial, in "
       "ledger order; dashed: a coin's 50%.</figcaption>\n</figure>\n<figure>\n" +
       ReliabilityFigure(d.trials) +
       "<figcaption>Reliability: the trials binned by the forecast's chance that curating pays "
       "(five bins of 20 points), each bin at its mean predicted chance against the share of its "
       "trials that paid (caught up with a net saving above 0), with an 80% Wilson interval and "
       "its count; dashed: perfectly calibrated. Bins of a few trials say little.</figcaption>\n"
       "</figure>\n</div>\n";
  return s + "</section>\n";
}

std::string LadderPlot(const SiteLadder& l) {
  double x_lo = 1e300, x_hi = -1e300, y_lo = -0.1, y_hi = 0.1;
  for (const SiteRung& r : l.rungs) {
    if (!(r.flops > 0)) continue;
    x_lo = std::min(x_lo, std::log10(r.flops));
    x_hi = std::max(x_hi, std::log10(r.flops));
    for (double v : {r.net.value_or(0), r.ci95 ? r.ci95->first : 0, r.ci95 ? r.ci95->second : 0})
      if (std::isfinite(v)) y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
  }
  if (x_lo > x_hi) x_lo = x_hi = 0;
  const Frame f{520,
                300,
                62,
                16,
                12,
                46,
                x_lo - 0.25,
                x_hi + 0.25,
                std::max(-1.0, std::floor(y_lo * 10) / 10),
                std::min(1.0, std::ceil(y_hi * 10) / 10)};
  std::string s = "<svg class=\"ladder-plot\" id=\"ladder-" + Esc(HashPrefix(l.hash)) +
                  "\" viewBox=\"0 0 520 300\" role=\"img\" aria-label=\"Net saving against "
                  "training compute\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  // Whole decades when the rungs span two or more, else the round values between.
  std::vector<double> x_ticks, decades;
  x_ticks = NiceTicks(f.x_lo, f.x_hi, 5);
  for (double v : x_ticks) {
    if (v == std::floor(v)) decades.push_back(v);
  }
  if (decades.size() >= 2) x_ticks = decades;
  s += Axes(
      f, x_ticks, [](double v) { return fmt::format("1e{}", FormatPlain(v, 1)); }, PercentLabel,
      "training FLOPs per run (log scale)", "net saving");
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#59636e\"/>\n",
                   Px(f.left), Px(f.Y(0)), Px(f.width - f.right), Px(f.Y(0)));
  for (const SiteRung& r : l.rungs) {
    if (!(r.flops > 0)) continue;
    const double x = f.X(std::log10(r.flops));
    const bool never = !r.caught_up || !r.net;
    const double y = f.Y(never ? f.y_lo : Clamp(*r.net, f.y_lo, f.y_hi));
    std::string title =
        fmt::format("{} · {} steps · {}: net {}{} (receipt {})", r.model, FormatInt(r.steps),
                    FormatFlops(r.flops), never ? "never caught up" : Pct(r.net),
                    r.ci95 && !never ? " (95% " + Range(r.ci95) + ")" : "", HashPrefix(l.hash));
    s += "<g class=\"rung\"><title>" + Esc(title) + "</title>";
    if (r.ci95 && !never) {
      s += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" "
          "stroke-width=\"1.5\"/>",
          Px(x), Px(f.Y(Clamp(r.ci95->first, f.y_lo, f.y_hi))),
          Px(f.Y(Clamp(r.ci95->second, f.y_lo, f.y_hi))), Blue());
    }
    s += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"{}\" "
        "stroke-width=\"2\"/></g>\n",
        Px(x), Px(y), never ? "#ffffff" : Blue(), Blue());
  }
  return s + "</svg>\n";
}

std::string TrendText(const SiteLadder& l) {
  if (!l.slope_per_decade) return "No trend fitted.";
  std::string s = fmt::format("Trend: {:+.1f} points of net saving per tenfold compute",
                              100 * *l.slope_per_decade);
  if (l.slope_interval) {
    s += fmt::format(" (interval {:+.1f} to {:+.1f})", 100 * l.slope_interval->first,
                     100 * l.slope_interval->second);
  }
  if (!l.direction.empty()) s += ": the saving " + l.direction;
  return s + ".";
}

std::string LaddersSection(const SiteData& d) {
  std::string s = "<section id=\"ladders\">\n<h2>Ladders: saving against compute</h2>\n";
  if (d.ladders.empty()) return s + "<p id=\"no-ladders\">No ladders yet.</p>\n</section>\n";
  s += "<div class=\"plots\">\n";
  for (const SiteLadder& l : d.ladders) {
    s += "<figure>\n<h3>" + Esc(l.target.empty() ? "ladder" : l.target) + " <code>" +
         Esc(HashPrefix(l.hash)) + "</code></h3>\n" + LadderPlot(l);
    s += "<figcaption title=\"" + Esc(From(l.hash)) + "\">" + Esc(TrendText(l));
    if (!l.projection.empty()) s += " <strong>Projection</strong>: " + Esc(l.projection);
    s += "</figcaption>\n</figure>\n";
  }
  return s + "</div>\n</section>\n";
}

std::string Optional(const std::optional<int64_t>& v) { return v ? FormatInt(*v) : "—"; }

std::string BatteriesSection(const SiteData& d) {
  std::string s = "<section id=\"batteries-section\">\n<h2>Batteries</h2>\n";
  if (d.batteries.empty())
    return s + "<p id=\"no-batteries\">No battery receipts.</p>\n</section>\n";
  s += "<table id=\"batteries\">\n<thead><tr><th>created</th><th>selector</th><th>model</th>"
       "<th class=\"num\">targets</th><th class=\"num\">right</th><th class=\"num\">wrong</th>"
       "<th class=\"num\">abstained</th><th class=\"num\">accuracy</th>"
       "<th class=\"num\">saved vs curate (core-s)</th>"
       "<th class=\"num\">saved vs random (core-s)</th><th>receipt</th></tr></thead>\n"
       "<tbody>\n";
  auto seconds = [](const std::optional<double>& v) { return v ? FormatG(*v, 4) : "—"; };
  for (const SiteBattery& b : d.batteries) {
    s += "<tr class=\"battery\"><td>" + Esc(b.created_at) + "</td><td>" + Esc(b.selector) +
         "</td><td>" + Esc(b.model) + "</td>" + NumCell(FormatInt(b.targets), b.hash) +
         NumCell(Optional(b.right), b.hash) + NumCell(Optional(b.wrong), b.hash) +
         NumCell(Optional(b.abstained), b.hash) + NumCell(Pct(b.accuracy), b.hash) +
         NumCell(seconds(b.saved_vs_always_curate), b.hash) +
         NumCell(seconds(b.saved_vs_always_random), b.hash) + HashCell(b.hash) + "</tr>\n";
  }
  return s + "</tbody>\n</table>\n</section>\n";
}

std::string TrainsSection(const SiteData& d) {
  std::string s = "<section id=\"trains-section\">\n<h2>Training runs</h2>\n";
  if (d.trains.empty()) return s + "<p id=\"no-trains\">No train receipts.</p>\n</section>\n";
  s += "<table id=\"trains\">\n<thead><tr><th>created</th><th>model</th>"
       "<th class=\"num\">parameters</th><th class=\"num\">tokens</th><th class=\"num\">FLOPs</th>"
       "<th class=\"num\">final held-out bits/byte</th><th>receipt</th></tr></thead>\n<tbody>\n";
  for (const SiteTrain& t : d.trains) {
    s += "<tr class=\"train\"><td>" + Esc(t.created_at) + "</td><td>" + Esc(t.model) + "</td>" +
         NumCell(FormatCount(t.params), t.hash) + NumCell(FormatCount(t.tokens), t.hash) +
         NumCell(FormatFlops(t.flops), t.hash) +
         NumCell(t.final_eval_bpb ? FormatFixed(*t.final_eval_bpb, 4) : "—", t.hash) +
         HashCell(t.hash) + "</tr>\n";
  }
  return s + "</tbody>\n</table>\n</section>\n";
}

// "never caught up", the saving, or "—" when the receipt holds none.
std::string SavingCell(bool caught_up, const std::optional<double>& v,
                       const std::optional<Bounds>& ci) {
  if (!caught_up) return "never caught up";
  return Pct(v) + (v && ci ? " <span class=\"ci\">(" + Range(ci) + ")</span>" : "");
}

std::string ScoresSection(const SiteData& d) {
  std::string s = "<section id=\"scores-section\">\n<h2>Runs scored from elsewhere</h2>\n";
  if (d.scores.empty()) return s + "<p id=\"no-scores\">No score receipts.</p>\n</section>\n";
  s += "<p>Curves of runs made elsewhere, measured by <code>preflight score</code>. preflight "
       "did not make these arms: it vouches for the arithmetic, not for how the arms were chosen "
       "or trained. A net saving exists only where the user stated what the selection cost.</p>\n"
       "<table id=\"scores\">\n<thead><tr><th>created</th><th>name</th>"
       "<th class=\"num\">runs per arm</th><th class=\"num\">gross saved (95%)</th>"
       "<th class=\"num\">net saved (95%)</th><th>receipt</th></tr></thead>\n<tbody>\n";
  for (const SiteScore& c : d.scores) {
    const std::string net =
        c.net_stated ? SavingCell(c.caught_up, c.net, c.ci95) : std::string("not stated");
    s += "<tr class=\"score\"><td>" + Esc(c.created_at) + "</td><td>" +
         Esc(c.name.empty() ? "—" : c.name) + "</td>" +
         NumCell(FormatInt(c.runs_per_arm), c.hash) +
         NumCell(SavingCell(c.caught_up, c.gross, c.ci95_gross), c.hash) + NumCell(net, c.hash) +
         HashCell(c.hash) + "</tr>\n";
  }
  return s + "</tbody>\n</table>\n</section>\n";
}

// A two-column table of facts, each value titled with its receipt.
std::string FactsTable(const std::string& id,
                       const std::vector<std::pair<std::string, std::string>>& rows,
                       const std::string& hash) {
  std::string s = "<table id=\"" + id + "\">\n<tbody>\n";
  for (const auto& [name, value] : rows) {
    s += "<tr><th>" + Esc(name) + "</th>" + NumCell(value, hash, "value") + "</tr>\n";
  }
  return s + "</tbody>\n</table>\n";
}

std::string ForecastPart(const SiteTrial& t) {
  const SiteForecast& f = t.forecast;
  std::string s = "<section id=\"forecast\">\n<h2>The forecast it tested</h2>\n";
  if (f.hash.empty()) return s + "<p>This trial tested no forecast.</p>\n</section>\n";
  std::vector<std::pair<std::string, std::string>> rows = {
      {"verdict", f.verdict.empty() ? "?" : Esc(f.verdict)},
      {"probability that curating pays",
       f.probability ? FormatPercent(*f.probability) : "not recorded (older receipt)"},
      {"predicted net saving",
       Pct(f.predicted_saving) +
           (f.interval
                ? fmt::format(" ({:.0f}% interval {})", 100 * f.interval_level, Range(f.interval))
                : "")},
      {"forecast was", CorrectText(f)},
      {"forecast receipt", "<code>" + Esc(f.hash) + "</code>"}};
  return s + FactsTable("forecast-facts", rows, f.hash) + "</section>\n";
}

std::string InputsPart(const SiteTrial& t) {
  std::string s =
      "<section id=\"inputs-section\">\n<h2>Inputs</h2>\n<table id=\"inputs\">\n"
      "<thead><tr><th>role</th><th>path</th><th class=\"num\">docs</th>"
      "<th class=\"num\">bytes</th><th>SHA-256</th></tr></thead>\n<tbody>\n";
  for (const SiteInput& in : t.inputs) {
    s += "<tr><td>" + Esc(in.role) + "</td><td>" + Esc(in.path) + "</td>" +
         NumCell(FormatInt(static_cast<int64_t>(in.docs)), t.hash) +
         NumCell(FormatInt(static_cast<int64_t>(in.bytes)), t.hash) + "<td class=\"sha\">" +
         Esc(in.sha256) + "</td></tr>\n";
  }
  return s + "</tbody>\n</table>\n</section>\n";
}

}  // namespace

std::string HashPrefix(const std::string& hash) { return hash.substr(0, 16); }

std::string TrialPagePath(const SiteTrial& trial) {
  return "trials/" + HashPrefix(trial.hash) + ".html";
}

std::string RenderSiteIndex(const SiteData& d) {
  std::string body =
      "<header><h1>preflight ledger</h1><p class=\"sub\">" + Esc(d.ledger_path) +
      fmt::format(
          ": {} receipts, {} trials, {} ladders, {} batteries, {} training runs, {} scored "
          "from elsewhere; every hash and link verified.</p></header>\n",
          d.receipts, d.trials.size(), d.ladders.size(), d.batteries.size(), d.trains.size(),
          d.scores.size());
  body += TrialsTable(d) + CalibrationSection(d) + LaddersSection(d) + BatteriesSection(d) +
          TrainsSection(d) + ScoresSection(d);
  body +=
      "<footer>Built by <code>preflight ledger report</code> from the ledger above. Each "
      "number's tooltip names the receipt (hash prefix) it came from; <code>preflight ledger "
      "show</code> lists them.</footer>\n";
  return Page("preflight ledger", body);
}

std::string RenderSiteTrialPage(const SiteTrial& t) {
  std::string body = "<p><a href=\"../index.html\">← every trial</a></p>\n";
  body += "<header><h1>" + Esc(t.target) + "</h1><p class=\"sub\">" + Esc(t.selector) +
          " against random · " + PilotText(t) + " · " + Esc(t.created_at) + " · receipt <code>" +
          Esc(t.hash) + "</code></p></header>\n";
  std::vector<std::pair<std::string, std::string>> numbers = {
      {"gross compute saved", GrossText(t)},
      {"net compute saved", NetText(t)},
      {"model", Esc(t.model) + (t.params > 0 ? " (" + FormatCount(t.params) + " parameters)" : "")},
      {"steps", FormatInt(t.steps)}};
  body += "<section id=\"numbers-section\">\n<h2>Key numbers</h2>\n" +
          FactsTable("numbers", numbers, t.hash);
  if (!t.report_path.empty()) {
    body += "<p>The trial's own report: <a id=\"report\" href=\"" + Esc(FileUrl(t.report_path)) +
            "\">" + Esc(t.report_path) + "</a></p>\n";
  }
  body += "</section>\n" + ForecastPart(t);
  std::vector<std::pair<std::string, std::string>> regime = {{"pilot", RegimeText(t)}};
  if (t.margin)
    regime.emplace_back("margin over the best byte n-gram", fmt::format("{:+.4f} bits", *t.margin));
  if (t.threshold) regime.emplace_back("threshold", fmt::format("{:.4f} bits", *t.threshold));
  body += "<section id=\"regime-section\">\n<h2>Regime</h2>\n" +
          FactsTable("regime", regime, t.hash) + "</section>\n";
  body += InputsPart(t);
  body += "<section id=\"receipt-section\">\n<h2>The receipt</h2>\n<pre id=\"receipt\">" +
          Esc(t.receipt_json) + "</pre>\n</section>\n";
  return Page("preflight trial " + HashPrefix(t.hash) + ": " + t.target, body);
}

}  // namespace preflight::report
