#pragma once
// Reads shards of a sharding (corpus/sharding.h) on several threads, with every stage in parallel.
// A shard's bytes are read, decompressed, hashed (SHA-256) and split into lines in order, one
// chunk at a time, by whichever thread holds the shard's reader (a Parquet shard's row groups are
// decoded into rows, and its file hashed by a sequential read at the end of the shard that hashes
// it); the chunks are then processed (parsed, counted, scored, copied: the sink's work) by any
// thread. Several shards are read at once, so a pool of many shards keeps every thread reading,
// and a pool of one shard still keeps every thread parsing. Memory: O(threads x chunk), never
// O(input bytes).
//
// Everything a sink is given is numbered within its shard (records, lines), so what it computes
// does not depend on which thread read or processed a chunk: a sink that files its results by
// (shard, chunk) and merges them in that order is deterministic for any thread count.
//
// Failures: a bad record (corpus/record.h: malformed JSON, invalid UTF-8, ...) is counted and
// listed under ReadOptions::skip_bad, and otherwise fails its shard; a read error fails its
// shard. Once a shard fails, no later shard is started and later shards' results are dropped,
// but earlier shards run to their end, so the failure reported is always the first in reading
// order, whatever the thread count.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "corpus/document_parser.h"
#include "corpus/record.h"
#include "corpus/sharding.h"

namespace preflight::corpus {

// A non-blank line of a JSONL shard, a plain-text shard's one document, or a Parquet row.
struct ChunkRecord {
  // The raw JSONL line without its '\n'; for a plain-text document its synthesized line
  // {"id": path in the folder, "text": content} (empty when the document is bad); for a Parquet
  // row read with ScanRequest::lines, one JSON object of its scalar columns (empty where
  // ScanRequest::wants_line says no), else empty.
  std::string_view line;
  // A plain-text document's content, or a Parquet row's text read without lines; else empty
  // (ChunkWork::Text parses the line).
  std::string_view text;
  // Line within the shard's range, 1-based; plus ScanRequest::lines_before. 0 for plain text.
  // A Parquet row counts as a line: row within the shard's row groups, from 1.
  int64_t line_no = 0;
  // Why a plain-text document or Parquet row is bad (too large, invalid UTF-8, null text);
  // empty when it is not.
  std::string_view preset_bad;
  bool has_text = false;      // `text` is the text (plain text; Parquet without lines).
  int32_t row_group = -1;     // A Parquet row's row group (from 0); -1 for other records.
  uint64_t row_in_group = 0;  // A Parquet row's position in its row group (from 0).
};

struct Chunk {
  uint32_t shard = 0;
  uint32_t seq = 0;           // Position among its shard's chunks.
  uint64_t first_record = 0;  // Shard-local index of records[0].
  std::vector<ChunkRecord> records;
};

// A bad record: where it is within its shard, and why.
struct BadRecord {
  uint32_t shard = 0;
  uint64_t record = 0;  // Shard-local index.
  int64_t line_no = 0;  // As ChunkRecord::line_no.
  std::string reason;
};

// What the read of one shard found.
struct ShardRead {
  uint32_t shard = 0;
  uint64_t records = 0;  // Non-blank lines (a plain-text document: 1; Parquet: rows).
  uint64_t lines = 0;    // Lines, blank ones included (a plain-text document: 1; rows).
  uint64_t blank = 0;
  uint64_t disk_bytes = 0;  // Read for its records (a cut file's range).
  // When the shard hashes its file (Shard::hashes_file): the whole file's SHA-256 and size.
  std::string file_sha256;
  uint64_t file_bytes = 0;
  bool skipped_bom = false;
  std::vector<BadRecord> bad;  // Skipped under skip_bad, in record order.
};

// One chunk in the hands of a sink, on one thread.
class ChunkWork {
 public:
  ChunkWork(int thread, const Chunk& chunk, DocumentParser& parser, std::vector<BadRecord>& bad)
      : thread_(thread), chunk_(chunk), parser_(parser), bad_(bad) {}
  int thread() const { return thread_; }
  const Chunk& chunk() const { return chunk_; }
  // The text of records()[i] (parsing a JSONL line; the view lives until the next call), or
  // false for a bad record, which is then recorded as such.
  bool Text(size_t i, std::string_view* text);

 private:
  int thread_;
  const Chunk& chunk_;
  DocumentParser& parser_;
  std::vector<BadRecord>& bad_;
};

class ShardSink {
 public:
  virtual ~ShardSink() = default;
  // Any thread, several at once; the chunks of one shard arrive in any order. An error fails the
  // chunk's shard.
  virtual Status OnChunk(ChunkWork& work) = 0;
  // Once per shard that did not fail, after all its chunks were processed (any thread).
  virtual Status OnShardDone(const ShardRead& read) {
    (void)read;
    return Status::Ok();
  }
};

struct ScanRequest {
  const Sharding* sharding = nullptr;
  std::vector<uint32_t> shards;  // To read, in increasing order.
  // Per shard of the sharding (empty: zeros): lines of its file before it, added to line numbers.
  std::vector<int64_t> lines_before;
  const ReadOptions* read = nullptr;
  int threads = 1;
  bool hash = true;  // Hash the files (ShardRead::file_sha256); off for a pass that re-reads.
  // Whether the sink reads ChunkRecord::line. A JSONL line is there either way. A Parquet row is
  // given as its line (every scalar column decoded and written as JSON; ChunkWork::Text parses
  // it) when asked for, else as its text alone.
  bool lines = false;
  // With `lines`: whether the sink reads the line of record `record` (shard-local) of `shard`;
  // empty: every line. A Parquet row whose line is not wanted has no line and no text: the sink
  // must not read it (its bad rows are known from an earlier pass).
  std::function<bool(uint32_t shard, uint64_t record)> wants_line;
  // Stage "read": bytes read from disk so far, out of the shards' total. Called from the reading
  // threads, under the scanner's lock (one at a time).
  ProgressFn progress;
};

// The first failure in reading order.
struct ScanFailure {
  uint32_t shard = 0;
  Status status;                 // A read or sink error; unset for a bad record.
  std::optional<BadRecord> bad;  // A bad record without skip_bad.
};

// Reads the shards, handing every chunk to `sink`. Returns the first failure, if any.
std::optional<ScanFailure> ScanShards(const ScanRequest& request, ShardSink& sink);

// The failure as a Status naming the file and its line: "pool/a.jsonl:17: invalid UTF-8", or a
// Parquet row's row group and row: "pool/x.parquet: row group 3, row 17: null text".
// `lines_before`: per shard of the sharding, lines of its file before it (empty: zeros).
Status FailureStatus(const ScanFailure& failure, const Sharding& sharding,
                     const std::vector<int64_t>& lines_before);

// A bad record as the readers list it (BadLine: file, line within the file, reason; a Parquet
// row's row group and row in it, from the sharding's row groups).
BadLine ToBadLine(const BadRecord& bad, const Sharding& sharding, int64_t lines_before,
                  uint64_t global_index);

}  // namespace preflight::corpus
