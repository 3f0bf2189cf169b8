#pragma once
// Streams the documents of inputs (files or folders of JSONL, gzip or zstd JSONL, and plain text,
// each file read by its content: corpus/input_format.h, doc/corpus-format.md) to a visitor, parsing
// lines on several threads. Memory is O(chunk + longest line) per input, never O(input bytes).
// Every input is hashed (SHA-256) as read. Every file of every input is checked before the first
// document is read: Parquet, Arrow, save_to_disk folders and binaries fail at once.
//
// Errors name the file and line: "pool/part-3.jsonl.gz:17: malformed JSON (...)". With
// ReadOptions::skip_bad a bad line is counted, listed in ScanSummary::bad_lines and not visited;
// it keeps its Record::index, so indices stay the same with and without --skip-bad.

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

// One process's part of the inputs when several processes read them together (src/mpi): per
// input, whether it is read and which byte range (ChunkReader's line-aligned rule, so ranges that
// tile a file tile its lines), and the numbering the part starts from, so that every record gets
// the index and line number it has in a whole read. A part's records must be contiguous in index
// order (ranges of the concatenated inputs, in input order, give that).
struct ShardSpec {
  struct Part {
    bool read = true;
    // Only an uncompressed JSONL file is cut (IsSplittable); any other input (a folder, a
    // compressed or plain-text file) is read whole by a non-empty part with begin 0, and not at
    // all by other parts.
    uint64_t begin = 0, end = UINT64_MAX;
    int64_t lines_before = 0;  // Lines of this input before `begin`.
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

// Lines (blank ones included) and records (non-blank lines, and plain-text files) of each
// input's part, without parsing: what a process needs to number its part (ShardSpec).
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
// without parsing (a file's bytes on disk; a folder's "relative path\0bytes on disk\0" of every
// file, in reading order).
Result<InputSummary> HashInput(const std::string& path);

// Parses one JSONL line: the `text` field, UTF-8-validated, copied out (the parser that
// unescaped it does not outlive the call). `where` prefixes error messages.
Result<std::string> ParseTextField(std::string_view line, const ReadOptions& options,
                                   const std::string& where);

}  // namespace preflight::corpus
