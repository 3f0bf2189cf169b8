#include "narrate/keep_text.h"

#include <fmt/format.h>

#include "base/number_format.h"

namespace preflight::narrate {

std::string KeepWords(double keep) {
  if (keep >= 1) return "the whole pool";
  return fmt::format("{:.3g}%", 100 * keep);
}

std::string BestKeepSentence(const trial::BestKeep& best) {
  return fmt::format("{} (lowest end loss in {} of {} resamples over seeds; {} of {} seeds)",
                     KeepWords(best.keep), FormatPercent(best.share), FormatInt(best.resamples),
                     best.seeds_best, best.seeds);
}

std::string RecommendationSentence(const trial::KeepRecommendation& r) {
  if (!r.keep) {
    return fmt::format("No fraction to keep for a run of {}: {}.", FormatFlops(r.flops), r.reason);
  }
  return fmt::format("Keep {} of the pool for a run of {} (95% interval {} to {}){}: {}.",
                     KeepWords(*r.keep), FormatFlops(r.flops), KeepWords(r.lo), KeepWords(r.hi),
                     r.extrapolated ? ", EXTRAPOLATED" : "", r.reason);
}

}  // namespace preflight::narrate
