#include "parquet/chunk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "parquet/format.h"

namespace preflight::parquet {

namespace {
constexpr size_t kReadAhead = size_t{1} << 20;
constexpr size_t kFirstHeaderRead = 256;
// A footer describes columns and row groups in a few bytes each: thousands of both fit in a few
// MiB. A larger length is damage, and is refused before it is allocated and read.
constexpr uint32_t kMaxFooterBytes = uint32_t{256} << 20;
}  // namespace

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status InputFile::Open(const std::string& path, const std::string& name) {
  name_ = name;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(name + ": no such file");
    return Status::IOError(name + ": cannot open: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    return Status::IOError(name + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(name + ": not a regular file");
  size_ = static_cast<uint64_t>(st.st_size);
  return Status::Ok();
}

Status InputFile::ReadAt(uint64_t offset, size_t n, uint8_t* out) {
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(name_ + ": read failed at byte " + std::to_string(offset) + ": " +
                             std::strerror(errno));
    }
    if (got == 0) {
      return Status::Corruption(name_ + ": the file ends at byte " + std::to_string(offset) +
                                ", before the bytes its footer describes (did it change?)");
    }
    bytes_read_ += static_cast<uint64_t>(got);
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
  return Status::Ok();
}

Status ReadFooter(InputFile& file, FileMeta* meta, uint64_t* data_end) {
  const std::string& name = file.name();
  const uint64_t size = file.size();
  uint8_t head[4] = {}, tail[8] = {};
  if (size >= 4) PF_RETURN_IF_ERROR(file.ReadAt(0, 4, head));
  if (size >= 12) PF_RETURN_IF_ERROR(file.ReadAt(size - 8, 8, tail));
  const bool starts = std::memcmp(head, "PAR1", 4) == 0;
  if (std::memcmp(tail + 4, "PARE", 4) == 0 || std::memcmp(head, "PARE", 4) == 0) {
    return Status::InvalidArgument(name +
                                   ": an encrypted Parquet file (magic \"PARE\"); "
                                   "preflight does not read encrypted files: decrypt it first");
  }
  if (!starts) {
    return Status::InvalidArgument(name + ": not a Parquet file (it does not start with \"PAR1\")");
  }
  if (size < 12 || std::memcmp(tail + 4, "PAR1", 4) != 0) {
    return Status::Corruption(name + ": truncated Parquet file: " + std::to_string(size) +
                              " bytes, without the footer and the \"PAR1\" that end a whole file");
  }
  uint32_t footer = 0;
  std::memcpy(&footer, tail, 4);
  if (footer > size - 12) {
    return Status::Corruption(name + ": the footer's length (" + std::to_string(footer) +
                              " bytes) is more than the file holds; the file is damaged");
  }
  if (footer > kMaxFooterBytes) {
    return Status::Corruption(name + ": a footer of " + std::to_string(footer) +
                              " bytes (over 256 MiB): the file is damaged");
  }
  *data_end = size - 8 - footer;
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[footer + 1]);
  PF_RETURN_IF_ERROR(file.ReadAt(*data_end, footer, bytes.get()));
  std::string error;
  if (!ParseFileMeta(bytes.get(), footer, meta, &error)) {
    return Status::Corruption(name + ": corrupt footer (" + std::to_string(footer) +
                              " bytes at byte " + std::to_string(*data_end) + "): " + error);
  }
  if (meta->encrypted) {
    return Status::InvalidArgument(
        name +
        ": its columns are encrypted (the footer names an "
        "encryption algorithm); preflight does not read encrypted files");
  }
  return Status::Ok();
}

void PageReader::Reset(const ChunkSpec& spec) {
  spec_ = spec;
  pos_ = spec.begin;
  window_offset_ = spec.begin;
  window_len_ = 0;
}

Status PageReader::Error(uint64_t offset, const std::string& what, bool header) const {
  return Status::Corruption(spec_.where + ": " + (header ? "page header" : "page") + " at byte " +
                            std::to_string(offset) + ": " + what);
}

Status PageReader::Fill(size_t need) {
  const uint64_t window_end = window_offset_ + window_len_;
  if (pos_ >= window_offset_ && pos_ + need <= window_end) return Status::Ok();
  const size_t kept = pos_ >= window_offset_ && pos_ < window_end ? window_end - pos_ : 0;
  if (kept > 0) std::memmove(window_.data(), window_.data() + (pos_ - window_offset_), kept);
  const size_t want =
      static_cast<size_t>(std::min<uint64_t>(std::max(need, kReadAhead), spec_.end - pos_));
  window_.Resize(kept);
  window_.Resize(want, /*keep=*/true);
  window_offset_ = pos_;
  window_len_ = kept;
  PF_RETURN_IF_ERROR(spec_.file->ReadAt(pos_ + kept, want - kept, window_.data() + kept));
  window_len_ = want;
  return Status::Ok();
}

