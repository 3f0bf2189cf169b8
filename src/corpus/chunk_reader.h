#pragma once
// Sequential, line-aligned chunks of one input file, plain or zstd-compressed (by the ".zst"
// suffix), hashed with SHA-256 as read. A chunk always ends just after a '\n' (or at the end of
// the input), so that lines never straddle chunks. Memory is O(chunk size + longest line).
// Not thread-safe; one reader per file.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha256.h"
#include "base/status.h"

namespace preflight::corpus {

class ChunkReader {
 public:
  // `max_line_bytes`: the buffer grows for long lines up to this size; a line that does not fit
  // is a Corruption error naming its byte offset (so memory stays bounded on a file without
  // newlines). Shorter lines are not checked here: the scanner limits document sizes.
  static Result<std::unique_ptr<ChunkReader>> Open(const std::string& path, uint64_t max_line_bytes,
                                                   uint64_t begin = 0, uint64_t end = UINT64_MAX);
  virtual ~ChunkReader();

  // Next chunk, or an empty view at the end. The view is valid until the next call and is
  // followed by at least kPadding readable bytes (for simdjson).
  Result<std::string_view> Next();
  // Offset of the current chunk's first byte in the decompressed stream.
  uint64_t chunk_offset() const { return chunk_offset_; }
  // Bytes read from disk so far, and the file's size on disk (for progress).
  uint64_t disk_bytes_read() const { return disk_read_; }
  uint64_t disk_bytes_total() const { return disk_total_; }
  // SHA-256 of every byte read from disk; call after Next() returned an empty view.
  std::string Sha256Hex() { return sha_.HexDigest(); }

  static constexpr size_t kPadding = 64;
  static constexpr size_t kChunkBytes = 8u << 20;

 protected:
  ChunkReader(std::string path, uint64_t max_line_bytes);
  // Appends up to `want` decompressed bytes to buf_ at buf_end_. Returns bytes added; 0 at EOF.
  virtual Result<size_t> Fill(size_t want) = 0;

  std::string path_;
  uint64_t max_line_bytes_;
  std::vector<char> buf_;
  size_t buf_begin_ = 0, buf_end_ = 0;  // Unconsumed bytes are buf_[buf_begin_, buf_end_).
  uint64_t chunk_offset_ = 0;           // Stream offset of buf_[buf_begin_].
  uint64_t disk_read_ = 0, disk_total_ = 0;
  bool eof_ = false;
  Sha256 sha_;

  friend class PlainReader;
  friend class ZstdReader;
};

}  // namespace preflight::corpus
