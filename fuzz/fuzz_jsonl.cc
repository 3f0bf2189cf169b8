// libFuzzer harness: the bytes as a .jsonl file (and as a line for ParseTextField).

#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  preflight::corpus::ReadOptions options;
  (void)preflight::corpus::ParseTextField(bytes, options, "fuzz");
  (void)preflight::corpus::DetectFormat("fuzz.jsonl", bytes.substr(0, 8192));
  static const std::string path = preflight::fuzz::ScratchPath("input.jsonl");
  preflight::fuzz::WriteBytes(path, bytes);
  preflight::fuzz::ReadEveryWay(path, size, size > 0 ? data[size - 1] : 0);
  return 0;
}
