#include "corpus/chunk_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/file.h"

namespace preflight::corpus {

// Plain files: pread over [S, E), where S is the first line start at or after `begin` and E the
// first line start at or after `end`. Ranges that tile [0, size) therefore tile the lines: every
// line is read by exactly one range. The SHA-256 covers the bytes of the range.
class PlainReader final : public ChunkReader {
 public:
  PlainReader(std::string path, uint64_t max_line, int fd, uint64_t size, uint64_t range_bytes)
      : ChunkReader(std::move(path), max_line, range_bytes, false), fd_(fd), size_(size) {}
  ~PlainReader() override { ::close(fd_); }

  // The first line start at or after `at` (a line starts at 0 or just after a '\n').
  Result<uint64_t> LineStartAtOrAfter(uint64_t at) {
    if (at == 0) return uint64_t{0};
    if (at >= size_) return size_;
    std::vector<char> scan(64 << 10);
    uint64_t p = at - 1;
    while (p < size_) {
      ssize_t n = ::pread(fd_, scan.data(), scan.size(), static_cast<off_t>(p));
      if (n < 0) return Status::IOError(path_ + ": read failed: " + std::strerror(errno));
      if (n == 0) break;
      const char* nl = static_cast<const char*>(std::memchr(scan.data(), '\n', n));
      if (nl != nullptr) return p + (nl - scan.data()) + 1;
      p += n;
    }
    return size_;
  }

  Status SetRange(uint64_t begin, uint64_t end) {
    PF_ASSIGN_OR_RETURN(pos_, LineStartAtOrAfter(begin));
    PF_ASSIGN_OR_RETURN(end_, LineStartAtOrAfter(std::min(end, size_)));
    if (end_ < pos_) end_ = pos_;
    chunk_offset_ = pos_;
    disk_total_ = end_ - pos_;
    return Status::Ok();
  }

  Result<size_t> Fill(size_t want) override {
    want = static_cast<size_t>(std::min<uint64_t>(want, end_ - pos_));
    if (want == 0) return size_t{0};
    ssize_t n = ::pread(fd_, buf_.data() + buf_end_, want, static_cast<off_t>(pos_));
    if (n < 0) {
      return Status::IOError(path_ + ": read failed at byte " + std::to_string(pos_) + ": " +
                             std::strerror(errno));
    }
    Hash(std::string_view(buf_.data() + buf_end_, n));
    pos_ += n;
    disk_read_ += n;
    return static_cast<size_t>(n);
  }

 private:
  int fd_;
  uint64_t size_, pos_ = 0, end_ = 0;
};

class ZstdReader final : public ChunkReader {
 public:
  ZstdReader(std::string path, uint64_t max_line, int fd, uint64_t size)
      : ChunkReader(std::move(path), max_line, size, true), fd_(fd), in_(ZSTD_DStreamInSize()) {
    disk_total_ = size;
    ds_ = ZSTD_createDStream();
    ZSTD_initDStream(ds_);
  }
  ~ZstdReader() override {
    ZSTD_freeDStream(ds_);
    ::close(fd_);
  }

  Result<size_t> Fill(size_t want) override {
    size_t produced = 0;
    while (produced == 0) {
      if (input_.pos == input_.size) {
        ssize_t n = ::read(fd_, in_.data(), in_.size());
        if (n < 0) return Status::IOError(path_ + ": read failed: " + std::strerror(errno));
        if (n == 0) {
          if (frame_open_) {
            return Status::Corruption(
                path_ + ": truncated zstd stream at byte offset " + std::to_string(disk_read_) +
                " (the file ends inside a frame; re-create or re-download it)");
          }
          return size_t{0};
        }
        Hash(std::string_view(in_.data(), n));
        disk_read_ += n;
        input_ = ZSTD_inBuffer{in_.data(), static_cast<size_t>(n), 0};
      }
      ZSTD_outBuffer out{buf_.data() + buf_end_, want, 0};
      size_t ret = ZSTD_decompressStream(ds_, &out, &input_);
      if (ZSTD_isError(ret)) {
        return Status::Corruption(path_ + ": not a valid zstd stream near byte offset " +
                                  std::to_string(disk_read_ - (input_.size - input_.pos)) + " (" +
                                  ZSTD_getErrorName(ret) + ")");
      }
      frame_open_ = ret != 0;
      produced = out.pos;
      if (produced == 0 && input_.pos < input_.size) continue;
    }
    return produced;
  }

