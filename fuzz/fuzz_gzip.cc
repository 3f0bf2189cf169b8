// libFuzzer harness for the gzip reader. The first byte picks what is written: the rest as it
// is behind a gzip header (damaged streams), or gzip-compressed (valid streams of any JSONL,
// some cut short, some as two members).

#include <zlib.h>

#include "fuzz/fuzz_input.h"

namespace {

std::string Gzip(std::string_view body) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, body.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = preflight::fuzz::ScratchPath("input.jsonl.gz");
  return preflight::fuzz::FuzzCompressed(data, size, std::string_view("\x1f\x8b", 2), Gzip, path);
}
