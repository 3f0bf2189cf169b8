#pragma once
// Test inputs in the compressed forms pools ship in: one gzip member, one zstd frame.

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

namespace preflight::testing {

inline std::string GzipOf(const std::string& body) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, body.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string ZstdOf(const std::string& body) {
  std::string out(ZSTD_compressBound(body.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), body.data(), body.size(), 3));
  return out;
}

}  // namespace preflight::testing
