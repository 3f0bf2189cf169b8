#include "parquet/metadata.h"

#include "parquet/thrift.h"

namespace preflight::parquet {

namespace {

using Type = CompactReader::Type;

// A decoder of one footer or page header: the compact reader, and the path to the struct being
// read, built while unwinding from the first error ("row_groups[2].columns[5]").
struct Decoder {
  CompactReader r;
  std::string path;

  // Records that `field` is part of the path to the error and returns false (for chaining).
  bool Unwind(const std::string& field) {
    path = path.empty() ? field : field + (path[0] == '[' ? "" : ".") + path;
    return false;
  }
  bool Missing(const char* field) {
    r.Fail(std::string("missing required field ") + field);
    return false;
  }
};

// Calls `element(i, element_type)` for each element of a list field; false on an error.
template <typename F>
bool ForEach(Decoder& d, uint8_t type, const char* field, F element) {
  uint8_t element_type = 0;
  uint32_t n = 0;
  if (!d.r.ReadListHeader(type, &element_type, &n)) return d.Unwind(field);
  for (uint32_t i = 0; i < n; ++i) {
    if (!element(i, element_type) || !d.r.ok()) {
      return d.Unwind(std::string(field) + "[" + std::to_string(i) + "]");
    }
  }
  return true;
}

bool ExpectStruct(Decoder& d, uint8_t type) {
  if (type == Type::kStruct) return true;
  d.r.Fail(std::string("expected a struct, found ") + CompactTypeName(type));
  return false;
}

// TimeUnit: a union of empty structs (1 millis, 2 micros, 3 nanos).
void ParseTimeUnit(Decoder& d, int* unit) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (id >= 1 && id <= 3) *unit = id - 1;
    d.r.Skip(t);
  }
}

// TimestampType and TimeType: 1 isAdjustedToUTC, 2 unit.
void ParseTimeType(Decoder& d, LogicalType* lt) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (id == 1) {
      lt->adjusted_to_utc = d.r.ReadBool(t);
    } else if (id == 2 && ExpectStruct(d, t)) {
      ParseTimeUnit(d, &lt->unit);
    } else {
      d.r.Skip(t);
    }
  }
}

// DecimalType (1 scale, 2 precision) and IntType (1 bitWidth, 2 isSigned).
void ParseDecimalOrInt(Decoder& d, LogicalType* lt) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (lt->kind == LogicalType::kDecimal && id == 1) {
      lt->scale = d.r.ReadI32(t);
    } else if (lt->kind == LogicalType::kDecimal && id == 2) {
      lt->precision = d.r.ReadI32(t);
    } else if (lt->kind == LogicalType::kInteger && id == 1) {
      lt->bit_width = static_cast<int>(d.r.ReadInt(t));
    } else if (lt->kind == LogicalType::kInteger && id == 2) {
      lt->is_signed = d.r.ReadBool(t);
    } else {
      d.r.Skip(t);
    }
  }
}

void ParseLogicalType(Decoder& d, LogicalType* lt) {
  static constexpr LogicalType::Kind kKinds[] = {
      LogicalType::kOther,     LogicalType::kString,  LogicalType::kMap,     LogicalType::kList,
      LogicalType::kEnum,      LogicalType::kDecimal, LogicalType::kDate,    LogicalType::kTime,
      LogicalType::kTimestamp, LogicalType::kOther,   LogicalType::kInteger, LogicalType::kUnknown,
      LogicalType::kJson,      LogicalType::kBson,    LogicalType::kUuid,    LogicalType::kFloat16};
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (!ExpectStruct(d, t)) return;
    lt->kind = id >= 1 && id <= 15 ? kKinds[id] : LogicalType::kOther;
    if (lt->kind == LogicalType::kTime || lt->kind == LogicalType::kTimestamp) {
      ParseTimeType(d, lt);
    } else if (lt->kind == LogicalType::kDecimal || lt->kind == LogicalType::kInteger) {
      ParseDecimalOrInt(d, lt);
    } else {
      d.r.Skip(t);
    }
  }
}

