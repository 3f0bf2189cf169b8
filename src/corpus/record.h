#pragma once
// What the corpus readers hand to their callers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::corpus {

// One non-blank line of a JSONL input (or one file of a plain-text folder). Views are valid only
// during the callback that receives them.
struct Record {
  uint64_t index = 0;     // Global position among all records of all inputs, in input order.
  uint32_t input = 0;     // Which input (position in the path list).
  int64_t line_no = 0;    // 1-based line in the (decompressed) input; 0 for folder files.
  uint64_t offset = 0;    // Byte offset of the line in the (decompressed) input.
  std::string_view line;  // The raw line without its '\n' (for folders: a synthesised JSON line).
};

// Limits and choices every reader obeys.
struct ReadOptions {
  std::string text_field = "text";
  bool skip_bad = false;                      // Count and report bad lines instead of failing.
  uint64_t max_document_bytes = 64ull << 20;  // A larger `text` is an error (64 MiB).
  int threads = 1;                            // Parsing threads (OpenMP).
};

// What a scan saw of one input.
struct InputSummary {
  std::string path;
  std::string sha256;       // Of the bytes read from disk (compressed bytes for .zst).
  uint64_t file_bytes = 0;  // Bytes read from disk.
  uint64_t records = 0;     // Non-blank lines (or files).
  uint64_t docs = 0;        // Valid documents.
  uint64_t text_bytes = 0;  // UTF-8 bytes of the documents' text.
  uint64_t bad = 0;         // Bad lines skipped under --skip-bad.
  uint64_t blank = 0;       // Blank lines (not documents, not errors).
};

struct ScanSummary {
  std::vector<InputSummary> inputs;
  uint64_t records = 0, docs = 0, text_bytes = 0, bad = 0;
  std::vector<std::string> bad_examples;  // The first few bad-line messages (with --skip-bad).
};

}  // namespace preflight::corpus
