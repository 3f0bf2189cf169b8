#pragma once
// A Parquet file's rows as the corpus readers hand them out (doc/corpus-format.md, "Parquet"):
// the text of the column named by ReadOptions::text_field, and, where lines are asked for, each
// row as one JSON object of its scalar columns (parquet::Reader::AppendJson: the line a selection
// writes out, and what ScanLines visits). A row is bad -- counted and skipped under --skip-bad,
// else the read's error, like a bad JSONL line -- when its text is null ("null text"), not UTF-8
// ("invalid UTF-8") or over ReadOptions::max_document_bytes. What the reader refuses (a missing,
// nested or non-string text column, encryption, a codec not linked, a truncated or corrupt file)
// is a Status naming the file, and the row group and column where they apply.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"
#include "parquet/reader.h"

namespace preflight::corpus {

// Rows copied out of the reader's pages, so that they outlive its next read: the views point
// into `bytes` and stay valid until the batch is filled again.
struct ParquetBatch {
  struct Row {
    int32_t row_group = 0;
    uint64_t row_in_group = 0;
    std::string_view text;  // Empty for a bad row.
    std::string_view line;  // Empty unless lines were asked for.
    std::string_view bad;   // Why the row is not a document; empty when it is one.
  };
  std::vector<Row> rows;
  std::string bytes;
};

class ParquetRows {
 public:
  // Opens `path` (messages name it so) to read row groups [first_group, end_group), clipped to
  // the file's. `lines`: build each row's JSON line too (every carried column is then decoded).
  static Result<std::unique_ptr<ParquetRows>> Open(const std::string& path,
                                                   const ReadOptions& options, bool lines,
                                                   int first_group = 0, int end_group = INT32_MAX);

  // The next row; false after the last. The views live until the next call.
  struct Row {
    int32_t row_group = 0;
    uint64_t row_in_group = 0;
    std::string_view text, line, bad;
  };
  Result<bool> Next(Row* row);
  // The next rows, until about `max_bytes` of text and lines or `max_rows` rows; an empty batch
  // at the end.
  Status NextBatch(ParquetBatch* batch, size_t max_bytes, size_t max_rows);

  // Progress in bytes of the row groups read (parquet::Reader::progress_bytes): from 0 to the
  // bytes they span (the whole file's size when all are read).
  uint64_t progress_bytes() const { return reader_->progress_bytes(); }
  uint64_t file_bytes() const { return reader_->file_bytes(); }

 private:
  ParquetRows(std::unique_ptr<parquet::Reader> reader, uint64_t max_document_bytes, bool lines)
      : reader_(std::move(reader)), max_document_bytes_(max_document_bytes), lines_(lines) {}

  std::unique_ptr<parquet::Reader> reader_;
  uint64_t max_document_bytes_;
  bool lines_;
  parquet::Row row_;
  std::string line_, reason_;
  struct Spans {
    size_t at = 0, text = 0, line = 0, bad = 0;  // A row's bytes in ParquetBatch::bytes.
  };
  std::vector<Spans> spans_;
};

}  // namespace preflight::corpus
