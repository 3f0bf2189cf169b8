// libFuzzer harness for the zstd reader. The first byte picks what is written: the rest as it
// is behind a zstd magic number (damaged frames), or zstd-compressed (valid frames of any JSONL,
// some cut short, some as two frames).

#include <zstd.h>

#include "fuzz/fuzz_input.h"

namespace {

std::string Zstd(std::string_view body) {
  std::string out(ZSTD_compressBound(body.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), body.data(), body.size(), 1);
  if (ZSTD_isError(n)) std::abort();
  out.resize(n);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = preflight::fuzz::ScratchPath("input.jsonl.zst");
  return preflight::fuzz::FuzzCompressed(data, size, std::string_view("\x28\xb5\x2f\xfd", 4), Zstd, path);
}
