#pragma once
// Parquet files for the reader's tests: the committed fixtures that independent writers made
// (tests/parquet/fixtures/make.mjs, listed in files/index.json), and a tiny writer of one-column
// files built here byte by byte, for the shapes no writer makes on request (a CRC, a codec that
// is not linked, encryption, the legacy BIT_PACKED levels, a column chunk in another file).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "testing/testing.h"

namespace preflight::testing {

inline std::string ParquetFixtureDir() {
  return std::string(PREFLIGHT_SOURCE_DIR) + "/tests/parquet/fixtures/files/";
}

// One entry of files/index.json.
struct ParquetFixture {
  std::string parquet, jsonl, text, id, writer, codec, encoding, fallback;
  int pages = 0;  // data page version (0: not stated)
};

inline std::vector<ParquetFixture> LoadParquetFixtures() {
  const auto index = nlohmann::json::parse(ReadText(ParquetFixtureDir() + "index.json"));
  std::vector<ParquetFixture> out;
  for (const auto& e : index.at("files")) {
    ParquetFixture f;
    f.parquet = e.at("parquet");
    f.jsonl = e.at("jsonl");
    f.text = e.value("text", "text");
    f.id = e.value("id", "");
    f.writer = e.value("writer", "");
    f.codec = e.value("codec", "");
    f.encoding = e.value("encoding", "");
    f.fallback = e.value("fallback", "");
    f.pages = e.value("pages", 0);
    out.push_back(f);
  }
  return out;
}

// The lines of a JSONL file, split on '\n' only (a text may hold U+2028).
inline std::vector<std::string> ReadJsonLines(const std::string& path) {
  const std::string all = ReadText(path);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    if (end > start) lines.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The Thrift compact protocol, written: enough for a footer and a page header.
class CompactWriter {
 public:
  enum Type : uint8_t {
    kTrue = 1,
    kFalse = 2,
    kI32 = 5,
    kI64 = 6,
    kBinary = 8,
    kList = 9,
    kStruct = 12
  };
  void Field(int16_t id, uint8_t type) {
    const int delta = id - last_.back();
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<char>((delta << 4) | type));
    } else {
      out_.push_back(static_cast<char>(type));
      Varint(Zigzag(id));
    }
    last_.back() = id;
  }
  void I32(int16_t id, int64_t v) {
    Field(id, kI32);
    Varint(Zigzag(v));
  }
  void I64(int16_t id, int64_t v) {
    Field(id, kI64);
    Varint(Zigzag(v));
  }
  void Bool(int16_t id, bool v) { Field(id, v ? kTrue : kFalse); }
  void Binary(int16_t id, std::string_view s) {
    Field(id, kBinary);
    Str(s);
  }
  void Str(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  void Begin(int16_t id) {
    Field(id, kStruct);
    BeginElement();
  }
  void BeginElement() { last_.push_back(0); }  // a struct as a list element
  void End() {
    out_.push_back(0);
    last_.pop_back();
  }
  void List(int16_t id, uint8_t element, size_t n) {
    Field(id, kList);
    if (n < 15) {
      out_.push_back(static_cast<char>((n << 4) | element));
    } else {
      out_.push_back(static_cast<char>(0xf0 | element));
      Varint(n);
    }
  }
  void Element(int64_t v) { Varint(Zigzag(v)); }  // an i32/i64 list element
  const std::string& bytes() const { return out_; }

 private:
  static uint64_t Zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
  std::vector<int16_t> last_{0};
};

// A one-column file: an OPTIONAL BYTE_ARRAY (STRING) column "text" in one row group, one
// uncompressed PLAIN data page v1 (definition levels RLE, or the legacy BIT_PACKED).
struct TinyParquet {
  std::vector<std::optional<std::string>> texts = {"alpha", std::nullopt, "gamma"};
  int32_t codec = 0;  // what the column metadata says (the page stays uncompressed)
  bool crc = false, wrong_crc = false;
  bool bit_packed_levels = false;
  bool encryption_algorithm = false;  // in the footer
  std::string file_path;              // the column chunk's
  std::string column = "text";
  size_t statistics_bytes = 0;  // a page header this much longer (page statistics)
};

inline uint32_t TinyCrc32(std::string_view bytes) {
  uint32_t crc = 0xffffffff;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

inline std::string TinyPage(const TinyParquet& spec) {
  const size_t n = spec.texts.size();
  std::string levels;
  if (spec.bit_packed_levels) {
    levels.assign((n + 7) / 8, '\0');
    for (size_t i = 0; i < n; ++i) {
      if (spec.texts[i]) levels[i / 8] = static_cast<char>(levels[i / 8] | (0x80 >> (i % 8)));
    }
  } else {
    const size_t groups = (n + 7) / 8;
    std::string run(1, static_cast<char>((groups << 1) | 1));  // a bit-packed run (groups < 64)
    run.resize(1 + groups, '\0');
    for (size_t i = 0; i < n; ++i) {
      if (spec.texts[i]) run[1 + i / 8] = static_cast<char>(run[1 + i / 8] | (1 << (i % 8)));
    }
    const uint32_t len = static_cast<uint32_t>(run.size());
    levels.assign(reinterpret_cast<const char*>(&len), 4);
    levels += run;
  }
  std::string values;
  for (const auto& t : spec.texts) {
    if (!t) continue;
    const uint32_t len = static_cast<uint32_t>(t->size());
    values.append(reinterpret_cast<const char*>(&len), 4).append(*t);
  }
  return levels + values;
}

// The column chunk: one page header and its page.
inline std::string TinyChunk(const TinyParquet& spec) {
  const std::string body = TinyPage(spec);
  CompactWriter header;
  header.I32(1, 0);  // DATA_PAGE
  header.I32(2, static_cast<int64_t>(body.size()));
  header.I32(3, static_cast<int64_t>(body.size()));
  if (spec.crc) {
    const uint32_t crc = TinyCrc32(body) ^ (spec.wrong_crc ? 1u : 0u);
    header.I32(4, static_cast<int32_t>(crc));
  }
  header.Begin(5);
  header.I32(1, static_cast<int64_t>(spec.texts.size()));
  header.I32(2, 0);                               // PLAIN
  header.I32(3, spec.bit_packed_levels ? 4 : 3);  // BIT_PACKED or RLE
  header.I32(4, 3);
  if (spec.statistics_bytes > 0) {  // Statistics.max_value
    header.Begin(5);
    header.Binary(5, std::string(spec.statistics_bytes, 'z'));
    header.End();
  }
  header.End();
  header.End();
  return header.bytes() + body;
}

inline std::string BuildTinyParquet(const TinyParquet& spec) {
  const std::string chunk = TinyChunk(spec);
  CompactWriter f;
  f.I32(1, 1);
  f.List(2, CompactWriter::kStruct, 2);
  f.BeginElement();
  f.Binary(4, "schema");
  f.I32(5, 1);
  f.End();
  f.BeginElement();
  f.I32(1, 6);  // BYTE_ARRAY
  f.I32(3, 1);  // OPTIONAL
  f.Binary(4, spec.column);
  f.I32(6, 0);  // UTF8
  f.End();
  f.I64(3, static_cast<int64_t>(spec.texts.size()));
  f.List(4, CompactWriter::kStruct, 1);
  f.BeginElement();
  f.List(1, CompactWriter::kStruct, 1);
  f.BeginElement();
  if (!spec.file_path.empty()) f.Binary(1, spec.file_path);
  f.I64(2, 4);
  f.Begin(3);
  f.I32(1, 6);
  f.List(2, CompactWriter::kI32, 2);
  f.Element(0);
  f.Element(3);
  f.List(3, CompactWriter::kBinary, 1);
  f.Str(spec.column);
  f.I32(4, spec.codec);
  f.I64(5, static_cast<int64_t>(spec.texts.size()));
  f.I64(6, static_cast<int64_t>(chunk.size()));
  f.I64(7, static_cast<int64_t>(chunk.size()));
  f.I64(9, 4);
  f.End();  // ColumnMetaData
  f.End();  // ColumnChunk
  f.I64(2, static_cast<int64_t>(chunk.size()));
  f.I64(3, static_cast<int64_t>(spec.texts.size()));
  f.End();  // RowGroup
  f.Binary(6, "preflight tests");
  if (spec.encryption_algorithm) {
    f.Begin(8);
    f.Begin(1);  // AES_GCM_V1
    f.End();
    f.End();
  }
  f.End();  // FileMetaData
  const std::string& footer = f.bytes();
  const uint32_t footer_len = static_cast<uint32_t>(footer.size());
  return "PAR1" + chunk + footer + std::string(reinterpret_cast<const char*>(&footer_len), 4) +
         "PAR1";
}

}  // namespace preflight::testing
