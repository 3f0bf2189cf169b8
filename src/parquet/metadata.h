#pragma once
// The parts of a Parquet footer (FileMetaData) and of a page header that the reader uses,
// decoded from the Thrift compact protocol. Everything else (statistics, indexes, bloom
// filters, key-value metadata, sort orders) is skipped. Numbers are kept as written; the
// schema (parquet/schema.h) and the column reader check them against each other.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace preflight::parquet {

// LogicalType (the union) reduced to what decides how a value is written out.
struct LogicalType {
  enum Kind : uint8_t {
    kNone,
    kString,
    kMap,
    kList,
    kEnum,
    kDecimal,
    kDate,
    kTime,
    kTimestamp,
    kInteger,
    kUnknown,  // the NULL type: every value is null
    kJson,
    kBson,
    kUuid,
    kFloat16,
    kOther,  // a newer annotation (VARIANT, GEOMETRY, ...)
  };
  Kind kind = kNone;
  int32_t scale = 0, precision = 0;  // kDecimal
  int unit = 0;                      // kTime, kTimestamp: 0 millis, 1 micros, 2 nanos
  bool adjusted_to_utc = false;      // kTime, kTimestamp
  int bit_width = 0;                 // kInteger
  bool is_signed = true;             // kInteger
};

struct SchemaElement {
  int32_t type = -1;  // PhysicalType; -1 for a group
  int32_t type_length = 0;
  int32_t repetition = -1;  // Repetition; -1 when absent (the root)
  std::string name;
  int32_t num_children = -1;  // -1 when absent (a leaf)
  int32_t converted_type = -1;
  int32_t scale = 0, precision = 0;
  LogicalType logical;
};

struct ColumnChunkMeta {
  std::string file_path;  // set when the chunk lives in another file (refused)
  bool has_meta_data = false;
  bool encrypted = false;  // crypto_metadata or encrypted_column_metadata present
  int32_t type = -1;
  std::vector<std::string> path_in_schema;
  int32_t codec = 0;
  int64_t num_values = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = -1;
  int64_t dictionary_page_offset = -1;  // -1 when absent
};

struct RowGroupMeta {
  std::vector<ColumnChunkMeta> columns;
  int64_t num_rows = 0;
};

struct FileMeta {
  int32_t version = 0;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroupMeta> row_groups;
  std::string created_by;
  bool encrypted = false;  // encryption_algorithm present (a plaintext footer, encrypted columns)
};

// Decodes a footer. On failure returns false with `*error` saying what and at which byte of the
// footer ("FileMetaData.row_groups[2].columns[5]: truncated at byte 812").
bool ParseFileMeta(const uint8_t* data, size_t size, FileMeta* meta, std::string* error);

struct PageHeader {
  int32_t type = -1;
  int32_t uncompressed_size = -1;
  int32_t compressed_size = -1;
  bool has_crc = false;
  uint32_t crc = 0;
  // DATA_PAGE (v1), DATA_PAGE_V2 and DICTIONARY_PAGE: whichever was present.
  bool has_data_v1 = false, has_data_v2 = false, has_dictionary = false;
  int32_t num_values = -1;
  int32_t encoding = -1;
  int32_t definition_level_encoding = -1;                                        // v1
  int32_t repetition_level_encoding = -1;                                        // v1
  int32_t num_nulls = 0, num_rows = 0;                                           // v2
  int32_t definition_levels_byte_length = 0, repetition_levels_byte_length = 0;  // v2
  bool is_compressed = true;                                                     // v2
};

// Decodes a page header from the start of `data`. Returns the header's size in bytes, or 0 with
// `*error` set; `*truncated` tells whether more bytes might complete it.
size_t ParsePageHeader(const uint8_t* data, size_t size, PageHeader* header, std::string* error,
                       bool* truncated);

}  // namespace preflight::parquet
