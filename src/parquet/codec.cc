#include "parquet/codec.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>
#include <cstring>
#include <string>

#include "parquet/format.h"

namespace preflight::parquet {

namespace {

Status Bad(const std::string& what) { return Status::Corruption(what); }

std::string SizeMismatch(const char* codec, size_t got, size_t want) {
  return std::string(codec) + ": decompressed to " + std::to_string(got) +
         " bytes, the page header says " + std::to_string(want);
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

Status Lz4Block(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  if (in_size > INT_MAX || out_size > INT_MAX) return Bad("lz4: block over 2 GiB");
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                    static_cast<int>(in_size), static_cast<int>(out_size));
  if (n < 0) return Bad("lz4: corrupt block");
  if (static_cast<size_t>(n) != out_size) return Bad(SizeMismatch("lz4", n, out_size));
  return Status::Ok();
}

// Hadoop's framing: blocks of [uncompressed size (4 bytes, big-endian), compressed size, LZ4
// block]. False when the bytes are not framed that way (then they are tried otherwise).
bool Lz4Hadoop(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  size_t done = 0;
  while (in_size >= 8) {
    const size_t raw = BigEndian32(in), packed = BigEndian32(in + 4);
    if (packed > in_size - 8 || raw > out_size - done) return false;
    if (!Lz4Block(in + 8, packed, out + done, raw).ok()) return false;
    in += 8 + packed;
    in_size -= 8 + packed;
    done += raw;
  }
  return in_size == 0 && done == out_size;
}

Status Lz4Frame(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    return Status::Internal("lz4: cannot create a decompression context");
  }
  size_t done = 0;
  size_t ret = 1;
  while (in_size > 0 && ret != 0) {
    size_t dst = out_size - done, src = in_size;
    ret = LZ4F_decompress(ctx, out + done, &dst, in, &src, nullptr);
    if (LZ4F_isError(ret)) break;
    if (src == 0 && dst == 0) break;  // No progress: the output is full.
    done += dst;
    in += src;
    in_size -= src;
  }
  LZ4F_freeDecompressionContext(ctx);
  if (LZ4F_isError(ret)) return Bad(std::string("lz4: ") + LZ4F_getErrorName(ret));
  if (ret != 0) return Bad("lz4: the frame is truncated or larger than the page header says");
  if (done != out_size) return Bad(SizeMismatch("lz4", done, out_size));
  return Status::Ok();
}

Status Lz4Any(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  if (Lz4Hadoop(in, in_size, out, out_size)) return Status::Ok();
  if (in_size >= 4 && in[0] == 0x04 && in[1] == 0x22 && in[2] == 0x4d && in[3] == 0x18) {
    return Lz4Frame(in, in_size, out, out_size);
  }
  return Lz4Block(in, in_size, out, out_size);
}

Status Brotli(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  size_t n = out_size;
  if (BrotliDecoderDecompress(in_size, in, &n, out) != BROTLI_DECODER_RESULT_SUCCESS) {
    return Bad("brotli: corrupt data, or more than the page header says");
  }
  if (n != out_size) return Bad(SizeMismatch("brotli", n, out_size));
  return Status::Ok();
}

Status Snappy(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  size_t n = out_size;
  if (snappy_uncompress(reinterpret_cast<const char*>(in), in_size, reinterpret_cast<char*>(out),
                        &n) != SNAPPY_OK) {
    return Bad("snappy: corrupt data");
  }
  if (n != out_size) return Bad(SizeMismatch("snappy", n, out_size));
  return Status::Ok();
}

}  // namespace

struct Decompressor::State {
  ZSTD_DCtx* zstd = nullptr;
  z_stream zlib{};
  bool zlib_ready = false;
  ~State() {
    if (zstd != nullptr) ZSTD_freeDCtx(zstd);
    if (zlib_ready) inflateEnd(&zlib);
  }
};

Decompressor::Decompressor() : state_(std::make_unique<State>()) {}
Decompressor::~Decompressor() = default;

bool CodecSupported(int32_t codec) {
  return codec == kUncompressed || codec == kSnappy || codec == kGzip || codec == kBrotli ||
         codec == kLz4 || codec == kZstd || codec == kLz4Raw;
}