Status PageReader::ReadHeader(Page* page, size_t* header_size) {
  const uint64_t left = spec_.end - pos_;
  size_t need = static_cast<size_t>(std::min<uint64_t>(kFirstHeaderRead, left));
  while (true) {
    PF_RETURN_IF_ERROR(Fill(need));
    const size_t available =
        static_cast<size_t>(std::min<uint64_t>(window_offset_ + window_len_, spec_.end) - pos_);
    std::string error;
    bool truncated = false;
    const uint8_t* at = window_.data() + (pos_ - window_offset_);
    *header_size = ParsePageHeader(at, available, &page->header, &error, &truncated);
    if (*header_size > 0) return Status::Ok();
    if (!truncated) return Error(pos_, error, true);
    if (available >= left) {
      return Error(pos_,
                   "truncated (the column chunk ends at byte " + std::to_string(spec_.end) + ")",
                   true);
    }
    need = static_cast<size_t>(std::min<uint64_t>(uint64_t{available} * 2, left));
  }
}

Result<bool> PageReader::Next(Page* page, Buffer* data, Buffer* dictionary) {
  while (pos_ < spec_.end) {
    size_t header_size = 0;
    page->offset = pos_;
    PF_RETURN_IF_ERROR(ReadHeader(page, &header_size));
    const PageHeader& h = page->header;
    const uint64_t body_at = pos_ + header_size;
    if (static_cast<uint64_t>(h.compressed_size) > spec_.end - body_at) {
      return Error(pos_, "its " + std::to_string(h.compressed_size) +
                             " bytes run past the column chunk's end at byte " +
                             std::to_string(spec_.end));
    }
    const bool dict = h.type == kDictionaryPage;
    if (!dict && h.type != kDataPage &&
        h.type != kDataPageV2) {  // An index page, or a page type from a newer writer: not needed.
      pos_ = body_at + static_cast<uint64_t>(h.compressed_size);
      continue;
    }
    PF_RETURN_IF_ERROR(Fill(header_size + static_cast<size_t>(h.compressed_size)));
    const uint8_t* body = window_.data() + (body_at - window_offset_);
    if (h.has_crc && spec_.verify_crc) {
      const uint32_t crc =
          static_cast<uint32_t>(crc32(0, body, static_cast<uInt>(h.compressed_size)));
      if (crc != h.crc) return Error(pos_, "CRC mismatch (the page's bytes are damaged)");
    }
    PF_RETURN_IF_ERROR(Decode(page, body, dict ? dictionary : data, dict));
    pos_ = body_at + static_cast<uint64_t>(h.compressed_size);
    return true;
  }
  return false;
}

Status PageReader::Decode(Page* page, const uint8_t* body, Buffer* out, bool stable) {
  const PageHeader& h = page->header;
  const size_t compressed = static_cast<size_t>(h.compressed_size);
  const size_t uncompressed = static_cast<size_t>(h.uncompressed_size);
  if (uncompressed > spec_.max_page_bytes) {
    return Error(page->offset, "an uncompressed size of " + std::to_string(uncompressed) +
                                   " bytes is over the limit of " +
                                   std::to_string(spec_.max_page_bytes));
  }
  size_t levels = 0;  // v2: the levels before the values are never compressed
  bool compressed_values = spec_.codec != kUncompressed;
  if (h.type == kDataPageV2) {
    if (h.definition_levels_byte_length < 0 || h.repetition_levels_byte_length < 0) {
      return Error(page->offset, "negative level lengths");
    }
    levels = static_cast<size_t>(h.definition_levels_byte_length) +
             static_cast<size_t>(h.repetition_levels_byte_length);
    if (levels > compressed || levels > uncompressed) {
      return Error(page->offset,
                   "its levels (" + std::to_string(levels) + " bytes) are longer than the page");
    }
    compressed_values = compressed_values && h.is_compressed;
  }
  const uint8_t* values = body + levels;
  const size_t values_in = compressed - levels, values_out = uncompressed - levels;
  const int32_t codec = compressed_values ? spec_.codec : int32_t{kUncompressed};
  Status st = Decompressor::CheckSize(codec, values, values_in, values_out);
  if (!st.ok()) return Error(page->offset, st.message());
  if (codec == kUncompressed && !stable) {
    page->data = body;
    page->size = uncompressed;
    return Status::Ok();
  }
  uint8_t* dst = out->Resize(uncompressed);
  if (levels > 0) std::memcpy(dst, body, levels);
  st = decompressor_.Decompress(codec, values, values_in, dst + levels, values_out);
  if (!st.ok()) return Error(page->offset, st.message());
  page->data = dst;
  page->size = uncompressed;
  return Status::Ok();
}

}  // namespace preflight::parquet
