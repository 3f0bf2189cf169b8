// The reader against files written by independent writers (arrow-rs through parquet-wasm, and
// hyparquet-writer): every row's text and carried columns equal the JSONL the same script wrote,
// the files really use the codecs, encodings and page versions they are named for, and reading
// only the text leaves the other columns' bytes unread.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "parquet/chunk.h"
#include "parquet/format.h"
#include "parquet/reader.h"
#include "testing/parquet_files.h"

namespace preflight::parquet {
namespace {

using nlohmann::ordered_json;
using testing::ParquetFixture;

std::unique_ptr<Reader> OpenFixture(const ParquetFixture& f, bool carry) {
  ReadRequest request;
  request.text_column = f.text;
  request.id_column = f.id;
  request.carry_columns = carry;
  auto reader = Reader::Open(testing::ParquetFixtureDir() + f.parquet, request);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  return reader.ok() ? std::move(*reader) : nullptr;
}

const Column* OutputNamed(const Reader& reader, const std::string& name) {
  for (const Column* c : reader.output_columns()) {
    if (c->name == name) return c;
  }
  return nullptr;
}

// One row against its expected line: the keys in order, the text byte for byte, the id's text,
// numbers exactly (FLOAT columns as floats, since the script wrote them widened to doubles).
void ExpectRow(const Reader& reader, const Row& row, const ordered_json& want,
               const std::string& where) {
  std::string line;
  reader.AppendJson(row, &line);
  const ordered_json got = ordered_json::parse(line);  // valid JSON, bad rows too
  if (want.contains("__bad")) {
    EXPECT_EQ(row.bad, want["__bad"].get<std::string>()) << where;
    return;
  }
  std::vector<std::string> got_keys, want_keys;
  for (const auto& [k, v] : got.items()) got_keys.push_back(k);
  for (const auto& [k, v] : want.items()) want_keys.push_back(k);
  ASSERT_EQ(got_keys, want_keys) << where << ": " << line;
  for (const auto& [key, value] : want.items()) {
    const Column* column = OutputNamed(reader, key);
    ASSERT_NE(column, nullptr) << where << ": " << key;
    if (column->kind == ValueKind::kFloat && value.is_number()) {
      ASSERT_TRUE(got[key].is_number()) << where << ": " << key;
      EXPECT_EQ(static_cast<float>(got[key].get<double>()), static_cast<float>(value.get<double>()))
          << where << ": " << key;
    } else {
      EXPECT_EQ(got[key], value) << where << ": " << key;
    }
  }
  const auto& text = want[reader.text_column().name];
  EXPECT_EQ(row.text_null, text.is_null()) << where;
  EXPECT_EQ(row.bad, text.is_null() ? "null text" : "") << where;
  if (text.is_string()) {
    EXPECT_EQ(std::string(row.text), text.get<std::string>()) << where;
  }
}

TEST(ParquetFixtures, EveryRowEqualsTheWritersJsonl) {
  const auto fixtures = testing::LoadParquetFixtures();
  ASSERT_GE(fixtures.size(), 80u);
  for (const ParquetFixture& f : fixtures) {
    SCOPED_TRACE(f.parquet);
    auto reader = OpenFixture(f, /*carry=*/true);
    ASSERT_NE(reader, nullptr);
    const auto lines = testing::ReadJsonLines(testing::ParquetFixtureDir() + f.jsonl);
    Row row;
    uint64_t n = 0;
    while (true) {
      auto more = reader->Next(&row);
      ASSERT_TRUE(more.ok()) << more.status().message();
      if (!*more) break;
      ASSERT_LT(n, lines.size()) << "more rows than the JSONL";
      EXPECT_EQ(row.row_in_file, n);
      const ordered_json want = ordered_json::parse(lines[n]);
      ExpectRow(*reader, row, want, f.parquet + " row " + std::to_string(n));
      if (!f.id.empty() && want.contains(f.id) && !want.contains("__bad")) {
        const auto& id = want[f.id];
        EXPECT_EQ(row.has_id, !id.is_null());
        EXPECT_EQ(std::string(row.id), id.is_string() ? id.get<std::string>() : id.dump());
      }
      ++n;
    }
    EXPECT_EQ(n, lines.size());
    EXPECT_EQ(reader->num_rows(), lines.size());
    EXPECT_EQ(reader->progress_bytes(), reader->file_bytes());
  }
}

// The pages of one column chunk: (page type, encoding) in file order.
std::vector<std::pair<int32_t, int32_t>> ChunkPages(const std::string& path, int group,
                                                    const std::string& column, int32_t* codec) {
  InputFile file;
  EXPECT_TRUE(file.Open(path, path).ok());
  FileMeta meta;
  uint64_t data_end = 0;
  EXPECT_TRUE(ReadFooter(file, &meta, &data_end).ok());
  std::vector<std::pair<int32_t, int32_t>> pages;
  for (const ColumnChunkMeta& c : meta.row_groups.at(group).columns) {
    if (c.path_in_schema.at(0) != column) continue;
    *codec = c.codec;
    ChunkSpec spec;
    spec.file = &file;
    spec.codec = c.codec;
    spec.begin = static_cast<uint64_t>(c.dictionary_page_offset > 0 ? c.dictionary_page_offset
                                                                    : c.data_page_offset);
    spec.end = spec.begin + static_cast<uint64_t>(c.total_compressed_size);
    spec.max_page_bytes = uint64_t{1} << 30;
    PageReader reader;
    reader.Reset(spec);
    Buffer data, dictionary;
    Page page;
    while (true) {
      auto more = reader.Next(&page, &data, &dictionary);
      EXPECT_TRUE(more.ok()) << more.status().message();
      if (!more.ok() || !*more) break;
      pages.emplace_back(page.header.type, page.header.encoding);
    }
  }
  return pages;
}

// What a fixture's name promises about its text column's pages.
TEST(ParquetFixtures, FilesUseTheCodecsEncodingsAndPageVersionsTheyAreNamedFor) {
  const std::map<std::string, int32_t> codecs = {{"uncompressed", kUncompressed},
                                                 {"snappy", kSnappy},
                                                 {"gzip", kGzip},
                                                 {"brotli", kBrotli},
                                                 {"lz4", kLz4},
                                                 {"zstd", kZstd},
                                                 {"lz4raw", kLz4Raw}};
  const std::map<std::string, std::set<int32_t>> encodings = {
      {"dict", {kPlainDictionary, kRleDictionary}},
      {"plain", {kPlain}},
      {"deltalength", {kDeltaLengthByteArray}},
      {"deltabytes", {kDeltaByteArray}}};
  std::set<std::string> seen;
  int multi_page_chunks = 0;
  for (const ParquetFixture& f : testing::LoadParquetFixtures()) {
    if (f.codec.empty()) continue;
    SCOPED_TRACE(f.parquet);
    int32_t codec = -1;
    const auto pages = ChunkPages(testing::ParquetFixtureDir() + f.parquet, 0, "text", &codec);
    EXPECT_EQ(codec, codecs.at(f.codec));
    int data_pages = 0;
    for (const auto& [type, encoding] : pages) {
      if (type == kDictionaryPage) continue;
      ++data_pages;
      EXPECT_EQ(type, f.pages == 2 ? kDataPageV2 : kDataPage);
      // hyparquet-writer keeps a dictionary only where it pays; arrow-rs always does here.
      if (f.encoding != "dict" || f.writer == "parquet-wasm") {
        EXPECT_EQ(encodings.at(f.encoding).count(encoding), 1u) << EncodingName(encoding);
      }
    }
    multi_page_chunks += data_pages > 1;
    seen.insert(f.writer + "/" + f.codec + "/" + f.encoding + "/v" + std::to_string(f.pages));
  }
  EXPECT_EQ(seen.size(), 7u * 4 * 2 + 4 * 4);  // parquet-wasm's matrix, hyparquet's codecs
  EXPECT_GT(multi_page_chunks, 30);
}

// Dictionary pages, then (the dictionary grown past its limit) plain or delta pages, in one chunk.
TEST(ParquetFixtures, FallbackFilesSwitchFromDictionaryToPlainMidChunk) {
  for (const ParquetFixture& f : testing::LoadParquetFixtures()) {
    if (f.fallback.empty()) continue;
    SCOPED_TRACE(f.parquet);
    int32_t codec = -1;
    const auto pages = ChunkPages(testing::ParquetFixtureDir() + f.parquet, 0, "text", &codec);
    ASSERT_GE(pages.size(), 3u);
    EXPECT_EQ(pages[0].first, kDictionaryPage);
    bool dictionary_data = false, fallback_after = false;
    for (size_t i = 1; i < pages.size(); ++i) {
      const bool dict = pages[i].second == kPlainDictionary || pages[i].second == kRleDictionary;
      if (dict) {
        EXPECT_FALSE(fallback_after) << "a dictionary page after the fallback";
        dictionary_data = true;
      } else {
        EXPECT_EQ(EncodingName(pages[i].second), f.fallback);
        fallback_after = dictionary_data;
      }
    }
    EXPECT_TRUE(dictionary_data && fallback_after);
  }
}

// Reading the text column alone reads the footer and the text chunks, nothing else.
TEST(ParquetFixtures, TextAloneLeavesTheOtherColumnsUnread) {
  ParquetFixture f;
  f.parquet = "fineweb-snappy-v1.parquet";
  f.text = "text";
  const std::string path = testing::ParquetFixtureDir() + f.parquet;
  InputFile file;
  ASSERT_TRUE(file.Open(path, path).ok());
  FileMeta meta;
  uint64_t data_end = 0;
  ASSERT_TRUE(ReadFooter(file, &meta, &data_end).ok());
  uint64_t text_bytes = 0, all_bytes = 0;
  for (const RowGroupMeta& g : meta.row_groups) {
    for (const ColumnChunkMeta& c : g.columns) {
      all_bytes += static_cast<uint64_t>(c.total_compressed_size);
      if (c.path_in_schema[0] == "text")
        text_bytes += static_cast<uint64_t>(c.total_compressed_size);
    }
  }
  ASSERT_GE(meta.row_groups.size(), 3u);
  const uint64_t footer = file.size() - data_end + 4;  // footer, its length, both magics
  for (bool carry : {false, true}) {
    auto reader = OpenFixture(f, carry);
    ASSERT_NE(reader, nullptr);
    Row row;
    while (*reader->Next(&row)) {
    }
    EXPECT_EQ(reader->bytes_read(), footer + (carry ? all_bytes : text_bytes)) << carry;
  }
}

TEST(ParquetFixtures, RowGroupRangesReadTheirRowsWithFileWidePositions) {
  ParquetFixture f;
  f.parquet = "fineweb-snappy-v1.parquet";
  f.text = "text";
  auto whole = OpenFixture(f, false);
  ASSERT_NE(whole, nullptr);
  ASSERT_EQ(whole->num_row_groups(), 3);
  std::vector<std::string> texts;
  std::vector<int> groups;
  Row row;
  while (*whole->Next(&row)) {
    texts.emplace_back(row.text);
    groups.push_back(row.row_group);
  }
  ReadRequest request;
  request.first_row_group = 1;
  request.end_row_group = 2;
  auto part = Reader::Open(testing::ParquetFixtureDir() + f.parquet, request);
  ASSERT_TRUE(part.ok());
  uint64_t first = 0, n = 0, last_progress = 0;
  while (groups[first] != 1) ++first;
  while (true) {
    auto more = (*part)->Next(&row);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
    EXPECT_EQ(row.row_group, 1);
    EXPECT_EQ(row.row_in_group, n);
    EXPECT_EQ(row.row_in_file, first + n);
    EXPECT_EQ(std::string(row.text), texts[first + n]);
    EXPECT_GE((*part)->progress_bytes(), last_progress);
    last_progress = (*part)->progress_bytes();
    ++n;
  }
  EXPECT_EQ(n, (*part)->rows_in_range());
  const RowGroupInfo info = (*part)->row_group(1);
  EXPECT_EQ(info.rows, n);
  EXPECT_EQ(info.first_row, first);
  EXPECT_EQ(last_progress, info.end - info.begin);  // after its last row: all of its bytes
  EXPECT_EQ((*part)->progress_bytes(), info.end - info.begin);
  EXPECT_EQ(n, static_cast<uint64_t>(std::count(groups.begin(), groups.end(), 1)));
  EXPECT_LT((*part)->progress_bytes(), (*part)->file_bytes());
}

// Columns and how they come out: which are carried, and refusals for text and id columns.
TEST(ParquetFixtures, TypesAreCarriedOrRefusedByKind) {
  const std::string path = testing::ParquetFixtureDir() + "types.parquet";
  ReadRequest request;
  request.carry_columns = true;
  auto reader = Reader::Open(path, request);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  std::vector<std::string> carried;
  for (const Column* c : (*reader)->output_columns()) carried.push_back(c->name);
  EXPECT_EQ(carried,
            (std::vector<std::string>{"text", "i8", "i16", "u8", "u32", "u64", "day", "ts_us",
                                      "ts_ns", "ts_ms", "f32", "f64", "ok", "tag"}));
  const std::map<std::string, std::string> refusals = {
      {"tags", "nested or repeated"},
      {"meta", "nested or repeated"},
      {"meta.a", "nested or repeated"},
      {"blob", "BYTE_ARRAY, not a string"},
      {"i8", "INT32 (INT(8)), not a string"},
      {"day", "INT32 (DATE), not a string"},
      {"nope",
       "no column \"nope\" for the text; the file's columns are: text, i8, i16, u8, "
       "u32, u64, day, ts_us, ts_ns, ts_ms, f32, f64, ok, blob, tags, meta, tag"}};
  for (const auto& [column, message] : refusals) {
    request.text_column = column;
    auto refused = Reader::Open(path, request);
    ASSERT_FALSE(refused.ok()) << column;
    EXPECT_EQ(refused.status().kind(), Status::Kind::kInvalidArgument);
    EXPECT_NE(refused.status().message().find(message), std::string::npos)
        << refused.status().message();
    EXPECT_EQ(refused.status().message().rfind(path, 0), 0u) << "names the file first";
  }
  request.text_column = "text";
  request.id_column = "blob";
  EXPECT_FALSE(Reader::Open(path, request).ok());
  request.id_column = "tags";
  EXPECT_FALSE(Reader::Open(path, request).ok());
  request.id_column = "u64";
  auto with_id = Reader::Open(path, request);
  ASSERT_TRUE(with_id.ok());
  Row row;
  ASSERT_TRUE(*(*with_id)->Next(&row));
  ASSERT_TRUE(*(*with_id)->Next(&row));
  EXPECT_EQ(row.id, "18000000000000000000");
}

}  // namespace
}  // namespace preflight::parquet
