#include "corpus/parquet_rows.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

namespace preflight::corpus {

Result<std::unique_ptr<ParquetRows>> ParquetRows::Open(const std::string& path,
                                                       const ReadOptions& options, bool lines,
                                                       int first_group, int end_group) {
  parquet::ReadRequest request;
  request.text_column = options.text_field;
  request.carry_columns = lines;
  request.first_row_group = first_group;
  request.end_row_group = end_group;
  PF_ASSIGN_OR_RETURN(std::unique_ptr<parquet::Reader> reader,
                      parquet::Reader::Open(path, request));
  return std::unique_ptr<ParquetRows>(
      new ParquetRows(std::move(reader), options.max_document_bytes, lines));
}

Result<bool> ParquetRows::Next(Row* row, bool want_line) {
  PF_ASSIGN_OR_RETURN(bool more, reader_->Next(&row_));
  if (!more) return false;
  ++rows_read_;
  row->row_group = row_.row_group;
  row->row_in_group = row_.row_in_group;
  row->bad = row_.bad;
  row->text = row_.bad.empty() ? row_.text : std::string_view();
  if (row->bad.empty() && row_.text.size() > max_document_bytes_) {
    // As a JSONL line's (corpus/document_parser.cc).
    reason_ = "document of " + std::to_string(row_.text.size()) + " bytes is over the limit of " +
              std::to_string(max_document_bytes_) + " bytes";
    row->bad = reason_;
    row->text = {};
  }
  row->line = {};
  if (lines_ && want_line) {
    line_.clear();
    reader_->AppendJson(row_, &line_);
    row->line = line_;
  }
  return true;
}

Status ParquetRows::NextBatch(ParquetBatch* batch, size_t max_bytes, size_t max_rows,
                              const WantLine& want_line) {
  batch->rows.clear();
  spans_.clear();  // Offsets first: the bytes may move while they grow.
  size_t size = 0;
  auto append = [&](std::string_view s) {
    if (s.empty()) return;
    std::memcpy(batch->bytes.Resize(size + s.size(), /*keep=*/true) + size, s.data(), s.size());
    size += s.size();
  };
  Row row;
  size_t weight = 0;  // Of every row, copied or not: a batch holds about max_bytes of documents.
  while (weight < max_bytes && batch->rows.size() < max_rows) {
    const bool want = !want_line || want_line(rows_read_);
    PF_ASSIGN_OR_RETURN(bool more, Next(&row, want));
    if (!more) break;
    const std::string_view kept = lines_ ? row.line : row.text;
    weight += std::max(kept.size(), row.text.size()) + 1;
    spans_.push_back({size, kept.size(), row.bad.size()});
    append(kept);
    append(row.bad);
    batch->rows.push_back({row.row_group, row.row_in_group, {}, {}, {}});
  }
  // Padding past the last line (a parser reads ahead); views are placed after the last growth.
  std::memset(batch->bytes.Resize(size + simdjson::SIMDJSON_PADDING, true) + size, 0,
              simdjson::SIMDJSON_PADDING);
  const char* base = reinterpret_cast<const char*>(batch->bytes.data());
  for (size_t i = 0; i < spans_.size(); ++i) {
    const Spans& s = spans_[i];
    ParquetBatch::Row& r = batch->rows[i];
    (lines_ ? r.line : r.text) = std::string_view(base + s.at, s.kept);
    r.bad = std::string_view(base + s.at + s.kept, s.bad);
  }
  return Status::Ok();
}

}  // namespace preflight::corpus
