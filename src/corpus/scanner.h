#pragma once
// Streams the documents of inputs (files or folders of JSONL, gzip or zstd JSONL, Parquet and plain
// text, each file read by its content: corpus/input_format.h, doc/corpus-format.md) to a visitor,
// parsing lines on several threads. Memory is O(chunk + longest line) per input, never O(input
// bytes). Every input is hashed (SHA-256) as read (a Parquet file by a second, sequential read:
// its reader reads only the columns it needs). Every file of every input is checked before the
// first document is read: Arrow, encrypted or truncated Parquet, save_to_disk folders and
// binaries fail at once.
//
// A Parquet row is a record (corpus/parquet_rows.h): ScanDocuments visits its text (its
// Record::line is empty), ScanLines its line, one JSON object of its scalar columns.
//
// Errors name the file and line: "pool/part-3.jsonl.gz:17: malformed JSON (...)", or a Parquet
// row's row group and row: "pool/x.parquet: row group 3, row 17: null text". With
// ReadOptions::skip_bad a bad line is counted, listed in ScanSummary::bad_lines and not visited;
// it keeps its Record::index, so indices stay the same with and without --skip-bad.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "corpus/record.h"

namespace preflight::corpus {

// Called once per valid document, possibly from several threads at once (`thread` in
// [0, options.threads)). Calls for one input arrive chunk by chunk in file order, but within a
// chunk in any order: visitors write to per-record or per-thread slots.
using DocumentVisitor =
    std::function<void(int thread, const Record& record, std::string_view text)>;
// Called on the scanning thread before the documents of each chunk are visited, with the number
// of records numbered so far (indices below it may now arrive): size per-record arrays here.
using ChunkHook = std::function<void(uint64_t records_so_far)>;

// Reads every input in order, one file after another (corpus/shard_scan.h reads shards in
// parallel instead, for selection). `progress` hears stage "read": bytes read from disk of all
// inputs' total, after every chunk, on this thread.
Result<ScanSummary> ScanDocuments(const std::vector<std::string>& paths, const ReadOptions& options,
                                  const DocumentVisitor& visit, const ProgressFn& progress = {},
                                  const ChunkHook& before_chunk = {});

// Visits every record's raw line in order on one thread, without parsing (for copying kept lines
// byte for byte). Stops at the first non-OK Status the visitor returns. With `inputs`, also
// returns each input's path, sha256 and file_bytes, as ScanDocuments reports them.
Status ScanLines(const std::vector<std::string>& paths, const ReadOptions& options,
                 const std::function<Status(const Record&)>& visit,
                 std::vector<InputSummary>* inputs = nullptr);

// An input's path, sha256 and file_bytes as ScanDocuments reports them, from one sequential read
// without parsing (a file's bytes on disk; a folder's list of its files' hashes: FolderSha256 in
// corpus/sharding.h).
Result<InputSummary> HashInput(const std::string& path);

// Parses one JSONL line: the `text` field, UTF-8-validated, copied out (the parser that
// unescaped it does not outlive the call). `where` prefixes error messages.
Result<std::string> ParseTextField(std::string_view line, const ReadOptions& options,
                                   const std::string& where);

}  // namespace preflight::corpus
