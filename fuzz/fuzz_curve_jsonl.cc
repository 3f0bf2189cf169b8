// libFuzzer harness: the bytes as preflight's own JSONL curve (fuzz_curve.h).

#include "fuzz/fuzz_curve.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return preflight::fuzz::FuzzCurve(data, size, [](std::string_view text) {
    return preflight::trainer::ReadJsonlCurve("curve.jsonl", text);
  });
}
