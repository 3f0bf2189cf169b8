#include "corpus/parquet_rows.h"

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

Result<bool> ParquetRows::Next(Row* row) {
  PF_ASSIGN_OR_RETURN(bool more, reader_->Next(&row_));
  if (!more) return false;
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
  if (lines_) {
    line_.clear();
    reader_->AppendJson(row_, &line_);
    row->line = line_;
  }
  return true;
}

Status ParquetRows::NextBatch(ParquetBatch* batch, size_t max_bytes, size_t max_rows) {
  batch->rows.clear();
  batch->bytes.clear();
  spans_.clear();  // Offsets first: `bytes` may move while it grows.
  Row row;
  while (batch->bytes.size() < max_bytes && batch->rows.size() < max_rows) {
    PF_ASSIGN_OR_RETURN(bool more, Next(&row));
    if (!more) break;
    Spans s;
    s.at = batch->bytes.size();
    s.text = row.text.size();
    s.line = row.line.size();
    s.bad = row.bad.size();
    batch->bytes.append(row.text).append(row.line).append(row.bad);
    spans_.push_back(s);
    batch->rows.push_back({row.row_group, row.row_in_group, {}, {}, {}});
  }
  const char* base = batch->bytes.data();
  for (size_t i = 0; i < spans_.size(); ++i) {
    const Spans& s = spans_[i];
    ParquetBatch::Row& r = batch->rows[i];
    r.text = std::string_view(base + s.at, s.text);
    r.line = std::string_view(base + s.at + s.text, s.line);
    r.bad = std::string_view(base + s.at + s.text + s.line, s.bad);
  }
  return Status::Ok();
}

}  // namespace preflight::corpus
