#pragma once
// Reading one column chunk page by page: the page header (Thrift), the page's bytes (CRC
// checked when the writer stored one), and its decompression. Memory is one read window (at
// least 1 MiB, or the largest page) and the caller's output buffer: a chunk is never read whole.

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "parquet/buffer.h"
#include "parquet/codec.h"
#include "parquet/metadata.h"

namespace preflight::parquet {

// A Parquet file open for positioned reads (pread), shared by the column readers of a Reader.
class InputFile {
 public:
  InputFile() = default;
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // NotFound or IOError naming `path`; `name` is how messages call the file.
  Status Open(const std::string& path, const std::string& name);
  // Reads exactly `n` bytes at `offset`: IOError on a failed read, Corruption when the file
  // ends first (it shrank since its size was read).
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out);

  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  int fd_ = -1;
  std::string name_;
  uint64_t size_ = 0;
  uint64_t bytes_read_ = 0;
};

// Checks the magic numbers ("PAR1" at both ends; "PARE", encryption, is refused) and decodes the
// footer (at most 256 MiB) into `meta`; `data_end` is where the footer starts (every page lies
// before it).
Status ReadFooter(InputFile& file, FileMeta* meta, uint64_t* data_end);

// Where a chunk is and how it is read.
struct ChunkSpec {
  InputFile* file = nullptr;
  std::string where;  // "<file>: row group 3, column \"text\"", the prefix of every message
  int32_t codec = 0;
  uint64_t begin = 0, end = 0;  // the chunk's bytes in the file
  uint64_t max_page_bytes = 0;  // a larger (uncompressed) page is refused
  bool verify_crc = true;
};

struct Page {
  PageHeader header;
  uint64_t offset = 0;  // the page header's byte offset in the file
  // The uncompressed page (v2: repetition and definition levels, then the values). Valid until
  // the next call to Next().
  const uint8_t* data = nullptr;
  size_t size = 0;
};

class PageReader {
 public:
  void Reset(const ChunkSpec& spec);
  // The next dictionary or data page (index pages and unknown page types are skipped); false at
  // the chunk's end. A dictionary page is decompressed (or copied) into `dictionary`, where it
  // stays until the next dictionary page; a data page into `data`, or, in an uncompressed chunk,
  // read in place. Errors are Corruption, prefixed with ChunkSpec::where and the page's byte
  // offset.
  Result<bool> Next(Page* page, Buffer* data, Buffer* dictionary);

  const ChunkSpec& spec() const { return spec_; }
  uint64_t offset() const { return pos_; }  // the file offset of the next page header

 private:
  Status Fill(size_t need);  // [pos_, pos_ + need) in the window; need <= end - pos_
  Status ReadHeader(Page* page, size_t* header_size);
  Status Decode(Page* page, const uint8_t* body, Buffer* out, bool stable);
  Status Error(uint64_t offset, const std::string& what, bool header = false) const;

  ChunkSpec spec_;
  Decompressor decompressor_;
  Buffer window_;
  uint64_t window_offset_ = 0;
  size_t window_len_ = 0;
  uint64_t pos_ = 0;
};

}  // namespace preflight::parquet
