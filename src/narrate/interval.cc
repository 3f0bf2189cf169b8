#include "narrate/interval.h"

#include <fmt/format.h>

#include <cmath>

#include "base/number_format.h"

namespace preflight::narrate {
namespace {

bool Undefined(const trial::Interval& ci) { return std::isnan(ci.lo) || std::isnan(ci.hi); }

}  // namespace

std::string IntervalBounds(const trial::Interval& ci) {
  if (Undefined(ci)) return "undefined";
  if (!std::isfinite(ci.hi)) return "never caught up at either end";
  if (!std::isfinite(ci.lo)) return "from never catching up to " + FormatPercent(ci.hi);
  return FormatPercent(ci.lo) + " to " + FormatPercent(ci.hi);
}

std::string IntervalSentence(const trial::Interval& ci, double level) {
  const int pct = static_cast<int>(std::lround(level * 100));
  const bool both_never = !Undefined(ci) && !std::isfinite(ci.hi);
  return fmt::format("{}% interval{}{}", pct, both_never ? ": " : " ", IntervalBounds(ci));
}

}  // namespace preflight::narrate
