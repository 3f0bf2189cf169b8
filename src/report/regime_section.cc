#include "report/regime_section.h"

#include <fmt/format.h>

#include "narrate/regime_text.h"
#include "report/trial_report.h"

namespace preflight::report {
namespace {

std::string Bits(double bpb) { return fmt::format("{:.4f}", bpb); }

std::string ScoresRow(const std::string& arm, const trial::NgramScores& s, bool sets_l_star) {
  return fmt::format(
      "<tr><th scope=\"row\">{}{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td></tr>\n",
      EscapeHtml(arm), sets_l_star ? " <span class=\"sym\">(sets L*)</span>" : "",
      Bits(s.unigram_bpb), Bits(s.bigram_bpb), Bits(s.ngram_bpb));
}

}  // namespace

std::string RegimeSection(const trial::Regime& r) {
  std::string s = "<section id=\"regime\" aria-labelledby=\"regime-title\">\n";
  s += "<h2 id=\"regime-title\">Regime: did the pilot learn more than byte n-grams?</h2>\n";
  s += fmt::format(
      "<p><span class=\"{}\"><strong>{}</strong></span>. {}</p>\n", r.informative ? "good" : "bad",
      r.informative ? "Informative" : "Not informative", EscapeHtml(narrate::RegimeSentence(r)));
  s += fmt::format(
      "<table id=\"regime-table\">\n<thead><tr><th>byte n-gram model fitted on the arm's data, "
      "scored on the held-out eval windows (bits per byte)</th><th class=\"num\">unigram</th>"
      "<th class=\"num\">bigram</th><th class=\"num\">order {}</th></tr></thead>\n<tbody>\n",
      r.baseline.ngram_order);
  for (const auto& [arm, scores] : r.arms) s += ScoresRow(arm, scores, arm == r.baseline_arm);
  s += "</tbody>\n</table>\n";
  s += fmt::format(
      "<p class=\"sym\">L* = {} bits per byte; best n-gram of the arm that sets it = {}; margin "
      "(best n-gram &minus; L*) = {:+.4f} bits; informative when the margin is at least {} "
      "bits.</p>\n</section>\n",
      Bits(r.l_star), Bits(trial::BestNgramBpb(r.baseline)), r.margin, Bits(r.threshold));
  return s;
}

}  // namespace preflight::report
