// libFuzzer harness: the bytes as a .parquet file, read through the Parquet reader several ways
// (text alone or every column, an id column, the row groups whole or one at a time, CRCs checked
// or not) and every row written as JSON; then through the corpus readers (fuzz/fuzz_input.h). Any
// Status is fine; a crash, a sanitizer report, a leak, a hang or an allocation past libFuzzer's
// limit is a bug. A read that succeeds must give as many rows as the footer promises, numbered in
// order, with the progress at its end.

#include <cstdlib>
#include <string>

#include "fuzz/fuzz_input.h"
#include "parquet/reader.h"

namespace {

constexpr uint64_t kMaxRows = 200000;

// Whether the file read to its end.
bool ReadOnce(const std::string& path, preflight::parquet::ReadRequest request) {
  auto reader = preflight::parquet::Reader::Open(path, request);
  if (!reader.ok()) return false;
  preflight::parquet::Row row;
  std::string json;
  uint64_t rows = 0, last = 0;
  while (true) {
    auto more = (*reader)->Next(&row);
    if (!more.ok()) return false;
    if (!*more) break;
    // A few bytes of RLE can hold millions of null rows: a long read is not a hang to report.
    if (rows == kMaxRows) return false;
    if (rows > 0 && row.row_in_file <= last) std::abort();  // Rows come in file order.
    last = row.row_in_file;
    json.clear();
    (*reader)->AppendJson(row, &json);
    ++rows;
  }
  if (rows != (*reader)->rows_in_range()) std::abort();
  if (request.first_row_group == 0 && request.end_row_group >= (*reader)->num_row_groups() &&
      (*reader)->progress_bytes() != (*reader)->file_bytes()) {
    std::abort();
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = preflight::fuzz::ScratchPath("input.parquet");
  preflight::fuzz::WriteBytes(path, std::string_view(reinterpret_cast<const char*>(data), size));
  const uint8_t variant = size > 0 ? data[size - 1] : 0;
  preflight::parquet::ReadRequest request;
  request.max_page_bytes = 1 << 20;  // A corrupt size fails here rather than allocating 1 GiB.
  request.verify_crc = variant % 2 == 0;
  ReadOnce(path, request);
  request.carry_columns = true;
  request.id_column = "id";
  const bool whole = ReadOnce(path, request);
  request.id_column.clear();
  for (int group = 0; group < 3; ++group) {
    request.first_row_group = group;
    request.end_row_group = group + 1;
    ReadOnce(path, request);
  }
  // A file the reader reads whole (with small pages), through the corpus readers: documents,
  // lines, and shards of row groups on two threads, which must all count the same rows.
  if (whole) preflight::fuzz::ReadEveryWay(path, size, variant);
  return 0;
}
