#pragma once
// What the corpus readers hand to their callers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::corpus {

// One non-blank line of a JSONL file, one plain-text file, or one row of a Parquet file. Views
// are valid only during the callback that receives them.
struct Record {
  uint64_t index = 0;  // Global position among all records of all inputs, in input order.
  uint32_t input = 0;  // Which input (position in the path list).
  // 1-based line in the (decompressed) file; 0 for a plain-text file; a Parquet row's 1-based
  // position in its file (row_in_file + 1), so that rows count like lines.
  int64_t line_no = 0;
  uint64_t offset = 0;  // Byte offset of the line in the (decompressed) file; 0 for Parquet.
  // The raw line without its '\n' (plain text: a synthesised JSON line; a Parquet row: one JSON
  // object of its scalar columns, where the reader was asked for lines, else empty).
  std::string_view line;
  // The file that holds the record: the input itself, or the file inside an input folder
  // ("pool/part-00003.jsonl.gz"). A document's default id: DefaultId below.
  std::string_view file;
  int32_t row_group = -1;     // A Parquet row's row group (from 0); -1 for other records.
  uint64_t row_in_group = 0;  // A Parquet row's position in its row group (from 0).
};

// The id of a record that has none: "<file>:<line>", or for a Parquet row
// "<file>:rg<row group>:<row in the group>" (both from 0), e.g. "data/000_00000.parquet:rg3:17".
inline std::string DefaultId(std::string_view file, int64_t line_no, int32_t row_group,
                             uint64_t row_in_group) {
  std::string out(file);
  if (row_group >= 0) {
    return out.append(":rg")
        .append(std::to_string(row_group))
        .append(":")
        .append(std::to_string(row_in_group));
  }
  return out.append(":").append(std::to_string(line_no));
}

// A line (plain-text file, Parquet row) skipped under --skip-bad, or the first bad one without it.
struct BadLine {
  std::string file;           // As Record::file.
  int64_t line_no = 0;        // As Record::line_no: 1-based; 0 for a whole plain-text file.
  uint64_t index = 0;         // Its Record::index.
  std::string reason;         // "malformed JSON (...)", "invalid UTF-8", "null text", ...
  int32_t row_group = -1;     // As Record::row_group: a Parquet row's, else -1.
  uint64_t row_in_group = 0;  // As Record::row_in_group.
  // "file:line: reason", "file: reason" (a plain-text file), or for a Parquet row
  // "file: row group 3, row 17: reason".
  std::string Message() const {
    std::string out = file;
    if (row_group >= 0) {
      out.append(": row group ").append(std::to_string(row_group));
      out.append(", row ").append(std::to_string(row_in_group));
    } else if (line_no > 0) {
      out.append(":").append(std::to_string(line_no));
    }
    return out.append(": ").append(reason);
  }
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
  uint64_t records = 0;     // Non-blank lines (or files, or Parquet rows).
  uint64_t docs = 0;        // Valid documents.
  uint64_t text_bytes = 0;  // UTF-8 bytes of the documents' text.
  uint64_t bad = 0;         // Bad lines skipped under --skip-bad.
  uint64_t blank = 0;       // Blank lines (not documents, not errors).
  uint64_t files = 0;       // Files read (1 for a file input; a folder's files).
};

struct ScanSummary {
  std::vector<InputSummary> inputs;
  uint64_t records = 0, docs = 0, text_bytes = 0, bad = 0;
  std::vector<std::string> bad_examples;  // The first few bad-line messages (with --skip-bad).
  std::vector<BadLine> bad_lines;         // Every line skipped under --skip-bad, in input order.
  // Things a user should know that are not errors, one line each ("x.jsonl: starts with a
  // UTF-8 byte-order mark (EF BB BF); it was skipped").
  std::vector<std::string> notes;
};

}  // namespace preflight::corpus
