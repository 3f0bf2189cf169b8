#include "base/compressed.h"

#include <zlib.h>
#include <zstd.h>

#include <memory>

#include "base/file.h"

namespace preflight {
namespace {

constexpr size_t kOutChunk = 1u << 20;

Status Damaged(const std::string& path, Compression c, const std::string& why) {
  return Status::Corruption(path + ": the " + CompressionName(c) +
                            " stream is damaged or cut off (" + why +
                            "); decompress it by hand to see where");
}

Result<std::string> Gunzip(const std::string& path, std::string_view in) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());  // ledgers under 4 GiB compressed; checked below
  if (in.size() != z.avail_in) return Status::InvalidArgument(path + ": over 4 GiB compressed");
  std::string out;
  int rc = Z_OK;
  while (true) {
    const size_t had = out.size();
    out.resize(had + kOutChunk);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + had);
    z.avail_out = static_cast<uInt>(kOutChunk);
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(had + (kOutChunk - z.avail_out));
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) return out;
      if (inflateReset(&z) != Z_OK) return Damaged(path, Compression::kGzip, "reset failed");
      continue;  // the next gzip member
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Damaged(path, Compression::kGzip, z.msg != nullptr ? z.msg : "inflate failed");
    }
    if (z.avail_in == 0 && z.avail_out != 0) {
      return Damaged(path, Compression::kGzip, "it ends mid-member");
    }
  }
}

Result<std::string> Unzstd(const std::string& path, std::string_view in) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return Status::Internal("zstd: ZSTD_createDCtx failed");
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  std::string out;
  size_t left = 0;  // 0 once a frame is complete
  while (input.pos < input.size || left != 0) {
    const size_t had = out.size();
    out.resize(had + kOutChunk);
    ZSTD_outBuffer output{out.data() + had, kOutChunk, 0};
    const size_t before = input.pos;
    left = ZSTD_decompressStream(ctx.get(), &output, &input);
    out.resize(had + output.pos);
    if (ZSTD_isError(left)) return Damaged(path, Compression::kZstd, ZSTD_getErrorName(left));
    if (left != 0 && input.pos == input.size && before == input.pos && output.pos == 0) {
      return Damaged(path, Compression::kZstd, "it ends mid-frame");
    }
  }
  return out;
}

}  // namespace

Compression CompressionOf(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return Compression::kGzip;
  }
  if (head.size() >= 4 && head.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4)) {
    return Compression::kZstd;
  }
  return Compression::kNone;
}

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      break;
  }
  return "none";
}

Result<std::string> Decompress(const std::string& path, std::string bytes) {
  switch (CompressionOf(bytes)) {
    case Compression::kGzip:
      return Gunzip(path, bytes);
    case Compression::kZstd:
      return Unzstd(path, bytes);
    case Compression::kNone:
      break;
  }
  return bytes;
}

Result<std::string> ReadFileDecompressed(const std::string& path) {
  PF_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  return Decompress(path, std::move(bytes));
}

}  // namespace preflight
