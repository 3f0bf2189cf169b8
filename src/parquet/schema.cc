#include "parquet/schema.h"

#include "parquet/format.h"

namespace preflight::parquet {

namespace {

constexpr int kMaxSchemaDepth = 64;
const char* const kUnits[] = {"MILLIS", "MICROS", "NANOS"};

bool IsStringAnnotated(const SchemaElement& e) {
  const auto k = e.logical.kind;
  if (k == LogicalType::kString || k == LogicalType::kEnum || k == LogicalType::kJson) return true;
  if (k != LogicalType::kNone) return false;
  return e.converted_type == kConvertedUtf8 || e.converted_type == kConvertedEnum ||
         e.converted_type == kConvertedJson;
}

// The deprecated ConvertedType's name, or "".
std::string ConvertedName(int32_t converted_type) {
  static const char* const kConverted[] = {"UTF8",
                                           "MAP",
                                           "MAP_KEY_VALUE",
                                           "LIST",
                                           "ENUM",
                                           "DECIMAL",
                                           "DATE",
                                           "TIME_MILLIS",
                                           "TIME_MICROS",
                                           "TIMESTAMP_MILLIS",
                                           "TIMESTAMP_MICROS",
                                           "UINT_8",
                                           "UINT_16",
                                           "UINT_32",
                                           "UINT_64",
                                           "INT_8",
                                           "INT_16",
                                           "INT_32",
                                           "INT_64",
                                           "JSON",
                                           "BSON",
                                           "INTERVAL"};
  if (converted_type < 0 || converted_type > kConvertedInterval) return "";
  return kConverted[converted_type];
}

// The logical annotation as written in messages: "STRING", "TIMESTAMP(MICROS, UTC)", ...
std::string AnnotationName(const SchemaElement& e) {
  const LogicalType& l = e.logical;
  switch (l.kind) {
    case LogicalType::kDecimal:
      return "DECIMAL(" + std::to_string(l.precision) + ", " + std::to_string(l.scale) + ")";
    case LogicalType::kTime:
      return std::string("TIME(") + kUnits[l.unit] + ")";
    case LogicalType::kTimestamp:
      return std::string("TIMESTAMP(") + kUnits[l.unit] + (l.adjusted_to_utc ? ", UTC)" : ")");
    case LogicalType::kInteger:
      return std::string(l.is_signed ? "INT(" : "UINT(") + std::to_string(l.bit_width) + ")";
    case LogicalType::kNone:
      return ConvertedName(e.converted_type);
    default:
      break;
  }
  static const char* const kNames[] = {
      "", "STRING", "MAP",  "LIST", "ENUM", "",     "DATE",    "",
      "", "",       "NULL", "JSON", "BSON", "UUID", "FLOAT16", "a newer logical type"};
  return kNames[l.kind];
}

// Integers: unsigned, a date, a timestamp, a decimal or a plain number.
void ClassifyInteger(const SchemaElement& e, Column* c) {
  const LogicalType& l = e.logical;
  const int32_t ct = e.converted_type;
  c->kind = ValueKind::kInt;
  if ((l.kind == LogicalType::kInteger && !l.is_signed) ||
      (l.kind == LogicalType::kNone && ct >= kConvertedUint8 && ct <= kConvertedUint64)) {
    c->kind = ValueKind::kUInt;
  } else if (l.kind == LogicalType::kDate ||
             (l.kind == LogicalType::kNone && ct == kConvertedDate)) {
    c->kind = c->physical == kInt32 ? ValueKind::kDate : ValueKind::kInt;
  } else if (l.kind == LogicalType::kTimestamp && c->physical == kInt64) {
    c->kind = ValueKind::kTimestamp;
    c->time_unit = l.unit;
    c->utc = l.adjusted_to_utc;
  } else if (l.kind == LogicalType::kNone && c->physical == kInt64 &&
             (ct == kConvertedTimestampMillis || ct == kConvertedTimestampMicros)) {
    c->kind = ValueKind::kTimestamp;
    c->time_unit = ct == kConvertedTimestampMillis ? 0 : 1;
    c->utc = true;
  } else if (l.kind == LogicalType::kDecimal ||
             (l.kind == LogicalType::kNone && ct == kConvertedDecimal)) {
    const int scale = l.kind == LogicalType::kDecimal ? l.scale : e.scale;
    c->kind = scale >= 0 && scale <= 38 ? ValueKind::kDecimal : ValueKind::kNone;
    c->scale = scale;
  }
}

void Classify(const SchemaElement& e, Column* c) {
  const std::string annotation = AnnotationName(e);
  c->type_name = PhysicalTypeName(e.type);
  if (e.type == kFixedLenByteArray) {
    c->type_name.append("[").append(std::to_string(e.type_length)).append("]");
  }
  if (!annotation.empty()) c->type_name.append(" (").append(annotation).append(")");
  if (c->nested) return;
  if (e.logical.kind == LogicalType::kUnknown) {
    c->kind = ValueKind::kNull;
    return;
  }
  switch (e.type) {
    case kBoolean:
      c->kind = ValueKind::kBool;
      break;
    case kInt32:
    case kInt64:
      ClassifyInteger(e, c);
      break;
    case kInt96:
      c->kind = ValueKind::kInt96Timestamp;
      break;
    case kFloat:
      c->kind = ValueKind::kFloat;
      break;
    case kDouble:
      c->kind = ValueKind::kDouble;
      break;
    case kByteArray:
      c->kind = IsStringAnnotated(e) ? ValueKind::kString : ValueKind::kNone;
      break;
    case kFixedLenByteArray:
      c->kind = e.logical.kind == LogicalType::kUuid && e.type_length == 16 ? ValueKind::kUuid
                                                                            : ValueKind::kNone;
      break;
    default:
      c->kind = ValueKind::kNone;
  }
}

struct Walker {
  const std::vector<SchemaElement>& elements;
  const std::string& file;
  Schema* schema;
  size_t next = 1;  // the next element to read (0 is the root)
  Status status;

