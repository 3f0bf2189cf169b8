#include "parquet/thrift.h"

#include <cstring>

namespace preflight::parquet {

namespace {
constexpr int kMaxDepth = 32;
}  // namespace

const char* CompactTypeName(uint8_t type) {
  switch (type) {
    case CompactReader::kStop:
      return "stop";
    case CompactReader::kTrue:
    case CompactReader::kFalse:
      return "bool";
    case CompactReader::kByte:
      return "byte";
    case CompactReader::kI16:
      return "i16";
    case CompactReader::kI32:
      return "i32";
    case CompactReader::kI64:
      return "i64";
    case CompactReader::kDouble:
      return "double";
    case CompactReader::kBinary:
      return "binary";
    case CompactReader::kList:
      return "list";
    case CompactReader::kSet:
      return "set";
    case CompactReader::kMap:
      return "map";
    case CompactReader::kStruct:
      return "struct";
    default:
      return "unknown type";
  }
}

void CompactReader::Fail(std::string_view what) {
  if (!error_.empty()) return;
  error_.assign(what).append(" at byte ").append(std::to_string(pos_));
  pos_ = size_;  // Every later read fails quietly.
}

void CompactReader::Truncated() {
  if (!error_.empty()) return;
  truncated_ = true;
  Fail("truncated");
}

uint8_t CompactReader::ReadByte() {
  if (pos_ >= size_) {
    Truncated();
    return 0;
  }
  return data_[pos_++];
}

uint64_t CompactReader::ReadVarint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= size_) {
      Truncated();
      return 0;
    }
    const uint8_t byte = data_[pos_++];
    if (shift == 63 && byte > 1) break;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  Fail("malformed varint");
  return 0;
}

void CompactReader::SkipBytes(size_t n) {
  if (n > size_ - pos_) {
    Truncated();
    return;
  }
  pos_ += n;
}

bool CompactReader::NextField(Scope* scope, int16_t* id, uint8_t* type) {
  if (!ok()) return false;
  const uint8_t header = ReadByte();
  if (!ok()) return false;
  *type = header & 0x0f;
  if (*type == kStop) return false;
  const uint8_t delta = header >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(scope->last_id + delta);
  } else {
    const int64_t v = ReadZigzag();
    if (v < INT16_MIN || v > INT16_MAX) Fail("field id out of range");
    *id = static_cast<int16_t>(v);
  }
  scope->last_id = *id;
  if (*type > kStruct) Fail("unknown wire type " + std::to_string(*type));
  return ok();
}

int64_t CompactReader::ReadInt(uint8_t type) {
  switch (type) {
    case kByte:
      return static_cast<int8_t>(ReadByte());
    case kI16:
    case kI32:
    case kI64:
      return ReadZigzag();
    default:
      Fail(std::string("expected an integer, found ") + CompactTypeName(type));
      return 0;
  }
}

int32_t CompactReader::ReadI32(uint8_t type) {
  const int64_t v = ReadInt(type);
  if (v < INT32_MIN || v > INT32_MAX) {
    Fail("integer out of the i32 range");
    return 0;
  }
  return static_cast<int32_t>(v);
}

bool CompactReader::ReadBool(uint8_t type) {
  // As a field the value is the type itself; as a list element (the list's element type is
  // either bool code) it is one byte, 1 for true.
  if (type == kTrue || type == kFalse) return type == kTrue;
  Fail(std::string("expected a bool, found ") + CompactTypeName(type));
  return false;
}

double CompactReader::ReadDouble(uint8_t type) {
  if (type != kDouble) {
    Fail(std::string("expected a double, found ") + CompactTypeName(type));
    return 0;
  }
  if (size_ - pos_ < 8) {
    Truncated();
    return 0;
  }
  double v;
  std::memcpy(&v, data_ + pos_, 8);
  pos_ += 8;
  return v;
}

std::string_view CompactReader::ReadBinary(uint8_t type) {
  if (type != kBinary) {
    Fail(std::string("expected binary, found ") + CompactTypeName(type));
    return {};
  }
  const uint64_t n = ReadVarint();
  if (!ok()) return {};
  if (n > size_ - pos_) {
    Truncated();
    return {};
  }
  std::string_view out(reinterpret_cast<const char*>(data_ + pos_), n);
  pos_ += n;
  return out;
}

bool CompactReader::ReadListHeader(uint8_t type, uint8_t* element_type, uint32_t* size) {
  if (type != kList && type != kSet) {
    Fail(std::string("expected a list, found ") + CompactTypeName(type));
    return false;
  }
  const uint8_t header = ReadByte();
  *element_type = header & 0x0f;
  uint64_t n = header >> 4;
  if (n == 15) n = ReadVarint();
  if (!ok()) return false;
  if (n > size_ - pos_) {
    Truncated();  // Each element takes at least one byte.
    return false;
  }
  *size = static_cast<uint32_t>(n);
  return true;
}

void CompactReader::SkipDepth(uint8_t type, int depth) {
  if (depth > kMaxDepth) {
    Fail("values nested too deep");
    return;
  }
  switch (type) {
    case kTrue:
    case kFalse:
      return;  // A field's value is its type; a list's bools go through kByte.
    case kByte:
      SkipBytes(1);
      return;
    case kI16:
    case kI32:
    case kI64:
      ReadVarint();
      return;
    case kDouble:
      SkipBytes(8);
      return;
    case kBinary:
      ReadBinary(kBinary);
      return;
    case kList:
    case kSet: {
      uint8_t element = 0;
      uint32_t n = 0;
      if (!ReadListHeader(type, &element, &n)) return;
      const bool bools = element == kTrue || element == kFalse;
      for (uint32_t i = 0; i < n && ok(); ++i)
        SkipDepth(bools ? uint8_t{kByte} : element, depth + 1);
      return;
    }
    case kMap: {
      const uint64_t n = ReadVarint();
      if (n == 0 || !ok()) return;
      if (n > size_ - pos_) return Truncated();
      const uint8_t kinds = ReadByte();
      const uint8_t key = kinds >> 4, value = kinds & 0x0f;
      auto fix = [](uint8_t t) { return t == kTrue || t == kFalse ? uint8_t{kByte} : t; };
      for (uint64_t i = 0; i < n && ok(); ++i) {
        SkipDepth(fix(key), depth + 1);
        SkipDepth(fix(value), depth + 1);
      }
      return;
    }
    case kStruct: {
      Scope scope;
      int16_t id = 0;
      uint8_t t = 0;
      while (NextField(&scope, &id, &t)) SkipDepth(t, depth + 1);
      return;
    }
    default:
      Fail("unknown wire type " + std::to_string(type));
  }
}

}  // namespace preflight::parquet
