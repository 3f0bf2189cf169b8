// llm.c's main.log: "s:N tel:X" is the eval (validation) loss X, in nats per token, at step N.
// Its other lines ("s:N trl:X", "s:N eval:X", ...) are not eval losses and are skipped.

#include <fmt/format.h>

#include "trainer/curve_formats.h"

namespace preflight::trainer {

Result<RawCurve> ReadLlmcCurve(const std::string& path, std::string_view text) {
  RawCurve curve{path, {}};
  int line = 0;
  for (std::string_view l : curve_text::Lines(text)) {
    ++line;
    const size_t tel = l.find(" tel:");
    if (l.substr(0, 2) != "s:" || tel == std::string_view::npos) continue;
    RawPoint p;
    p.line = line;
    if (!curve_text::ParseInt(l.substr(2, tel - 2), &p.step)) {
      return curve_text::LineError(path, line,
                                   fmt::format("'{}': the step is not a number", l));
    }
    std::string_view value = l.substr(tel + 5);
    value = value.substr(0, value.find(' '));
    if (!curve_text::ParseNumber(value, &p.value)) {
      return curve_text::LineError(path, line,
                                   fmt::format("'{}': the eval loss is not a number", l));
    }
    curve.points.push_back(std::move(p));
  }
  if (curve.points.empty()) {
    return Status::Corruption(path + ": no 's:N tel:X' line (llm.c's eval loss); is it main.log?");
  }
  curve_text::KeepLastPerStep(curve);
  return curve;
}

}  // namespace preflight::trainer
