#include "select/compress.h"

#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <memory>

namespace preflight::select {
namespace {

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

constexpr int kZstdLevel = 3;
constexpr int kGzipLevel = 6;

Status AppendZstd(std::string_view content, const std::string& what, std::string* out) {
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(),
                                                                      ZSTD_freeCCtx);
  if (!cctx) return Status::Internal(what + ": cannot start a zstd frame");
  ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kZstdLevel);
  const size_t at = out->size();
  out->resize(at + ZSTD_compressBound(content.size()));
  const size_t n = ZSTD_compress2(cctx.get(), out->data() + at, out->size() - at, content.data(),
                                  content.size());
  if (ZSTD_isError(n)) return Status::Internal(what + ": zstd: " + ZSTD_getErrorName(n));
  out->resize(at + n);
  return Status::Ok();
}

Status AppendGzip(std::string_view content, const std::string& what, std::string* out) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  // windowBits 15 + 16: a gzip wrapper with no name and time 0, so the bytes are reproducible.
  if (deflateInit2(&zs, kGzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return Status::Internal(what + ": cannot start a gzip member");
  const size_t at = out->size();
  out->resize(at + deflateBound(&zs, static_cast<uLong>(content.size())) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data()));
  zs.avail_in = static_cast<uInt>(content.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data() + at);
  zs.avail_out = static_cast<uInt>(out->size() - at);
  const int rc = deflate(&zs, Z_FINISH);
  const size_t n = (out->size() - at) - zs.avail_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal(what + ": gzip member did not end");
  out->resize(at + n);
  return Status::Ok();
}

}  // namespace

Compression CompressionFor(const std::string& path) {
  if (EndsWith(path, ".zst")) return Compression::kZstd;
  if (EndsWith(path, ".gz")) return Compression::kGzip;
  return Compression::kNone;
}

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kZstd:
      return "zstd";
    case Compression::kGzip:
      return "gzip";
    case Compression::kNone:
      break;
  }
  return "none";
}

Status AppendFrame(Compression c, std::string_view content, const std::string& what,
                   std::string* out) {
  if (c == Compression::kZstd) return AppendZstd(content, what, out);
  if (c == Compression::kGzip) return AppendGzip(content, what, out);
  out->append(content);
  return Status::Ok();
}

}  // namespace preflight::select
