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
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string bytes;
  switch (mode % 4) {
    case 0:
      bytes = std::string("\x28\xb5\x2f\xfd", 4) + std::string(body);
      break;
    case 1:
      bytes = Zstd(body);
      break;
    case 2:
      bytes = Zstd(body);
      bytes.resize(bytes.size() * (mode >> 2) / 64);  // Cut short.
      break;
    default:
      bytes = Zstd(body.substr(0, body.size() / 2)) + Zstd(body.substr(body.size() / 2));
  }
  static const std::string path = preflight::fuzz::ScratchPath("input.jsonl.zst");
  preflight::fuzz::WriteBytes(path, bytes);
  preflight::fuzz::ReadEveryWay(path, bytes.size(), mode >> 2);
  return 0;
}
