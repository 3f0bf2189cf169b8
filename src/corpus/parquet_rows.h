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
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"
#include "parquet/buffer.h"
#include "parquet/reader.h"

namespace preflight::corpus {

// Rows copied out of the reader's pages, so that they outlive its next read: the views point
// into `bytes` and stay valid until the batch is filled again. Reading lines, a batch holds the
// wanted rows' lines (each followed by at least 64 readable bytes, for simdjson) and no texts;
// else the rows' texts.
struct ParquetBatch {
  struct Row {
    int32_t row_group = 0;
    uint64_t row_in_group = 0;
    std::string_view text;  // Reading texts; empty for a bad row.
    std::string_view line;  // Reading lines, where wanted.
    std::string_view bad;   // Why the row is not a document; empty when it is one.
  };
  std::vector<Row> rows;
  parquet::Buffer bytes;  // Pooled: a batch of a later pass reuses an earlier one's memory.
};

class ParquetRows {
 public:
  // Opens `path` (messages name it so) to read row groups [first_group, end_group), clipped to
  // the file's. `lines`: build each row's JSON line too (every carried column is then decoded).
  static Result<std::unique_ptr<ParquetRows>> Open(const std::string& path,
                                                   const ReadOptions& options, bool lines,
                                                   int first_group = 0, int end_group = INT32_MAX);

  // The next row; false after the last. The views live until the next call. `want_line`: build
  // its line (when reading lines).
  struct Row {
    int32_t row_group = 0;
    uint64_t row_in_group = 0;
    std::string_view text, line, bad;
  };
  Result<bool> Next(Row* row, bool want_line = true);
  // Which rows' lines are wanted, by position in the row groups read (from 0); empty: all.
  using WantLine = std::function<bool(uint64_t row)>;
  // The next rows, until about `max_bytes` of text (or lines, whether wanted or not) or
  // `max_rows` rows; an empty batch at the end.
  Status NextBatch(ParquetBatch* batch, size_t max_bytes, size_t max_rows,
                   const WantLine& want_line = {});

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
    size_t at = 0, kept = 0, bad = 0;  // A row's text (or line) and reason in the batch's bytes.
  };
  std::vector<Spans> spans_;
  uint64_t rows_read_ = 0;
};

}  // namespace preflight::corpus
