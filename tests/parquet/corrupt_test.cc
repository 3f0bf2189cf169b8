// Damaged and refused files: every truncation, flipped byte and unsupported feature ends in a
// Status that names the file (and the row group, column and byte where it applies), never in a
// crash, an out-of-bounds read or a huge allocation (run under the sanitizer build too).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/file.h"
#include "parquet/chunk.h"
#include "parquet/column.h"
#include "parquet/reader.h"
#include "testing/parquet_files.h"

namespace preflight::parquet {
namespace {

using testing::BuildTinyParquet;
using testing::TinyParquet;

// Reads every row of `path` (every carried column); the Status of the first failure, or OK.
Status ReadAll(const std::string& path, ReadRequest request = {}, uint64_t* rows = nullptr) {
  request.carry_columns = true;
  auto reader = Reader::Open(path, request);
  if (!reader.ok()) return reader.status();
  Row row;
  std::string json;
  while (true) {
    auto more = (*reader)->Next(&row);
    if (!more.ok()) return more.status();
    if (!*more) return Status::Ok();
    json.clear();
    (*reader)->AppendJson(row, &json);
    if (rows != nullptr) ++*rows;
  }
}

// Thousands of damaged copies are written: in memory (/dev/shm) where there is one.
std::string Scratch(const std::string& name) {
  static const std::string dir = [] {
    if (::access("/dev/shm", W_OK) != 0) return testing::ScratchDir("parquet_corrupt");
    const std::string shm = "/dev/shm/preflight-parquet-test." + std::to_string(::getpid());
    std::filesystem::create_directories(shm);
    return shm;
  }();
  return dir + "/" + name;
}

// Removes the scratch folder when the tests end.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override { std::filesystem::remove_all(DirName(Scratch("x"))); }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

const char* const kDamageFixtures[] = {"docs-snappy-dict-v1.parquet",
                                       "docs-zstd-deltabytes-v2.parquet",
                                       "docs-gzip-deltalength-v1.parquet",
                                       "docs-lz4raw-plain-v2.parquet",
                                       "docs-brotli-dict-v2.parquet",
                                       "docs-lz4-plain-v1.parquet",
                                       "docs-uncompressed-deltalength-v2.parquet",
                                       "hyp-snappy-deltabytes.parquet",
                                       "fallback-v1.parquet",
                                       "types.parquet"};

TEST(ParquetCorrupt, EveryTruncatedFileIsRefusedAtOpen) {
  for (const char* name : {"docs-snappy-dict-v1.parquet", "types.parquet"}) {
    const std::string bytes = testing::ReadText(testing::ParquetFixtureDir() + name);
    const std::string path = Scratch("cut.parquet");
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      testing::WriteText(path, bytes.substr(0, cut));
      auto reader = Reader::Open(path, {});
      ASSERT_FALSE(reader.ok()) << name << " cut at " << cut;
      EXPECT_TRUE(reader.status().IsBadInput()) << reader.status().message();
      EXPECT_EQ(reader.status().message().rfind(path, 0), 0u) << reader.status().message();
    }
  }
}

// A column chunk cut short anywhere: its page header, its page, or between pages.
TEST(ParquetCorrupt, EveryColumnChunkCutShortIsAnError) {
  for (const char* name : kDamageFixtures) {
    const std::string path = testing::ParquetFixtureDir() + name;
    InputFile file;
    ASSERT_TRUE(file.Open(path, name).ok());
    FileMeta meta;
    uint64_t data_end = 0;
    ASSERT_TRUE(ReadFooter(file, &meta, &data_end).ok());
    auto reader = Reader::Open(path, {});
    ASSERT_TRUE(reader.ok());
    const Column& text = (*reader)->text_column();
    const ColumnChunkMeta& c = meta.row_groups[0].columns[text.leaf];
    ChunkSpec spec;
    spec.file = &file;
    spec.where = std::string(name) + ": row group 0, column \"text\"";
    spec.codec = c.codec;
    spec.begin = static_cast<uint64_t>(c.dictionary_page_offset > 0 ? c.dictionary_page_offset
                                                                    : c.data_page_offset);
    spec.max_page_bytes = uint64_t{1} << 30;
    const uint64_t end = spec.begin + static_cast<uint64_t>(c.total_compressed_size);
    for (uint64_t cut = spec.begin; cut < end; ++cut) {
      spec.end = cut;
      ColumnReader column;
      column.Start(text, spec, meta.row_groups[0].num_rows);
      Status st;
      Value value;
      for (int64_t r = 0; r < meta.row_groups[0].num_rows && st.ok(); ++r) st = column.Next(&value);
      ASSERT_FALSE(st.ok()) << name << " cut at " << cut;
      EXPECT_EQ(st.kind(), Status::Kind::kCorruption) << st.message();
      EXPECT_EQ(st.message().rfind(spec.where + ": ", 0), 0u) << st.message();
    }
  }
}

// Bytes flipped anywhere (footer, page headers, page data): a clean Status or, where the byte
// did not matter (statistics, a text's letters in an uncompressed page), rows.
TEST(ParquetCorrupt, FlippedBytesGiveAStatusNeverACrash) {
  const std::string path = Scratch("flip.parquet");
  int errors = 0, cases = 0;
  for (const char* name : kDamageFixtures) {
    const std::string original = testing::ReadText(testing::ParquetFixtureDir() + name);
    for (size_t at = 0; at < original.size(); at += (at + 600 > original.size() ? 1 : 5)) {
      for (uint8_t mask : {0x01, 0x80, 0xff}) {
        std::string bytes = original;
        bytes[at] = static_cast<char>(bytes[at] ^ mask);
        testing::WriteText(path, bytes);
        ReadRequest request;
        request.id_column = "id";
        if (std::string(name) == "types.parquet") request.id_column.clear();
        const Status st = ReadAll(path, request);
        ++cases;
        if (st.ok()) continue;
        ++errors;
        EXPECT_TRUE(st.IsBadInput()) << name << " byte " << at << ": " << st.message();
        EXPECT_EQ(st.message().rfind(path, 0), 0u) << st.message();
      }
    }
  }
  EXPECT_GT(errors, cases / 10);
}

TEST(ParquetCorrupt, TinyFileReadsWithBothLevelEncodingsACrcAndALongPageHeader) {
  for (bool bit_packed : {false, true}) {
    for (bool crc : {false, true}) {
      TinyParquet spec;
      spec.statistics_bytes = crc ? 3 << 20 : 0;  // past the first read of a page header
      spec.texts = {"alpha", std::nullopt, "gamma", "", std::nullopt, "zeta", "eta", "theta", "i"};
      spec.bit_packed_levels = bit_packed;
      spec.crc = crc;
      const std::string path = Scratch("tiny.parquet");
      testing::WriteText(path, BuildTinyParquet(spec));
      auto reader = Reader::Open(path, {});
      ASSERT_TRUE(reader.ok()) << reader.status().message();
      Row row;
      for (const auto& want : spec.texts) {
        auto more = (*reader)->Next(&row);
        ASSERT_TRUE(more.ok() && *more) << (more.ok() ? "ended" : more.status().message());
        EXPECT_EQ(row.text_null, !want.has_value());
        EXPECT_EQ(row.bad, want ? "" : "null text");
        if (want) {
          EXPECT_EQ(row.text, *want);
        }
      }
      EXPECT_FALSE(*(*reader)->Next(&row));
    }
  }
}

// Refusals: what the file is (InvalidArgument) or its damage (Corruption), file and column named.
TEST(ParquetCorrupt, RefusalsNameTheFileColumnAndWhy) {
  struct Case {
    const char* what;
    TinyParquet spec;
    Status::Kind kind;
    std::string message;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, auto change, Status::Kind kind, std::string message) {
    TinyParquet spec;
    change(spec);
    cases.push_back({what, spec, kind, message});
  };
  const std::string at = ": row group 0, column \"text\": ";
  add(
      "wrong crc", [](TinyParquet& s) { s.crc = s.wrong_crc = true; }, Status::Kind::kCorruption,
      at + "page at byte 4: CRC mismatch");
  add(
      "lzo", [](TinyParquet& s) { s.codec = 3; }, Status::Kind::kInvalidArgument,
      at + "compressed with LZO, which preflight does not read");
  add(
      "codec 9", [](TinyParquet& s) { s.codec = 9; }, Status::Kind::kInvalidArgument,
      at + "compressed with codec 9");
  add(
      "encrypted footer", [](TinyParquet& s) { s.encryption_algorithm = true; },
      Status::Kind::kInvalidArgument, ": its columns are encrypted");
  add(
      "external chunk", [](TinyParquet& s) { s.file_path = "other.parquet"; },
      Status::Kind::kInvalidArgument, at + "its data is in another file (other.parquet)");
  for (const Case& c : cases) {
    const std::string path = Scratch("refused.parquet");
    testing::WriteText(path, BuildTinyParquet(c.spec));
    const Status st = ReadAll(path);
    ASSERT_FALSE(st.ok()) << c.what;
    EXPECT_EQ(st.kind(), c.kind) << c.what << ": " << st.message();
    EXPECT_EQ(st.message().rfind(path + c.message, 0), 0u) << c.what << ": " << st.message();
  }
}

TEST(ParquetCorrupt, MagicFooterAndPageLimitsAreChecked) {
  const std::string good = BuildTinyParquet({});
  const std::string path = Scratch("magic.parquet");
  auto refusal = [&](const std::string& bytes, ReadRequest request = {}) {
    testing::WriteText(path, bytes);
    const Status st = ReadAll(path, request);
    EXPECT_FALSE(st.ok());
    return st.message().substr(std::min(st.message().size(), path.size()));
  };
  std::string encrypted = good;
  encrypted.replace(encrypted.size() - 4, 4, "PARE");
  EXPECT_EQ(refusal(encrypted).rfind(": an encrypted Parquet file (magic \"PARE\")", 0), 0u);
  EXPECT_EQ(refusal("{\"text\":\"not parquet\"}\n"),
            ": not a Parquet file (it does not start with \"PAR1\")");
  std::string long_footer = good;
  long_footer[long_footer.size() - 8] = '\x7f';
  long_footer[long_footer.size() - 5] = '\x7f';
  EXPECT_EQ(refusal(long_footer).rfind(": the footer's length (", 0), 0u);
  {  // A 300 MiB file (sparse) whose footer would be 257 MiB: refused before it is read.
    const std::string big = Scratch("big.parquet");
    testing::WriteText(big, "PAR1");
    std::filesystem::resize_file(big, 300u << 20);
    std::FILE* f = std::fopen(big.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    const uint32_t footer_len = 257u << 20;
    std::fseek(f, -8, SEEK_END);
    std::fwrite(&footer_len, 4, 1, f);
    std::fwrite("PAR1", 1, 4, f);
    std::fclose(f);
    const Status st = ReadAll(big);
    EXPECT_EQ(st.message(),
              big + ": a footer of 269484032 bytes (over 256 MiB): the file is damaged");
    std::filesystem::remove(big);
  }
  std::string garbage_footer = good;
  garbage_footer[garbage_footer.size() - 9] = '\x0c';  // the footer's final stop: a struct
  EXPECT_EQ(refusal(garbage_footer).rfind(": corrupt footer (", 0), 0u);
  ReadRequest small;
  small.max_page_bytes = 8;
  EXPECT_NE(refusal(good, small).find("is over the limit of 8"), std::string::npos);
  uint64_t rows = 0;
  testing::WriteText(path, good);
  EXPECT_TRUE(ReadAll(path, {}, &rows).ok());
  EXPECT_EQ(rows, 3u);
  ReadRequest no_crc;
  no_crc.verify_crc = false;
  TinyParquet wrong;
  wrong.crc = wrong.wrong_crc = true;
  testing::WriteText(path, BuildTinyParquet(wrong));
  EXPECT_TRUE(ReadAll(path, no_crc).ok());
  EXPECT_EQ(ReadAll(Scratch("missing.parquet")).kind(), Status::Kind::kNotFound);
}

}  // namespace
}  // namespace preflight::parquet
