#pragma once
// Streams the documents of JSONL (.jsonl, .jsonl.zst) inputs and plain-text folders to a
// visitor, parsing lines on several threads. Memory is O(chunk + longest line) per input,
// never O(input bytes). Every input is hashed (SHA-256) as read.
//
// Errors name the input and line: "pool.jsonl:17: malformed JSON (...)". With
// ReadOptions::skip_bad a bad line is counted, reported in ScanSummary and not visited; it keeps
// its Record::index, so indices stay the same with and without --skip-bad.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"

namespace preflight::corpus {

// Called once per valid document, possibly from several threads at once (`thread` in
// [0, options.threads)). Calls for one input arrive chunk by chunk in file order, but within a
// chunk in any order: visitors write to per-record or per-thread slots.
using DocumentVisitor =
    std::function<void(int thread, const Record& record, std::string_view text)>;
// Progress in bytes read from disk, out of the total.
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;
// Called on the scanning thread before the documents of each chunk are visited, with the number
// of records numbered so far (indices below it may now arrive): size per-record arrays here.
using ChunkHook = std::function<void(uint64_t records_so_far)>;

// One process's part of the inputs when several processes read them together (src/dist): per
// input, whether it is read and which byte range (ChunkReader's line-aligned rule, so ranges that
// tile a file tile its lines), and the numbering the part starts from, so that every record gets
// the index and line number it has in a whole read. A part's records must be contiguous in index
// order (ranges of the concatenated inputs, in input order, give that).
struct ShardSpec {
  struct Part {
    bool read = true;
    uint64_t begin = 0, end = UINT64_MAX;  // Only plain files can be cut; others need the whole.
    int64_t lines_before = 0;              // Lines of this input before `begin`.
  };
  std::vector<Part> inputs;  // One per path.
  uint64_t first_index = 0;  // Index of the part's first record.
};

// With `shard`, reads only that part (inputs not read get an empty InputSummary; sha256 and
// file_bytes then describe the bytes read, not the file). Without it, everything.
Result<ScanSummary> ScanDocuments(const std::vector<std::string>& paths, const ReadOptions& options,
                                  const DocumentVisitor& visit, const ProgressFn& progress = {},
                                  const ChunkHook& before_chunk = {},
                                  const ShardSpec* shard = nullptr);

// Lines (blank ones included) and records (non-blank lines, or files of a folder) of each input's
// part, without parsing: what a process needs to number its part (ShardSpec).
struct PartCount {
  uint64_t lines = 0, records = 0;
};
Result<std::vector<PartCount>> CountParts(const std::vector<std::string>& paths,
                                          const ReadOptions& options, const ShardSpec& shard);

// Visits every record's raw line in order on one thread, without parsing (for copying kept lines
// byte for byte). Stops at the first non-OK Status the visitor returns. With `inputs`, also
// returns each input's path, sha256 and file_bytes, as ScanDocuments reports them.
// With `shard`, only that part (as ScanDocuments).
Status ScanLines(const std::vector<std::string>& paths, const ReadOptions& options,
                 const std::function<Status(const Record&)>& visit,
                 std::vector<InputSummary>* inputs = nullptr, const ShardSpec* shard = nullptr);

// An input's path, sha256 and file_bytes as ScanDocuments reports them, from one sequential read
// without parsing (a file's bytes on disk; a folder's "relative path\0content\0" of every file).
Result<InputSummary> HashInput(const std::string& path);

// Parses one JSONL line: the `text` field, UTF-8-validated. `where` prefixes error messages.
Result<std::string_view> ParseTextField(std::string_view line, const ReadOptions& options,
                                        const std::string& where);

}  // namespace preflight::corpus
