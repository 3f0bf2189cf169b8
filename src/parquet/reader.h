#pragma once
// Reading the documents of one Parquet file, row by row, in file order: the text column (and an
// optional id column), and on request every other flat column that has a JSON form, to write a
// row back out as one JSON object line. Written here because Debian 12 ships no Arrow or Parquet
// library; only Debian's codec libraries are used.
//
// WHAT IS READ
//   Footer: FileMetaData in the Thrift compact protocol ("PAR1" at both ends). Schema: flat
//   columns (top-level REQUIRED or OPTIONAL leaves); nested and repeated columns are not
//   decoded. Many row groups; column chunks from dictionary_page_offset (when set) or
//   data_page_offset, total_compressed_size bytes long. Pages: dictionary, data v1 (levels with
//   a 4-byte length prefix, compressed with the values) and data v2 (levels uncompressed before
//   the values; is_compressed honoured); index pages and unknown page types are skipped; a page
//   CRC, when present, is checked. Codecs: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, LZ4
//   (Hadoop framing, LZ4 frame or raw block), BROTLI. Encodings: parquet/column.h. Types and
//   their JSON forms: parquet/schema.h.
// WHAT IS REFUSED (a Status naming the file, and where it applies the row group, column and
//   byte offset): a file that is not Parquet or is truncated ("PAR1" missing at either end, a
//   footer length past the file); encryption ("PARE" magic, an encryption_algorithm in the
//   footer, encrypted column chunks); a column chunk in another file (file_path); a text or id
//   column that no column has (the message lists the columns), that is nested or repeated, or,
//   for the text, that is not a string (BYTE_ARRAY annotated STRING/UTF8, ENUM or JSON); a
//   codec this build does not read (LZO, unknown), named with file and column; a corrupt footer,
//   page header or page (a length past its bounds, a bad varint, a CRC mismatch, a dictionary
//   index past the dictionary, values that end before their rows, a page larger than
//   ReadRequest::max_page_bytes uncompressed, a decompressor's error). Every length read from
//   the file is checked against the bytes that hold it before it is used or allocated; a page's
//   uncompressed size against what its codec can expand to (snappy and zstd record it, LZ4 and
//   deflate expand at most 255 and 1032 times) and against max_page_bytes.
//   InvalidArgument for what the file is (encrypted, unsupported codec, wrong column), NotFound
//   for a missing file, Corruption for damage, IOError for a failed read.
// BAD ROWS (not errors): a null text (an OPTIONAL text column) and text that is not UTF-8 come
//   back as rows with Row::bad set ("null text", "invalid UTF-8"), for the caller to count and
//   skip like a bad JSONL line.
// MEMORY: per column read, one page (decompressed), a read window of 1 MiB or the largest page,
//   and the column chunk's dictionary; never a row group or column chunk whole. Reading only the
//   text (and id) column never reads or decompresses the other columns' pages.
//
// Not thread-safe: one Reader per thread (several Readers may read one file's row groups in
// parallel: ReadRequest::first_row_group / end_row_group).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "parquet/schema.h"

namespace preflight::parquet {

struct ReadRequest {
  std::string text_column = "text";
  std::string id_column;  // empty: none
  // Decode every other carried column too (for AppendJson); off, only text and id are read.
  bool carry_columns = false;
  // Check Row::text is UTF-8 (invalid: a bad row).
  bool validate_utf8 = true;
  // How messages name the file (default: the path).
  std::string display_name;
  // The row groups to read: [first_row_group, end_row_group) clipped to the file's.
  int first_row_group = 0;
  int end_row_group = INT32_MAX;
  // A page larger than this uncompressed is refused (a guard against corrupt sizes).
  uint64_t max_page_bytes = uint64_t{1} << 30;
  // Check page CRCs where the writer stored them.
  bool verify_crc = true;
};

// One row. Views are valid until the next call to Next().
struct Row {
  int row_group = 0;
  uint64_t row_in_group = 0;
  uint64_t row_in_file = 0;  // counting every row group's rows, read or not
  std::string_view text;     // empty when null
  bool text_null = false;
  // Empty, or why the row is not a document: "null text", "invalid UTF-8".
  std::string_view bad;
  bool has_id = false;  // an id column was asked for and this row's id is not null
  std::string_view id;  // the id as text: a string as it is, a number as its JSON text
  // The values of Reader::output_columns(), in that order (text and id included).
  std::span<const Value> values;
};

// A row group as a caller planning parallel reads sees it.
struct RowGroupInfo {
  uint64_t rows = 0;
  uint64_t first_row = 0;       // its first row's index in the file
  uint64_t begin = 0, end = 0;  // the bytes it spans, in progress_bytes()'s units
};

// What a caller planning parallel reads needs of a file, from its footer alone (no column is
// resolved or read): the same checks of the footer and schema as Reader::Open.
struct FileLayout {
  uint64_t file_bytes = 0;
  uint64_t num_rows = 0;
  std::vector<RowGroupInfo> row_groups;
};
// `display_name`: how messages name the file (default: the path).
Result<FileLayout> ReadLayout(const std::string& path, const std::string& display_name = "");

class Reader {
 public:
  // Reads and checks the footer and the schema, and resolves the columns asked for.
  static Result<std::unique_ptr<Reader>> Open(const std::string& path, const ReadRequest& request);
  ~Reader();

  // The next row: true, or false after the last one. An error ends the reading.
  Result<bool> Next(Row* row);

  // Appends the row as one JSON object (no newline): the output columns' names and values in
  // schema order, numbers as JSON numbers and nulls as null (parquet/schema.h lists each type's
  // form). The text is written byte for byte (escaped), so parsing it gives Row::text back
  // (with validate_utf8 off, or on a bad row, bytes that are not UTF-8 become U+FFFD).
  void AppendJson(const Row& row, std::string* out) const;

  // The schema's leaves, and the flat columns a row carries (text, id, and with carry_columns
  // every other column with a JSON form), in schema order.
  const std::vector<Column>& columns() const;
  const std::vector<const Column*>& output_columns() const { return outputs_; }
  const Column& text_column() const { return *outputs_[text_slot_]; }

  int num_row_groups() const;
  RowGroupInfo row_group(int group) const;  // 0 <= group < num_row_groups()
  uint64_t num_rows() const;                // of the whole file (every row group)
  uint64_t rows_in_range() const;           // of the row groups asked for
  const std::string& created_by() const;
  uint64_t file_bytes() const;
  // Bytes read from disk so far (the footer included).
  uint64_t bytes_read() const;
  // Progress in bytes: the row groups done, and the current one in proportion to its rows read.
  // Reading the whole file it runs from 0 to file_bytes(); reading a range of row groups, from 0
  // to the bytes those row groups span.
  uint64_t progress_bytes() const;

 private:
  struct State;
  explicit Reader(std::unique_ptr<State> state);
  static Result<std::unique_ptr<State>> LoadFooter(const std::string& path,
                                                   const ReadRequest& request);
  friend Result<FileLayout> ReadLayout(const std::string& path, const std::string& display_name);
  Status Resolve();
  Status StartRowGroup(int group);
  void Fill(Row* row);

  std::unique_ptr<State> state_;
  std::vector<const Column*> outputs_;
  int text_slot_ = 0;
  int id_slot_ = -1;
};

}  // namespace preflight::parquet
