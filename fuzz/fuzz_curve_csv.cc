// libFuzzer harness: the bytes as a CSV curve (litgpt's metrics.csv and the like; fuzz_curve.h),
// read with litgpt's columns and with bits-per-byte and token columns.

#include "fuzz/fuzz_curve.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kLitgpt = preflight::trainer::ParseCurveColumns("");
  static const auto kBpb = preflight::trainer::ParseCurveColumns("step=step,bpb=bpb,tokens=tokens");
  if (!kLitgpt.ok() || !kBpb.ok()) __builtin_trap();
  return preflight::fuzz::FuzzCurve(data, size, [](std::string_view text) {
    preflight::fuzz::UseCurve(preflight::trainer::ReadCsvCurve("metrics.csv", text, *kBpb));
    return preflight::trainer::ReadCsvCurve("metrics.csv", text, *kLitgpt);
  });
}
