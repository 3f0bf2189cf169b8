// libFuzzer harness: the bytes as llm.c's main.log (fuzz_curve.h).

#include "fuzz/fuzz_curve.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return preflight::fuzz::FuzzCurve(data, size, [](std::string_view text) {
    return preflight::trainer::ReadLlmcCurve("main.log", text);
  });
}
