#pragma once
// One shard's part of an output (its kept lines, or its annotations): a file in the work folder,
// written in chunk order whatever order the shard's chunks are finished in, compressed one
// frame per chunk (select/compress.h) and hashed as written. Thread-safe.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "base/file.h"
#include "base/sha256.h"
#include "base/status.h"
#include "select/compress.h"

namespace preflight::select {

// A finished piece: where it is, and what it holds.
struct PieceFacts {
  std::string path;
  std::string file_sha256, content_sha256;  // Of its bytes on disk, and decompressed.
  uint64_t file_bytes = 0, content_bytes = 0;
};

class PieceWriter {
 public:
  PieceWriter(std::string path, Compression compression)
      : path_(std::move(path)), compression_(compression) {}

  // Chunk `seq`'s content (compressed here, outside the lock); written with any later chunks
  // that were waiting for it. Every chunk of the shard, empty or not, must be added once.
  Status Add(uint32_t seq, std::string content);
  // After the last chunk: flushes, fsyncs and names the file; its facts.
  Result<PieceFacts> Finish();

 private:
  struct Ready {
    std::string frame, content;
  };
  Status WriteInOrder();  // Under mu_.

  std::string path_;
  Compression compression_;
  std::mutex mu_;
  bool opened_ = false;
  AtomicFile file_;
  Sha256 file_sha_, content_sha_;
  uint64_t content_bytes_ = 0;
  uint32_t next_ = 0;
  std::map<uint32_t, Ready> waiting_;
};

}  // namespace preflight::select
