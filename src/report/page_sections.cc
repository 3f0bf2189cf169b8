#include "report/page_sections.h"

#include <fmt/format.h>

#include "base/number_format.h"
#include "narrate/interval.h"

namespace preflight::report {
namespace {

std::string SignedPercent(double fraction) {
  return fmt::format("{}{}", fraction > 0 ? "+" : "", FormatPercent(fraction));
}

std::string DocsTable(const char* id, const std::string& caption,
                      const std::vector<SelectedDoc>& docs) {
  std::string s = fmt::format(
      "<table id=\"{}\">\n<caption>{}</caption>\n<thead><tr><th>id</th><th class=\"num\">score"
      "</th><th>excerpt</th></tr></thead>\n<tbody>\n",
      id, EscapeHtml(caption));
  for (const SelectedDoc& d : docs) {
    s += fmt::format(
        "<tr><th scope=\"row\"><code>{}</code></th><td class=\"num\">{}</td><td>{}</td></tr>\n",
        EscapeHtml(d.id), FormatG(d.score, 4),
        d.excerpt.empty() ? std::string("<span class=\"sym\">(not read)</span>")
                          : EscapeHtml(d.excerpt));
  }
  return s + "</tbody>\n</table>\n";
}

}  // namespace

std::string ForecastTestedSection(const ForecastTested& f) {
  std::string s = "<section id=\"forecast-tested\" aria-labelledby=\"forecast-title\">\n";
  s += "<h2 id=\"forecast-title\">The forecast this trial tested</h2>\n";
  if (f.verdict.empty()) {
    s += "<p>The forecast's verdict is not recorded with this trial; its receipt is <code>" +
         EscapeHtml(f.receipt) + "</code> (<code>preflight ledger show</code> lists it).</p>\n";
    return s + "</section>\n";
  }
  std::string predicted;
  if (f.predicted_saving) {
    predicted =
        ", predicted net saving <strong>" + SignedPercent(*f.predicted_saving) + "</strong>";
    if (f.interval) {
      predicted += " (interval " +
                   EscapeHtml(narrate::IntervalBounds({f.interval->first, f.interval->second})) +
                   ")";
    }
  }
  const std::string measured =
      f.measured_net ? SignedPercent(*f.measured_net) : std::string("never caught up");
  const char* mark = !f.correct ? "flat" : (*f.correct ? "good" : "bad");
  const char* word = f.verdict == "uncertain" || !f.correct ? "abstained (reported apart)"
                                                            : (*f.correct ? "right" : "wrong");
  s += fmt::format(
      "<p>Verdict <strong>{}</strong>{}. Measured net saving: <strong>{}</strong>. The forecast "
      "was <span class=\"{}\"><strong>{}</strong></span>.</p>\n",
      EscapeHtml(f.verdict), predicted, EscapeHtml(measured), mark, word);
  s += "<p class=\"sym\">Right when it said curate and the net saving is above 0, or said random "
       "and it is 0 or below (never caught up counts as below). Receipt <code>" +
       EscapeHtml(f.receipt) + "</code>.</p>\n";
  return s + "</section>\n";
}

std::string ProvenanceSection(const Provenance& p) {
  std::string s = "<section id=\"provenance\" aria-labelledby=\"provenance-title\">\n";
  s += "<h2 id=\"provenance-title\">Provenance</h2>\n";
  if (!p.receipt.empty()) {
    s += "<p>Trial receipt <code id=\"trial-receipt\">" + EscapeHtml(p.receipt) +
         "</code> (<code>preflight ledger verify</code> checks it).</p>\n";
  }
  if (!p.inputs.empty()) {
    s += "<table id=\"inputs\">\n<thead><tr><th>input</th><th>path</th><th class=\"num\">"
         "documents</th><th class=\"num\">text bytes</th><th>SHA-256 of the bytes read</th>"
         "</tr></thead>\n<tbody>\n";
    for (const InputFile& in : p.inputs) {
      s += fmt::format(
          "<tr><th scope=\"row\">{}</th><td><code>{}</code></td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td><code>{}</code></td></tr>\n",
          EscapeHtml(in.role), EscapeHtml(in.path), FormatInt(static_cast<int64_t>(in.docs)),
          FormatInt(static_cast<int64_t>(in.bytes)), EscapeHtml(in.sha256));
    }
    s += "</tbody>\n</table>\n";
  }
  return s + "</section>\n";
}

std::string SelectionSection(const Selection& sel) {
  std::string s = "<section id=\"selected\" aria-labelledby=\"selected-title\">\n";
  s += "<h2 id=\"selected-title\">What " + EscapeHtml(sel.selector) + " selected (" +
       EscapeHtml(sel.arm) + " arm)</h2>\n";
  if (!sel.highest.empty()) {
    s += DocsTable("selected-highest", "Highest-scored kept documents", sel.highest);
  }
  if (!sel.lowest.empty()) {
    s += DocsTable("selected-lowest",
                   sel.lowest_label.empty() ? "Lowest-scored documents" : sel.lowest_label,
                   sel.lowest);
  }
  if (!sel.share_field.empty() && sel.share_docs > 0) {
    s += fmt::format(
        "<table id=\"selected-shares\">\n<caption>Kept documents by <code>{}</code>{}</caption>\n"
        "<thead><tr><th>{}</th><th class=\"num\">documents</th><th class=\"num\">share</th>"
        "</tr></thead>\n<tbody>\n",
        EscapeHtml(sel.share_field),
        sel.share_partial
            ? fmt::format(" (the first {} read)", FormatInt(static_cast<int64_t>(sel.share_docs)))
            : std::string(),
        EscapeHtml(sel.share_field));
    for (const auto& [value, count] : sel.shares) {
      s += fmt::format(
          "<tr><th scope=\"row\">{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
          EscapeHtml(value), FormatInt(static_cast<int64_t>(count)),
          FormatPercent(static_cast<double>(count) / static_cast<double>(sel.share_docs)));
    }
    s += "</tbody>\n</table>\n";
  }
  return s + "</section>\n";
}

}  // namespace preflight::report
