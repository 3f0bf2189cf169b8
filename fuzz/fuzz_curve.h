#pragma once
// Shared by the curve-reader fuzzers (fuzz_curve_<format>.cc): the bytes as a run's curve file in
// one format (trainer/curve_formats.h), then every step a trial takes with a curve it read: the
// conversion to bits per byte (ToEvalCurve) under two sets of units, and the completeness check.
// Any Status is fine; a crash, a sanitizer report (an overflow included), a leak or a hang is a
// bug. The bytes are read in memory (no file per input), as ReadRawCurve does after reading it.

#include <cstdint>
#include <string>
#include <string_view>

#include "trainer/curve_formats.h"
#include "trainer/curve_reader.h"

namespace preflight::fuzz {

inline void UseCurve(const Result<trainer::RawCurve>& raw) {
  if (!raw.ok()) return;
  // A byte-level trainer (eval tokens = bytes), then one with its own tokenizer.
  for (const trainer::CurveUnits units :
       {trainer::CurveUnits{1000, 0, 64}, trainer::CurveUnits{4096, 977, 1 << 20}}) {
    auto curve = trainer::ToEvalCurve(*raw, units);
    if (!curve.ok()) continue;
    const int64_t last = curve->empty() ? 0 : curve->back().step;
    (void)trainer::CheckCurveComplete(*curve, last, raw->path);
    (void)trainer::CheckCurveComplete(*curve, last / 2 + 1, raw->path);
  }
}

template <typename Read>
int FuzzCurve(const uint8_t* data, size_t size, Read read) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  UseCurve(read(text));
  return 0;
}

}  // namespace preflight::fuzz