bool ParseSchemaElement(Decoder& d, SchemaElement* e) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  bool has_name = false;
  while (d.r.NextField(&s, &id, &t)) {
    switch (id) {
      case 1:
        e->type = d.r.ReadI32(t);
        break;
      case 2:
        e->type_length = d.r.ReadI32(t);
        break;
      case 3:
        e->repetition = d.r.ReadI32(t);
        break;
      case 4:
        e->name = std::string(d.r.ReadBinary(t));
        has_name = true;
        break;
      case 5:
        e->num_children = d.r.ReadI32(t);
        break;
      case 6:
        e->converted_type = d.r.ReadI32(t);
        break;
      case 7:
        e->scale = d.r.ReadI32(t);
        break;
      case 8:
        e->precision = d.r.ReadI32(t);
        break;
      case 10:
        if (ExpectStruct(d, t)) ParseLogicalType(d, &e->logical);
        break;
      default:
        d.r.Skip(t);
    }
  }
  if (!d.r.ok()) return false;
  return has_name || d.Missing("name");
}

bool ParseColumnMetaData(Decoder& d, ColumnChunkMeta* c) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  bool has_path = false, has_offset = false, has_size = false;
  while (d.r.NextField(&s, &id, &t)) {
    switch (id) {
      case 1:
        c->type = d.r.ReadI32(t);
        break;
      case 3:
        has_path = ForEach(d, t, "path_in_schema", [&](uint32_t, uint8_t et) {
          c->path_in_schema.emplace_back(d.r.ReadBinary(et));
          return true;
        });
        break;
      case 4:
        c->codec = d.r.ReadI32(t);
        break;
      case 5:
        c->num_values = d.r.ReadInt(t);
        break;
      case 7:
        c->total_compressed_size = d.r.ReadInt(t);
        has_size = true;
        break;
      case 9:
        c->data_page_offset = d.r.ReadInt(t);
        has_offset = true;
        break;
      case 11:
        c->dictionary_page_offset = d.r.ReadInt(t);
        break;
      default:
        d.r.Skip(t);
    }
  }
  if (!d.r.ok()) return false;
  if (c->type < 0) return d.Missing("type");
  if (!has_path) return d.Missing("path_in_schema");
  if (!has_size) return d.Missing("total_compressed_size");
  return has_offset || d.Missing("data_page_offset");
}

bool ParseColumnChunk(Decoder& d, ColumnChunkMeta* c) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (id == 1) {
      c->file_path = std::string(d.r.ReadBinary(t));
    } else if (id == 3 && ExpectStruct(d, t)) {
      c->has_meta_data = true;
      if (!ParseColumnMetaData(d, c)) return d.Unwind("meta_data");
    } else {
      if (id == 8 || id == 9) c->encrypted = true;
      d.r.Skip(t);
    }
  }
  return d.r.ok();
}

// `max_columns`: the schema's size when it came first (a row group has one chunk per leaf), so
// that a corrupt footer cannot make a list of millions of empty chunks.
bool ParseRowGroup(Decoder& d, RowGroupMeta* g, size_t max_columns) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  bool has_columns = false, has_rows = false;
  while (d.r.NextField(&s, &id, &t)) {
    if (id == 1) {
      has_columns = ForEach(d, t, "columns", [&](uint32_t i, uint8_t et) {
        if (i >= max_columns) {
          d.r.Fail("more column chunks than the schema has fields");
          return false;
        }
        g->columns.emplace_back();
        return ExpectStruct(d, et) && ParseColumnChunk(d, &g->columns.back());
      });
      if (!has_columns) return false;
    } else if (id == 3) {
      g->num_rows = d.r.ReadInt(t);
      has_rows = true;
    } else {
      d.r.Skip(t);
    }
  }
  if (!d.r.ok()) return false;
  if (!has_columns) return d.Missing("columns");
  return has_rows || d.Missing("num_rows");
}

bool ParseFileMetaFields(Decoder& d, FileMeta* m) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  bool has_schema = false, has_groups = false;
  while (d.r.NextField(&s, &id, &t)) {
    if (id == 1) {
      m->version = d.r.ReadI32(t);
    } else if (id == 2) {
      has_schema = ForEach(d, t, "schema", [&](uint32_t, uint8_t et) {
        m->schema.emplace_back();
        return ExpectStruct(d, et) && ParseSchemaElement(d, &m->schema.back());
      });
      if (!has_schema) return false;
    } else if (id == 3) {
      m->num_rows = d.r.ReadInt(t);
    } else if (id == 4) {
      has_groups = ForEach(d, t, "row_groups", [&](uint32_t, uint8_t et) {
        m->row_groups.emplace_back();
        const size_t max_columns = m->schema.empty() ? SIZE_MAX : m->schema.size();
        return ExpectStruct(d, et) && ParseRowGroup(d, &m->row_groups.back(), max_columns);
      });
      if (!has_groups) return false;
    } else if (id == 6) {
      m->created_by = std::string(d.r.ReadBinary(t));
    } else {
      if (id == 8) m->encrypted = true;
      d.r.Skip(t);
    }
  }
  if (!d.r.ok()) return false;
  if (!has_schema) return d.Missing("schema");
  return has_groups || d.Missing("row_groups");
}