  int fd_;
  ZSTD_DStream* ds_;
  std::vector<char> in_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool frame_open_ = false;
};

// gzip files, including several members one after another (as pigz and bgzip write them).
class GzipReader final : public ChunkReader {
 public:
  GzipReader(std::string path, uint64_t max_line, int fd, uint64_t size)
      : ChunkReader(std::move(path), max_line, size, true), fd_(fd), in_(1 << 16) {
    disk_total_ = size;
    ok_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK;  // 16: gzip wrapper only.
  }
  ~GzipReader() override {
    if (ok_) inflateEnd(&zs_);
    ::close(fd_);
  }

  Result<size_t> Fill(size_t want) override {
    if (!ok_) return Status::Internal(path_ + ": cannot start the gzip decoder (out of memory?)");
    size_t produced = 0;
    while (produced == 0) {
      if (zs_.avail_in == 0) {
        ssize_t n = ::read(fd_, in_.data(), in_.size());
        if (n < 0) return Status::IOError(path_ + ": read failed: " + std::strerror(errno));
        if (n == 0) {
          if (member_open_) {
            return Status::Corruption(
                path_ + ": truncated gzip stream at byte offset " + std::to_string(disk_read_) +
                " (the file ends inside a member; re-create or re-download it)");
          }
          return size_t{0};
        }
        Hash(std::string_view(in_.data(), n));
        disk_read_ += n;
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(n);
      }
      zs_.next_out = reinterpret_cast<Bytef*>(buf_.data() + buf_end_);
      zs_.avail_out = static_cast<uInt>(want);
      const int ret = inflate(&zs_, Z_NO_FLUSH);
      produced = want - zs_.avail_out;
      if (ret == Z_STREAM_END) {
        inflateReset(&zs_);  // Another member may follow.
        member_open_ = false;
      } else if (ret == Z_OK || ret == Z_BUF_ERROR) {
        member_open_ = true;
      } else {
        return Status::Corruption(path_ + ": not a valid gzip stream near byte offset " +
                                  std::to_string(disk_read_ - zs_.avail_in) + " (" +
                                  (zs_.msg ? zs_.msg : "zlib error " + std::to_string(ret)) +
                                  "; re-create or re-download it)");
      }
    }
    return produced;
  }

 private:
  int fd_;
  std::vector<char> in_;
  z_stream zs_{};
  bool ok_ = false, member_open_ = false;
};

// Compressed text is taken to expand at most 16-fold: more only means more, smaller chunks.
ChunkReader::ChunkReader(std::string path, uint64_t max_line_bytes, uint64_t disk_bytes,
                         bool compressed)
    : path_(std::move(path)),
      max_line_bytes_(max_line_bytes),
      buffer_size_(std::clamp<uint64_t>(compressed ? disk_bytes * 16 : disk_bytes + 1,
                                        kMinBufferBytes, kChunkBytes) +
                   kPadding),
      compressed_(compressed) {}

ChunkReader::~ChunkReader() = default;

Result<std::unique_ptr<ChunkReader>> ChunkReader::Open(const std::string& path,
                                                       uint64_t max_line_bytes, uint64_t begin,
                                                       uint64_t end) {
  if (IsDirectory(path)) return Status::InvalidArgument(path + ": is a folder, not a file");
  PF_ASSIGN_OR_RETURN(Format format, DetectFileFormat(path));
  return OpenAs(path, format, max_line_bytes, begin, end);
}

Result<std::unique_ptr<ChunkReader>> ChunkReader::OpenAs(const std::string& path, Format format,
                                                         uint64_t max_line_bytes, uint64_t begin,
                                                         uint64_t end) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::InvalidArgument(path + ": cannot open (" + std::strerror(err) + ")");
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + ": is a folder, not a file");
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  const bool starts_at_zero = begin == 0 && end > 0;
  if (!IsSplittable(format) && starts_at_zero) {
    if (format == Format::kJsonlZstd)
      return std::unique_ptr<ChunkReader>(new ZstdReader(path, max_line_bytes, fd, size));
    if (format == Format::kJsonlGzip)
      return std::unique_ptr<ChunkReader>(new GzipReader(path, max_line_bytes, fd, size));
  }
  if (!IsSplittable(format)) {  // A plain-text file: whole, or nothing for a later range.
    begin = starts_at_zero ? 0 : size;
    end = starts_at_zero ? UINT64_MAX : size;
  }
  const uint64_t range_bytes = std::min(end, size) - std::min(begin, std::min(end, size));
  auto* reader = new PlainReader(path, max_line_bytes, fd, size, range_bytes);
  std::unique_ptr<ChunkReader> owned(reader);
  PF_RETURN_IF_ERROR(reader->SetRange(begin, end));
  return owned;
}