Status Decompressor::CheckSize(int32_t codec, const uint8_t* in, size_t in_size, size_t out_size) {
  switch (codec) {
    case kUncompressed:
      if (in_size != out_size) return Bad(SizeMismatch("uncompressed page", in_size, out_size));
      return Status::Ok();
    case kSnappy: {
      size_t n = 0;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(in), in_size, &n) != SNAPPY_OK) {
        return Bad("snappy: corrupt length header");
      }
      if (n != out_size) return Bad(SizeMismatch("snappy", n, out_size));
      return Status::Ok();
    }
    case kZstd: {
      // A single frame that records its size must record the page's.
      const unsigned long long n = ZSTD_getFrameContentSize(in, in_size);
      if (n == ZSTD_CONTENTSIZE_ERROR) return Bad("zstd: not a valid zstd frame");
      const bool single = ZSTD_findFrameCompressedSize(in, in_size) == in_size;
      if (single && n != ZSTD_CONTENTSIZE_UNKNOWN && n != out_size) {
        return Bad(SizeMismatch("zstd", n, out_size));
      }
      return Status::Ok();
    }
    case kGzip:
      if (out_size / 1032 > in_size) return Bad(SizeMismatch("gzip", in_size * 1032, out_size));
      return Status::Ok();
    case kLz4:
    case kLz4Raw:
      if (out_size / 255 > in_size + 16) return Bad(SizeMismatch("lz4", in_size * 255, out_size));
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

Status Decompressor::Decompress(int32_t codec, const uint8_t* in, size_t in_size, uint8_t* out,
                                size_t out_size) {
  switch (codec) {
    case kUncompressed:
      if (in_size != out_size) return Bad(SizeMismatch("uncompressed page", in_size, out_size));
      if (out_size > 0) std::memcpy(out, in, out_size);
      return Status::Ok();
    case kSnappy:
      return Snappy(in, in_size, out, out_size);
    case kGzip:
      return Inflate(in, in_size, out, out_size);
    case kZstd: {
      if (state_->zstd == nullptr) state_->zstd = ZSTD_createDCtx();
      if (state_->zstd == nullptr) return Status::Internal("zstd: cannot create a context");
      const size_t n = ZSTD_decompressDCtx(state_->zstd, out, out_size, in, in_size);
      if (ZSTD_isError(n)) return Bad(std::string("zstd: ") + ZSTD_getErrorName(n));
      if (n != out_size) return Bad(SizeMismatch("zstd", n, out_size));
      return Status::Ok();
    }
    case kBrotli:
      return Brotli(in, in_size, out, out_size);
    case kLz4:
      return Lz4Any(in, in_size, out, out_size);
    case kLz4Raw:
      return Lz4Block(in, in_size, out, out_size);
    default:
      return Status::InvalidArgument("codec " + CodecName(codec) + " is not supported");
  }
}

// gzip (or zlib) members back to back, until the output is full.
Status Decompressor::Inflate(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  z_stream& z = state_->zlib;
  if (!state_->zlib_ready) {
    if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::Internal("gzip: cannot start zlib");
    state_->zlib_ready = true;
  } else if (inflateReset(&z) != Z_OK) {
    return Status::Internal("gzip: cannot reset zlib");
  }
  if (in_size > UINT_MAX || out_size > UINT_MAX) return Bad("gzip: page over 4 GiB");
  z.next_in = const_cast<uint8_t*>(in);
  z.avail_in = static_cast<uInt>(in_size);
  z.next_out = out;
  z.avail_out = static_cast<uInt>(out_size);
  while (true) {
    const int ret = inflate(&z, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
      if (z.avail_out == 0 || z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) return Status::Internal("gzip: cannot reset zlib");
      continue;  // Another member.
    }
    if (ret == Z_BUF_ERROR) {
      return Bad(z.avail_out == 0 ? "gzip: more data than the page header says"
                                  : "gzip: the compressed data is truncated");
    }
    if (ret != Z_OK) {
      return Bad(std::string("gzip: ") + (z.msg != nullptr ? z.msg : "corrupt data"));
    }
  }
  const size_t n = out_size - z.avail_out;
  if (n != out_size) return Bad(SizeMismatch("gzip", n, out_size));
  return Status::Ok();
}

}  // namespace preflight::parquet