bool ParseDataPageV1(Decoder& d, PageHeader* h) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    switch (id) {
      case 1:
        h->num_values = d.r.ReadI32(t);
        break;
      case 2:
        h->encoding = d.r.ReadI32(t);
        break;
      case 3:
        h->definition_level_encoding = d.r.ReadI32(t);
        break;
      case 4:
        h->repetition_level_encoding = d.r.ReadI32(t);
        break;
      default:
        d.r.Skip(t);
    }
  }
  return d.r.ok();
}

bool ParseDataPageV2(Decoder& d, PageHeader* h) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    switch (id) {
      case 1:
        h->num_values = d.r.ReadI32(t);
        break;
      case 2:
        h->num_nulls = d.r.ReadI32(t);
        break;
      case 3:
        h->num_rows = d.r.ReadI32(t);
        break;
      case 4:
        h->encoding = d.r.ReadI32(t);
        break;
      case 5:
        h->definition_levels_byte_length = d.r.ReadI32(t);
        break;
      case 6:
        h->repetition_levels_byte_length = d.r.ReadI32(t);
        break;
      case 7:
        h->is_compressed = d.r.ReadBool(t);
        break;
      default:
        d.r.Skip(t);
    }
  }
  return d.r.ok();
}

bool ParseDictionaryHeader(Decoder& d, PageHeader* h) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (id == 1) {
      h->num_values = d.r.ReadI32(t);
    } else if (id == 2) {
      h->encoding = d.r.ReadI32(t);
    } else {
      d.r.Skip(t);
    }
  }
  return d.r.ok();
}

bool ParsePageHeaderFields(Decoder& d, PageHeader* h) {
  CompactReader::Scope s;
  int16_t id = 0;
  uint8_t t = 0;
  while (d.r.NextField(&s, &id, &t)) {
    if (id == 1) {
      h->type = d.r.ReadI32(t);
    } else if (id == 2) {
      h->uncompressed_size = d.r.ReadI32(t);
    } else if (id == 3) {
      h->compressed_size = d.r.ReadI32(t);
    } else if (id == 4) {
      h->has_crc = true;
      h->crc = static_cast<uint32_t>(d.r.ReadI32(t));
    } else if (id == 5 && ExpectStruct(d, t)) {
      h->has_data_v1 = true;
      if (!ParseDataPageV1(d, h)) return d.Unwind("data_page_header");
    } else if (id == 7 && ExpectStruct(d, t)) {
      h->has_dictionary = true;
      if (!ParseDictionaryHeader(d, h)) return d.Unwind("dictionary_page_header");
    } else if (id == 8 && ExpectStruct(d, t)) {
      h->has_data_v2 = true;
      if (!ParseDataPageV2(d, h)) return d.Unwind("data_page_header_v2");
    } else {
      d.r.Skip(t);
    }
  }
  if (!d.r.ok()) return false;
  if (h->type < 0) return d.Missing("type");
  if (h->uncompressed_size < 0) return d.Missing("uncompressed_page_size (or it is negative)");
  return h->compressed_size >= 0 || d.Missing("compressed_page_size (or it is negative)");
}

std::string Describe(const Decoder& d, const char* root) {
  std::string out = root;
  if (!d.path.empty()) out.append(d.path[0] == '[' ? "" : ".").append(d.path);
  return out.append(": ").append(d.r.error());
}

}  // namespace

bool ParseFileMeta(const uint8_t* data, size_t size, FileMeta* meta, std::string* error) {
  Decoder d{CompactReader(data, size), {}};
  *meta = FileMeta();
  if (ParseFileMetaFields(d, meta) && d.r.ok()) return true;
  if (d.r.ok()) d.r.Fail("malformed");
  *error = Describe(d, "FileMetaData");
  return false;
}

size_t ParsePageHeader(const uint8_t* data, size_t size, PageHeader* header, std::string* error,
                       bool* truncated) {
  Decoder d{CompactReader(data, size), {}};
  *header = PageHeader();
  *truncated = false;
  if (ParsePageHeaderFields(d, header) && d.r.ok()) return d.r.pos();
  if (d.r.ok()) d.r.Fail("malformed");
  *truncated = d.r.truncated();
  *error = Describe(d, "PageHeader");
  return 0;
}

}  // namespace preflight::parquet