Result<size_t> ChunkReader::NextInto(std::vector<char>* out) {
  if (buf_.empty()) std::swap(buf_, *out);  // The first chunk fills the caller's buffer.
  PF_ASSIGN_OR_RETURN(std::string_view chunk, Next());
  if (chunk.empty()) return size_t{0};
  // Hand the filled buffer over; the partial line after the chunk starts the caller's old one.
  const size_t cut = chunk.size(), rest = buf_end_ - cut;
  if (out->size() < buffer_size_) out->resize(buffer_size_);
  std::memcpy(out->data(), buf_.data() + cut, rest);
  std::swap(buf_, *out);
  chunk_offset_ += cut;
  buf_begin_ = 0;
  buf_end_ = rest;
  return cut;
}

Result<std::string_view> ChunkReader::Next() {
  // The buffer's size is buffer_size_, grown only for a long line, whatever memory it was handed:
  // so chunks end at the same places on every run.
  if (buf_.size() < buffer_size_) buf_.resize(buffer_size_);
  // Drop what the previous chunk returned; keep the partial line after it.
  if (buf_begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + buf_begin_, buf_end_ - buf_begin_);
    buf_end_ -= buf_begin_;
    chunk_offset_ += buf_begin_;
    buf_begin_ = 0;
  }
  size_t scanned = 0;  // buf_[0, scanned) is known to hold no '\n'.
  while (true) {
    while (!eof_ && buf_end_ < buffer_size_ - kPadding) {
      PF_ASSIGN_OR_RETURN(size_t got, Fill(buffer_size_ - kPadding - buf_end_));
      if (got == 0) eof_ = true;
      buf_end_ += got;
    }
    if (!bom_checked_ && (buf_end_ >= 3 || eof_)) {
      bom_checked_ = true;
      // The fill loop stopped at a full buffer (4 KiB at least) or at the end: a fair head.
      if (compressed_ && chunk_offset_ == 0) {
        PF_RETURN_IF_ERROR(CheckDecompressedHead(
            path_, std::string_view(buf_.data(), std::min(buf_end_, kSniffBytes))));
      }
      if (chunk_offset_ == 0 && buf_end_ >= 3 && std::memcmp(buf_.data(), "\xef\xbb\xbf", 3) == 0) {
        skipped_bom_ = true;
        std::memmove(buf_.data(), buf_.data() + 3, buf_end_ - 3);
        buf_end_ -= 3;
        chunk_offset_ = 3;
        continue;
      }
    }
    if (buf_end_ == 0) return std::string_view();
    size_t cut = 0;
    for (size_t i = buf_end_; i > scanned; --i) {
      if (buf_[i - 1] == '\n') {
        cut = i;
        break;
      }
    }
    if (cut == 0 && eof_) cut = buf_end_;  // The last line has no '\n'.
    if (cut > 0) {
      std::memset(buf_.data() + buf_end_, 0, kPadding);
      buf_begin_ = cut;
      return std::string_view(buf_.data(), cut);
    }
    // One line fills the whole buffer: grow it, up to the line limit.
    if (buf_end_ >= max_line_bytes_) {
      return Status::Corruption(path_ + ": the line at byte offset " +
                                std::to_string(chunk_offset_) + " is longer than " +
                                std::to_string(max_line_bytes_) +
                                " bytes; documents over the limit are refused");
    }
    scanned = buf_end_;
    buffer_size_ = std::min<uint64_t>(buffer_size_ * 2, max_line_bytes_ + kPadding + 1);
    if (buf_.size() < buffer_size_) buf_.resize(buffer_size_);
  }
}

}  // namespace preflight::corpus
