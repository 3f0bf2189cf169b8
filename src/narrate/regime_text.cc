#include "narrate/regime_text.h"

#include <fmt/format.h>

#include <cmath>

namespace preflight::narrate {
namespace {

// "order 4: 3.2400; bigram 3.6000, unigram 4.6000"
std::string ScoresPhrase(const trial::NgramScores& s) {
  return fmt::format("order {}: {:.4f}; bigram {:.4f}, unigram {:.4f}", s.ngram_order, s.ngram_bpb,
                     s.bigram_bpb, s.unigram_bpb);
}

// "0.3400 bits below", "0.0200 bits above", for L* against the best n-gram.
std::string MarginPhrase(double margin) {
  return fmt::format("{:.4f} bits {}", std::abs(margin), margin >= 0 ? "below" : "above");
}

}  // namespace

std::string RegimeSentence(const trial::Regime& r) {
  const std::string numbers = fmt::format(
      "its best held-out loss (L* = {:.4f} bits per byte) is {} the best byte n-gram model "
      "fitted on the same data ({})",
      r.l_star, MarginPhrase(r.margin), ScoresPhrase(r.baseline));
  if (r.informative) {
    return fmt::format(
        "The pilot learned more than byte n-gram statistics: {}, clearing the {:.4f}-bit "
        "threshold.",
        numbers, r.threshold);
  }
  std::string warning = kUninformativeWarning;
  warning[0] = 'T';
  return fmt::format("{}: {}, short of the {:.4f}-bit margin an informative pilot clears.", warning,
                     numbers, r.threshold);
}

void AddRegimeToLabRecord(const trial::Regime& r, nlohmann::json& record) {
  record["regime"] = RegimeSentence(r);
  if (r.informative || !record.contains("summary") || !record["summary"].is_string()) return;
  record["summary"] = record["summary"].get<std::string>() + " " +
                      fmt::format("But {}.", std::string(kUninformativeWarning));
}

std::string RegimeNumbersText(const trial::Regime& r) {
  std::string out = fmt::format(
      "  regime                     {}: L* {:.4f} vs best n-gram {:.4f} (order {}), margin {:+.4f} "
      "bits (threshold {:.4f})\n",
      r.informative ? "informative" : "NOT informative", r.l_star, trial::BestNgramBpb(r.baseline),
      r.baseline.ngram_order, r.margin, r.threshold);
  if (!r.informative)
    out += fmt::format("                             {}\n", kUninformativeWarning);
  return out;
}

}  // namespace preflight::narrate
