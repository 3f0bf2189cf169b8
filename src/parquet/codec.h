#pragma once
// Page decompression with Debian's codec libraries: SNAPPY (libsnappy), GZIP (zlib), ZSTD
// (libzstd), LZ4_RAW and the deprecated LZ4 (liblz4: Hadoop framing, else the LZ4 frame format,
// else a raw block, as writers have used all three), BROTLI (libbrotlidec). LZO and unknown
// codecs are refused.
//
// A page's declared uncompressed size is checked against what its compressed bytes can hold
// before anything is allocated: snappy and zstd record the size themselves (it must match),
// LZ4 and deflate expand at most 255 and 1032 times; the rest is bounded by the caller's page
// limit. The output must come out at exactly the declared size.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/status.h"

namespace preflight::parquet {

// Whether pages compressed with `codec` can be read.
bool CodecSupported(int32_t codec);

// One per column reader: it keeps the zlib and zstd contexts between pages. Not thread-safe.
class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Whether `in` can decompress to `out_size` bytes: call it before allocating them.
  static Status CheckSize(int32_t codec, const uint8_t* in, size_t in_size, size_t out_size);
  // Decompresses `in` into exactly `out_size` bytes at `out` (CheckSize first). Errors are
  // Corruption with a message saying what is wrong ("zstd: Data corruption detected"), for the
  // caller to prefix with where.
  Status Decompress(int32_t codec, const uint8_t* in, size_t in_size, uint8_t* out,
                    size_t out_size);

 private:
  Status Inflate(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace preflight::parquet
