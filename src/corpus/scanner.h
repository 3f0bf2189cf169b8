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

Result<ScanSummary> ScanDocuments(const std::vector<std::string>& paths, const ReadOptions& options,
                                  const DocumentVisitor& visit, const ProgressFn& progress = {},
                                  const ChunkHook& before_chunk = {});

// Visits every record's raw line in order on one thread, without parsing (for copying kept lines
// byte for byte). Stops at the first non-OK Status the visitor returns.
Status ScanLines(const std::vector<std::string>& paths, const ReadOptions& options,
                 const std::function<Status(const Record&)>& visit);

// Parses one JSONL line: the `text` field, UTF-8-validated. `where` prefixes error messages.
Result<std::string_view> ParseTextField(std::string_view line, const ReadOptions& options,
                                        const std::string& where);

}  // namespace preflight::corpus
