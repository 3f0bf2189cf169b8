#pragma once
// A reader of the Thrift compact protocol, the encoding of Parquet's footer and page headers,
// over a byte span it does not own. Only what Parquet's structs use: structs, lists, integers,
// booleans, doubles and binary; anything else is skipped by type (nested at most 32 deep).
//
// No method throws or reads past the span: the first problem (a read past the end, a malformed
// varint, a type where another was expected) latches an error with the byte offset where it
// happened, every later read returns zero, and the caller checks ok() once a struct is read.
// A read past the end is reported as truncated() so that a caller holding only the start of
// the bytes (a page header read in pieces) can retry with more.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace preflight::parquet {

class CompactReader {
 public:
  // Wire types of the compact protocol.
  enum Type : uint8_t {
    kStop = 0,
    kTrue = 1,
    kFalse = 2,
    kByte = 3,
    kI16 = 4,
    kI32 = 5,
    kI64 = 6,
    kDouble = 7,
    kBinary = 8,
    kList = 9,
    kSet = 10,
    kMap = 11,
    kStruct = 12,
  };

  CompactReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // Fields of one struct: each struct being read keeps its own last field id here.
  struct Scope {
    int16_t last_id = 0;
  };
  // The next field's id and wire type; false at the struct's end (or on an error).
  bool NextField(Scope* scope, int16_t* id, uint8_t* type);

  // Integers of any width (byte, i16, i32, i64) as the type says; another type is an error.
  int64_t ReadInt(uint8_t type);
  // An integer that must fit in int32.
  int32_t ReadI32(uint8_t type);
  // A boolean field (its value is the wire type) or list element (one byte).
  bool ReadBool(uint8_t type);
  double ReadDouble(uint8_t type);
  // Binary or string: a view into the span.
  std::string_view ReadBinary(uint8_t type);
  // A list's (or set's) element type and size. The size is bounded by the bytes left (every
  // element takes at least one byte), so a caller may reserve it.
  bool ReadListHeader(uint8_t type, uint8_t* element_type, uint32_t* size);
  // Skips a value of any type.
  void Skip(uint8_t type) { SkipDepth(type, 0); }

  // Latches an error (the first one wins) at the current offset.
  void Fail(std::string_view what);

  bool ok() const { return error_.empty(); }
  bool truncated() const { return truncated_; }
  // "<what> at byte <offset>" of the first error, offsets counted from the span's start.
  const std::string& error() const { return error_; }
  size_t pos() const { return pos_; }

 private:
  uint64_t ReadVarint();
  int64_t ReadZigzag() {
    uint64_t v = ReadVarint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  uint8_t ReadByte();
  void SkipDepth(uint8_t type, int depth);
  void SkipBytes(size_t n);
  void Truncated();

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool truncated_ = false;
  std::string error_;
};

// The name of a compact wire type, for messages.
const char* CompactTypeName(uint8_t type);

}  // namespace preflight::parquet
