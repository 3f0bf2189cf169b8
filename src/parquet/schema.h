#pragma once
// The schema of a Parquet file as the reader sees it: its leaf columns (one column chunk each in
// every row group), in schema order, with their definition and repetition levels and how their
// values are written out as JSON.
//
// A "flat" column is a top-level leaf that is REQUIRED or OPTIONAL: one value (or null) per
// row. Leaves inside a group (struct, list, map) and REPEATED leaves are "nested": the reader
// never decodes them. A flat column is "carried" (written out as a JSON field) when its type has
// a JSON form (ValueKind other than kNone):
//   BOOLEAN                         -> true/false
//   INT32, INT64 (INT(8..64, signed)) -> number; unsigned INT/UINT_* -> unsigned number
//   INT32 DATE                      -> "YYYY-MM-DD"
//   INT64 TIMESTAMP(unit) / TIMESTAMP_MILLIS|MICROS -> "YYYY-MM-DDTHH:MM:SS.fff[fff[fff]]" with
//                                      "Z" when adjusted to UTC (3, 6 or 9 digits by unit)
//   INT96 (legacy timestamp)        -> as TIMESTAMP(NANOS, UTC)
//   INT32/INT64 TIME                -> number (in its unit)
//   INT32/INT64 DECIMAL(scale)      -> number with the scale's digits after the point
//   FLOAT, DOUBLE                   -> shortest round-trip number; NaN and infinities -> null
//   BYTE_ARRAY STRING/UTF8, ENUM, JSON -> JSON string (invalid UTF-8 replaced by U+FFFD)
//   FIXED_LEN_BYTE_ARRAY(16) UUID   -> "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
//   the NULL (UNKNOWN) type         -> null
// Not carried: BYTE_ARRAY without a string annotation (binary), BSON, FLOAT16, other
// FIXED_LEN_BYTE_ARRAY, byte-array decimals, INTERVAL, and every nested column.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "parquet/metadata.h"

namespace preflight::parquet {

enum class ValueKind : uint8_t {
  kNone,  // not carried
  kBool,
  kInt,
  kUInt,
  kFloat,
  kDouble,
  kString,
  kDate,
  kTimestamp,       // an int64 count of time_unit since the Unix epoch
  kInt96Timestamp,  // 12 bytes: nanoseconds of the day (int64), Julian day (int32)
  kDecimal,         // an integer with `scale` digits after the point
  kUuid,
  kNull,
};

struct Column {
  std::string name;  // a top-level column's name; a nested leaf's dotted path ("meta.url")
  int leaf = 0;      // position among the leaves = the column chunk's index in a row group
  int32_t physical = 0;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY's width
  int max_definition = 0, max_repetition = 0;
  bool nested = false;    // inside a group, or REPEATED
  bool optional = false;  // a flat OPTIONAL column (one definition level)
  ValueKind kind = ValueKind::kNone;
  int time_unit = 0;      // kTimestamp: 0 millis, 1 micros, 2 nanos
  bool utc = false;       // kTimestamp
  int scale = 0;          // kDecimal
  std::string type_name;  // "BYTE_ARRAY (STRING)", "INT64 (TIMESTAMP(MICROS, UTC))", ...
};

// One row's value of a flat column, as stored (Column::kind says how to write it out):
// BOOLEAN and the integer types in `i` (INT32 sign-extended; an unsigned column's bits are
// reinterpreted when written), FLOAT and DOUBLE in `d`, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and
// INT96 as bytes in `s` (a view valid until the reader moves to the next row).
struct Value {
  bool null = true;
  int64_t i = 0;
  double d = 0;
  std::string_view s;
};

struct Schema {
  std::vector<Column> leaves;
  // The top-level fields in order (leaves and groups), for listing what a file holds.
  std::vector<std::string> top_level;
  std::vector<bool> top_level_is_group;
};

// Builds the leaves from the footer's flattened schema. Corruption naming `file` when the tree
// does not add up (children past the end, a leaf without a type, levels too deep).
Result<Schema> BuildSchema(const FileMeta& meta, const std::string& file);

}  // namespace preflight::parquet