  bool Fail(const std::string& what) {
    status = Status::Corruption(file + ": corrupt schema in the footer: " + what +
                                "; the file is damaged or was not written completely");
    return false;
  }

  // Reads the element at `next` and its subtree.
  bool Node(int depth, int def, int rep, const std::string& parent_path) {
    if (next >= elements.size()) return Fail("a group's children run past the schema's end");
    if (depth > kMaxSchemaDepth) return Fail("fields nested more than 64 deep");
    const SchemaElement& e = elements[next++];
    if (e.repetition == kOptional) ++def;
    if (e.repetition == kRepeated) {
      ++def;
      ++rep;
    }
    const std::string path = parent_path.empty() ? e.name : parent_path + "." + e.name;
    const bool group = e.num_children > 0 || (e.type < 0 && e.num_children == 0);
    if (depth == 0) {
      schema->top_level.push_back(e.name);
      schema->top_level_is_group.push_back(group);
    }
    if (group) {
      if (static_cast<size_t>(e.num_children) > elements.size() - next) {
        return Fail("field \"" + path + "\" has more children than the schema has fields");
      }
      for (int32_t i = 0; i < e.num_children; ++i) {
        if (!Node(depth + 1, def, rep, path)) return false;
      }
      return true;
    }
    return Leaf(e, depth, def, rep, path);
  }

  bool Leaf(const SchemaElement& e, int depth, int def, int rep, const std::string& path) {
    if (e.type < kBoolean || e.type > kFixedLenByteArray) {
      return Fail("field \"" + path + "\" has no valid physical type");
    }
    if (e.type == kFixedLenByteArray && e.type_length <= 0) {
      return Fail("FIXED_LEN_BYTE_ARRAY field \"" + path + "\" has no length");
    }
    Column c;
    c.name = path;
    c.leaf = static_cast<int>(schema->leaves.size());
    c.physical = e.type;
    c.type_length = e.type_length;
    c.max_definition = def;
    c.max_repetition = rep;
    c.nested = depth > 0 || rep > 0;
    c.optional = !c.nested && def == 1;
    Classify(e, &c);
    schema->leaves.push_back(std::move(c));
    return true;
  }
};

}  // namespace

Result<Schema> BuildSchema(const FileMeta& meta, const std::string& file) {
  Schema schema;
  Walker w{meta.schema, file, &schema, 1, Status::Ok()};
  if (meta.schema.empty()) {
    w.Fail("no schema");
    return w.status;
  }
  const int32_t roots = meta.schema[0].num_children;
  if (roots < 0 || static_cast<size_t>(roots) > meta.schema.size() - 1) {
    w.Fail("the root lists " + std::to_string(roots) + " fields");
    return w.status;
  }
  for (int32_t i = 0; i < roots; ++i) {
    if (!w.Node(0, 0, 0, "")) return w.status;
  }
  if (w.next != meta.schema.size()) {
    w.Fail(std::to_string(meta.schema.size() - w.next) + " fields belong to no group");
    return w.status;
  }
  return schema;
}

}  // namespace preflight::parquet
