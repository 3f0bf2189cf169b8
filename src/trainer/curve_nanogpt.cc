// nanoGPT's stdout: at every eval, "step N: train loss X, val loss Y" (losses in nats per token).

#include <fmt/format.h>

#include "trainer/curve_formats.h"

namespace preflight::trainer {

Result<RawCurve> ReadNanogptCurve(const std::string& path, std::string_view text) {
  constexpr std::string_view kStep = "step ", kTrain = ": train loss ", kVal = ", val loss ";
  RawCurve curve{path, {}};
  int line = 0;
  for (std::string_view l : curve_text::Lines(text)) {
    ++line;
    const size_t train = l.find(kTrain), val = l.find(kVal);
    if (l.substr(0, kStep.size()) != kStep || train == std::string_view::npos ||
        val == std::string_view::npos || val < train) {
      continue;
    }
    RawPoint p;
    p.line = line;
    if (!curve_text::ParseInt(l.substr(kStep.size(), train - kStep.size()), &p.step)) {
      return curve_text::LineError(path, line,
                                   fmt::format("'{}': the step is not a number", l));
    }
    if (!curve_text::ParseNumber(l.substr(val + kVal.size()), &p.value)) {
      return curve_text::LineError(path, line,
                                   fmt::format("'{}': the val loss is not a number", l));
    }
    curve.points.push_back(std::move(p));
  }
  if (curve.points.empty()) {
    return Status::Corruption(path +
                              ": no 'step N: train loss X, val loss Y' line (nanoGPT's eval)");
  }
  curve_text::KeepLastPerStep(curve);
  return curve;
}

}  // namespace preflight::trainer
