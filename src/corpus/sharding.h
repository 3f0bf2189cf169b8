#pragma once
// How a list of inputs is cut into shards: the units that threads and processes read on their
// own (corpus/shard_scan.h). Every file of every input is one shard -- a compressed JSONL file, a
// plain-text document, a plain JSONL or Parquet file up to `split_bytes` -- except a larger plain
// JSONL file, which is cut into byte ranges of `split_bytes` (each range reads the lines that
// start in it), and a larger Parquet file of several row groups, which is cut between row groups
// into runs of whole row groups spanning at most `split_bytes` (or one row group, if larger).
// The sharding depends only on the inputs (their files, formats and sizes), never on the thread or
// process count, so whatever is computed per shard is the same however the shards are dealt out.
// Shards are numbered in reading order: input by input, file by file, range by range.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "corpus/input_format.h"

namespace preflight::corpus {

inline constexpr uint64_t kSplitBytes = 64ull << 20;

struct ShardedFile {
  uint32_t input = 0;  // Position of its input in the path list.
  std::string path;    // To open: the input itself, or the folder joined with `rel`.
  std::string rel;     // Inside its input folder; empty for a file input.
  Format format = Format::kJsonl;
  uint64_t size = 0;     // Bytes on disk.
  int64_t mtime_ns = 0;  // Last modification (a resumed run's first identity check).
  uint32_t first_shard = 0, shards = 0;  // Its shards: [first_shard, first_shard + shards).
  // A Parquet file's row groups (rows, first row, byte span), from its footer.
  std::vector<parquet::RowGroupInfo> row_groups;
};

struct Shard {
  uint32_t file = 0;            // Into Sharding::files.
  uint64_t begin = 0, end = 0;  // Byte range on disk; [0, size) for a whole file.
  // A Parquet shard's row groups, [first_group, end_group); its byte range is theirs (the first
  // row group's starts at byte 0, the last one's ends at the end of the file).
  int first_group = 0, end_group = 0;
  // Whether this shard's read yields the whole file's SHA-256: the one shard of a file, or the
  // first shard of a cut file (which hashes the rest of the file after its own range: the whole
  // file, after its row groups, for Parquet).
  bool hashes_file = true;
  uint64_t disk_bytes() const { return end - begin; }
};

struct ShardedInput {
  std::string path;
  bool folder = false;
  uint32_t first_file = 0, files = 0;  // Its files: [first_file, first_file + files).
};

struct Sharding {
  std::vector<ShardedInput> inputs;
  std::vector<ShardedFile> files;
  std::vector<Shard> shards;
  uint64_t disk_bytes = 0;  // Of every file.

  const ShardedFile& FileOf(uint32_t shard) const { return files[shards[shard].file]; }
};

// Lists every input's files (corpus/input_format.h: each file's format is checked here, before
// any document is read) and cuts them into shards. NotFound for a missing input.
Result<Sharding> ShardInputs(const std::vector<std::string>& paths,
                             uint64_t split_bytes = kSplitBytes);

// The SHA-256 that names a folder input: of "relative path\0file SHA-256 (hex)\0" for every
// file, in reading order. A file input is named by its own bytes' SHA-256.
std::string FolderSha256(const std::vector<std::string>& rels,
                         const std::vector<std::string>& file_sha256);

}  // namespace preflight::corpus
