#pragma once
// Sequential, line-aligned chunks of one input file, plain, gzip- or zstd-compressed (by content,
// corpus/input_format.h), hashed with SHA-256 as read. A compressed file whose content is not text
// (a gzipped Parquet file or tar archive) is refused on the first Next(). A UTF-8 byte-order mark
// at the very start of the stream is skipped (skipped_bom() says so; offsets still count it). A
// chunk always ends just after a '\n' (or at the end of the input), so that lines never straddle
// chunks. Memory is O(chunk size
// + longest line). Not thread-safe; one reader per file.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha256.h"
#include "base/status.h"
#include "corpus/input_format.h"

namespace preflight::corpus {

class ChunkReader {
 public:
  // `max_line_bytes`: the buffer grows for long lines up to this size; a line that does not fit
  // is a Corruption error naming its byte offset (so memory stays bounded on a file without
  // newlines). Shorter lines are not checked here: the scanner limits document sizes.
  // [begin, end) is a byte range of the file on disk; only an uncompressed file is cut there. A
  // compressed file is read whole by the (non-empty) range that starts at byte 0 and not at all
  // by others
  // (ranges that tile the file still read each line once). Open() detects the format and
  // refuses binary files (DetectFileFormat); OpenAs() trusts `format`.
  static Result<std::unique_ptr<ChunkReader>> Open(const std::string& path, uint64_t max_line_bytes,
                                                   uint64_t begin = 0, uint64_t end = UINT64_MAX);
  static Result<std::unique_ptr<ChunkReader>> OpenAs(const std::string& path, Format format,
                                                     uint64_t max_line_bytes, uint64_t begin = 0,
                                                     uint64_t end = UINT64_MAX);
  virtual ~ChunkReader();

  // Next chunk, or an empty view at the end. The view is valid until the next call and is
  // followed by at least kPadding readable bytes (for simdjson).
  Result<std::string_view> Next();
  // The same chunk without a copy: the reader's buffer, holding the chunk at [0, size) followed
  // by kPadding readable bytes, is swapped into `out`, and `out`'s former buffer becomes the
  // reader's (so a caller that recycles buffers allocates none). Returns 0 at the end.
  Result<size_t> NextInto(std::vector<char>* out);
  // Offset of the current chunk's first byte in the decompressed stream.
  uint64_t chunk_offset() const { return chunk_offset_; }
  // Bytes read from disk so far, and the file's size on disk (for progress).
  uint64_t disk_bytes_read() const { return disk_read_; }
  uint64_t disk_bytes_total() const { return disk_total_; }
  // SHA-256 of every byte read from disk (unless HashInto); call after Next() returned an empty
  // view.
  std::string Sha256Hex() { return sha_.HexDigest(); }
  // Feeds every byte read from disk to `outer` (a folder's hash, which must outlive this)
  // instead of this reader's own hash: each byte is hashed once.
  void HashInto(Sha256* outer) { outer_sha_ = outer; }
  // Hashes nothing (a pass that reads an input already hashed).
  void SkipHash() { hash_ = false; }
  // Whether the stream started with a UTF-8 byte-order mark (EF BB BF), which was skipped.
  bool skipped_bom() const { return skipped_bom_; }

  static constexpr size_t kPadding = 64;
  static constexpr size_t kChunkBytes = 8u << 20;
  // The smallest buffer: it always holds a whole byte-order mark, even for a 1-byte range.
  static constexpr size_t kMinBufferBytes = 4u << 10;

 protected:
  // `disk_bytes`: what will be read from disk, to size the buffer (no larger than the data can
  // fill, so that a folder of many small files does not cost kChunkBytes per file).
  ChunkReader(std::string path, uint64_t max_line_bytes, uint64_t disk_bytes, bool compressed);
  // Appends up to `want` decompressed bytes to buf_ at buf_end_. Returns bytes added; 0 at EOF.
  virtual Result<size_t> Fill(size_t want) = 0;
  // Every byte read from disk goes through here.
  void Hash(std::string_view bytes) {
    if (hash_) (outer_sha_ != nullptr ? outer_sha_ : &sha_)->Update(bytes);
  }

  std::string path_;
  uint64_t max_line_bytes_;
  std::vector<char> buf_;  // At least buffer_size_ bytes, from the first Next() on.
  size_t buffer_size_;     // Filled up to this (less kPadding): it alone decides the chunks.
  size_t buf_begin_ = 0, buf_end_ = 0;  // Unconsumed bytes are buf_[buf_begin_, buf_end_).
  uint64_t chunk_offset_ = 0;           // Stream offset of buf_[buf_begin_].
  uint64_t disk_read_ = 0, disk_total_ = 0;
  bool eof_ = false;
  bool bom_checked_ = false, skipped_bom_ = false;
  bool compressed_ = false;  // Its first decompressed bytes are checked (CheckDecompressedHead).
  Sha256 sha_;
  Sha256* outer_sha_ = nullptr;
  bool hash_ = true;

  friend class PlainReader;
  friend class ZstdReader;
  friend class GzipReader;
};

}  // namespace preflight::corpus
