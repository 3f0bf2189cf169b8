// Parquet files and folders of them read wherever JSONL is (doc/corpus-format.md, "Parquet"): the
// same documents, records and line numbers as each fixture's JSONL twin (written by the same
// script from the same values, tests/parquet/fixtures/make.mjs), in one read or in shards of row
// groups on several threads; bad rows named by row group and row; refusals before any document.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "base/sha256.h"
#include "corpus/input_format.h"
#include "corpus/scanner.h"
#include "corpus/shard_scan.h"
#include "corpus/sharding.h"
#include "testing/compress.h"
#include "testing/parquet_files.h"
#include "testing/testing.h"

namespace preflight::corpus {
namespace {

using preflight::testing::ParquetFixtureDir;
using preflight::testing::ReadText;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

// A document as ScanDocuments visits it.
struct Doc {
  std::string text, file;
  int64_t line_no = 0;
  bool operator==(const Doc&) const = default;
};

Result<ScanSummary> Documents(const std::vector<std::string>& paths, const ReadOptions& options,
                              std::map<uint64_t, Doc>* docs) {
  std::mutex mu;
  return ScanDocuments(paths, options, [&](int, const Record& r, std::string_view text) {
    std::lock_guard<std::mutex> lock(mu);
    (*docs)[r.index] = {std::string(text), std::string(r.file), r.line_no};
  });
}

std::vector<std::string> Lines(const std::vector<std::string>& paths, const ReadOptions& options) {
  std::vector<std::string> lines;
  Status st = ScanLines(paths, options, [&](const Record& r) {
    lines.emplace_back(r.line);
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return lines;
}

std::string Fixture(const std::string& name) { return ParquetFixtureDir() + name; }

void Copy(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(std::filesystem::path(to).parent_path());
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

TEST(ParquetInput, IsReadByContentAndByName) {
  EXPECT_EQ(*DetectFormat("x.jsonl", std::string("PAR1\x15\x04", 6)), Format::kParquet);
  EXPECT_EQ(*DetectFormat("000_00000.parquet", std::string("PAR1\x15\x04", 6)), Format::kParquet);
  // Named Parquet without the magic: the reader names the damage.
  EXPECT_EQ(*DetectFormat("x.parquet", std::string(16, '\0')), Format::kParquet);
  auto encrypted = DetectFormat("x.parquet", std::string("PARE\x15\x04", 6));
  ASSERT_FALSE(encrypted.ok());
  EXPECT_EQ(encrypted.status().kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(encrypted.status().message().find("x.parquet: an encrypted Parquet file"),
            std::string::npos)
      << encrypted.status().message();
  auto zeros = ScanDocuments({[] {
                               const std::string dir = ScratchDir("parquet_zeros");
                               WriteText(dir + "/x.parquet", std::string(64, '\0'));
                               return dir + "/x.parquet";
                             }()},
                             ReadOptions{}, [](int, const Record&, std::string_view) {});
  ASSERT_FALSE(zeros.ok());
  EXPECT_NE(zeros.status().message().find("x.parquet"), std::string::npos);
  EXPECT_EQ(zeros.status().ExitCode(), 2) << zeros.status().message();
}

// Every fixture: the documents, lines, counts and hash of a read of its JSONL twin.
TEST(ParquetInput, EveryFixtureReadsLikeItsJsonlTwin) {
  const auto fixtures = testing::LoadParquetFixtures();
  ASSERT_GE(fixtures.size(), 80u);
  for (const testing::ParquetFixture& f : fixtures) {
    SCOPED_TRACE(f.parquet);
    ReadOptions options;
    options.text_field = f.text;
    options.skip_bad = true;
    options.threads = 2;
    std::map<uint64_t, Doc> from_parquet, from_jsonl;
    auto pq = Documents({Fixture(f.parquet)}, options, &from_parquet);
    auto js = Documents({Fixture(f.jsonl)}, options, &from_jsonl);
    ASSERT_TRUE(pq.ok()) << pq.status().message();
    ASSERT_TRUE(js.ok()) << js.status().message();
    EXPECT_EQ(pq->records, js->records);
    EXPECT_EQ(pq->bad, js->bad);
    EXPECT_EQ(pq->docs, js->docs);
    const std::string bytes = ReadText(Fixture(f.parquet));
    EXPECT_EQ(pq->inputs[0].sha256, Sha256::Hex(bytes));
    EXPECT_EQ(pq->inputs[0].file_bytes, bytes.size());
    // The twin of invalid UTF-8 holds U+FFFD where the file holds the bad bytes: a document
    // there, a bad row here; every other text is the same, on the same line.
    if (f.jsonl != "invalid-utf8.jsonl") {
      EXPECT_EQ(pq->text_bytes, js->text_bytes);
      ASSERT_EQ(from_parquet.size(), from_jsonl.size());
      for (auto& [i, doc] : from_jsonl) {
        doc.file = Fixture(f.parquet);
        EXPECT_EQ(from_parquet[i], doc) << i;
      }
    }
    // Every row as a line, bad ones too, as AppendJson writes it: the twin's values.
    const std::vector<std::string> lines = Lines({Fixture(f.parquet)}, options);
    const std::vector<std::string> twin = testing::ReadJsonLines(Fixture(f.jsonl));
    ASSERT_EQ(lines.size(), twin.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      const auto got = nlohmann::json::parse(lines[i]);
      const auto want = nlohmann::json::parse(twin[i]);
      if (!f.id.empty())
        EXPECT_EQ(got.value(f.id, nlohmann::json()), want.value(f.id, nlohmann::json()));
      if (!want.contains("__bad")) EXPECT_EQ(got[f.text], want[f.text]) << i;
    }
  }
}

// docs-*: 32 rows in row groups of 12 (arrow-rs), nulls at rows 3, 16 and 29.
TEST(ParquetInput, BadRowsAreNamedByRowGroupAndRowAndCountLikeBadLines) {
  const std::string path = Fixture("docs-zstd-dict-v2.parquet");
  std::map<uint64_t, Doc> docs;
  auto strict = Documents({path}, ReadOptions{}, &docs);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().kind(), Status::Kind::kInvalidArgument);
  EXPECT_EQ(strict.status().message(), path + ": row group 0, row 3: null text");
  ReadOptions skip;
  skip.skip_bad = true;
  docs.clear();
  auto s = Documents({path}, skip, &docs);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->bad_lines.size(), 3u);
  EXPECT_EQ(s->bad_lines[1].Message(), path + ": row group 1, row 4: null text");
  EXPECT_EQ(s->bad_lines[1].line_no, 17);  // Rows count as lines: row 16 of the file.
  EXPECT_EQ(s->bad_lines[1].index, 16u);
  EXPECT_EQ(s->bad_lines[2].Message(), path + ": row group 2, row 5: null text");
  EXPECT_EQ(s->records, 32u);
  EXPECT_EQ(s->docs, 29u);
  EXPECT_EQ(docs.count(16), 0u);
  EXPECT_EQ(docs.at(17).line_no, 18);
  EXPECT_EQ(DefaultId("x.parquet", 18, 1, 5), "x.parquet:rg1:5");
  EXPECT_EQ(DefaultId("x.jsonl", 18, -1, 0), "x.jsonl:18");
  // A document over the size limit is bad too, as a long JSONL line is.
  skip.max_document_bytes = 100;
  auto small = Documents({path}, skip, &docs);
  ASSERT_TRUE(small.ok());
  EXPECT_GT(small->bad, 3u);
  EXPECT_NE(small->bad_examples.back().find("bytes is over the limit of 100 bytes"),
            std::string::npos);
}

// A file cut into shards of row groups, read on several threads, in documents and lines modes:
// what the whole read gives, bad rows named the same, the file hashed by its first shard.
TEST(ParquetInput, RowGroupShardsReadWhatOneReaderReads) {
  const std::string dir = ScratchDir("parquet_shards");
  Copy(Fixture("docs-snappy-plain-v1.parquet"), dir + "/pool/a.parquet");
  Copy(Fixture("fineweb-zstd-v2.parquet"), dir + "/pool/b.parquet");
  const std::vector<std::string> paths = {dir + "/pool"};
  ReadOptions skip;
  skip.skip_bad = true;
  std::map<uint64_t, Doc> expected;
  auto whole = Documents(paths, skip, &expected);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const std::vector<std::string> lines = Lines(paths, skip);
  auto sharding = ShardInputs(paths, 1);  // Every row group its own shard.
  ASSERT_TRUE(sharding.ok()) << sharding.status().message();
  ASSERT_EQ(sharding->files.size(), 2u);
  EXPECT_EQ(sharding->files[0].shards, 3u);
  EXPECT_EQ(sharding->files[1].shards, 3u);
  EXPECT_EQ(sharding->shards[0].begin, 0u);
  EXPECT_EQ(sharding->shards[2].end, sharding->files[0].size);  // Row groups tile the file.
  EXPECT_EQ(sharding->shards[1].begin, sharding->shards[0].end);
  auto one = ShardInputs(paths);  // Small files: one shard each.
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->shards.size(), 2u);
  for (int threads : {1, 3}) {
    for (bool want_lines : {false, true}) {
      struct Sink : ShardSink {
        Status OnChunk(ChunkWork& work) override {
          std::lock_guard<std::mutex> lock(mu);
          for (size_t i = 0; i < work.chunk().records.size(); ++i) {
            const ChunkRecord& r = work.chunk().records[i];
            const uint64_t k = work.chunk().first_record + i;
            if (!r.line.empty()) line[{work.chunk().shard, k}] = std::string(r.line);
            std::string_view text;
            if (work.Text(i, &text))
              docs[{work.chunk().shard, k}] = {std::string(text), "", r.line_no};
          }
          return Status::Ok();
        }
        Status OnShardDone(const ShardRead& read) override {
          std::lock_guard<std::mutex> lock(mu);
          reads[read.shard] = read;
          return Status::Ok();
        }
        std::mutex mu;
        std::map<std::pair<uint32_t, uint64_t>, Doc> docs;
        std::map<std::pair<uint32_t, uint64_t>, std::string> line;
        std::map<uint32_t, ShardRead> reads;
      } sink;
      ScanRequest req;
      req.sharding = &*sharding;
      for (uint32_t s = 0; s < sharding->shards.size(); ++s) req.shards.push_back(s);
      req.read = &skip;
      req.threads = threads;
      req.lines = want_lines;
      ASSERT_FALSE(ScanShards(req, sink).has_value());
      // Shard-local line numbers plus the rows of the file's shards before: the whole read's.
      std::vector<int64_t> before(sharding->shards.size(), 0);
      std::vector<std::string> got_lines;
      uint64_t index = 0;
      std::vector<BadLine> bad;
      for (uint32_t s = 0; s < sharding->shards.size(); ++s) {
        if (s > sharding->FileOf(s).first_shard)
          before[s] = before[s - 1] + sink.reads[s - 1].lines;
        for (uint64_t k = 0; k < sink.reads[s].records; ++k, ++index) {
          if (want_lines) got_lines.push_back(sink.line[{s, k}]);
          auto it = sink.docs.find({s, k});
          if (it == sink.docs.end()) continue;
          Doc d = it->second;
          d.line_no += before[s];
          d.file = sharding->FileOf(s).path;
          EXPECT_EQ(d, expected.at(index)) << index;
        }
        for (const BadRecord& b : sink.reads[s].bad)
          bad.push_back(ToBadLine(b, *sharding, before[s], 0));
      }
      EXPECT_EQ(index, whole->records);
      EXPECT_EQ(sink.docs.size(), expected.size());
      if (want_lines) {
        EXPECT_EQ(got_lines, lines);
      }
      ASSERT_EQ(bad.size(), whole->bad_lines.size());
      for (size_t i = 0; i < bad.size(); ++i)
        EXPECT_EQ(bad[i].Message(), whole->bad_lines[i].Message());
      EXPECT_EQ(sink.reads[0].file_sha256, Sha256::Hex(ReadText(dir + "/pool/a.parquet")));
      EXPECT_EQ(sink.reads[0].file_bytes, sharding->files[0].size);
      EXPECT_TRUE(sink.reads[1].file_sha256.empty());
    }
  }
}

// Reading lines, a row's line is built only where the sink wants it (the write pass: kept rows).
TEST(ParquetInput, LinesAreBuiltOnlyWhereWanted) {
  const std::string path = Fixture("fineweb-snappy-v1.parquet");
  const std::vector<std::string> twin = testing::ReadJsonLines(Fixture("fineweb.jsonl"));
  auto sharding = ShardInputs({path}, 1);
  ASSERT_TRUE(sharding.ok());
  ASSERT_EQ(sharding->shards.size(), 3u);
  struct Sink : ShardSink {
    Status OnChunk(ChunkWork& work) override {
      std::lock_guard<std::mutex> lock(mu);
      for (size_t i = 0; i < work.chunk().records.size(); ++i) {
        lines[{work.chunk().shard, work.chunk().first_record + i}] =
            std::string(work.chunk().records[i].line);
      }
      return Status::Ok();
    }
    std::mutex mu;
    std::map<std::pair<uint32_t, uint64_t>, std::string> lines;
  } sink;
  ReadOptions read;
  ScanRequest req;
  req.sharding = &*sharding;
  req.shards = {0, 1, 2};
  req.read = &read;
  req.threads = 2;
  req.lines = true;
  req.wants_line = [](uint32_t shard, uint64_t record) { return (shard + record) % 2 == 0; };
  ASSERT_FALSE(ScanShards(req, sink).has_value());
  ASSERT_EQ(sink.lines.size(), twin.size());
  size_t row = 0, built = 0;
  for (const auto& [key, line] : sink.lines) {
    if ((key.first + key.second) % 2 == 0) {
      EXPECT_EQ(nlohmann::json::parse(line), nlohmann::json::parse(twin[row])) << row;
      ++built;
    } else {
      EXPECT_EQ(line, "") << row;
    }
    ++row;
  }
  EXPECT_GT(built, 10u);
}

// A FineWeb-shaped folder: data/<dump>/000_00000.parquet; one kind of file per folder.
TEST(ParquetInput, FoldersOfParquetFilesAreReadInNameOrderAndHoldOneKindOfFile) {
  const std::string dir = ScratchDir("parquet_folder");
  Copy(Fixture("fineweb-snappy-v1.parquet"), dir + "/fw/data/CC-MAIN-2024-10/000_00000.parquet");
  Copy(Fixture("docs-gzip-dict-v1.parquet"), dir + "/fw/data/CC-MAIN-2024-10/000_00001.parquet");
  Copy(Fixture("long-zstd-v1.parquet"), dir + "/fw/data/CC-MAIN-2024-18/000_00000.parquet");
  auto files = ListInputFiles(dir + "/fw");
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[1].rel, "data/CC-MAIN-2024-10/000_00001.parquet");
  EXPECT_EQ((*files)[1].format, Format::kParquet);
  EXPECT_EQ((*files)[0].row_groups.size(), 3u);
  ReadOptions skip;
  skip.skip_bad = true;
  std::map<uint64_t, Doc> docs;
  auto s = Documents({dir + "/fw"}, skip, &docs);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->records, 45u + 32u + 6u);
  EXPECT_EQ(docs.at(45).file, dir + "/fw/data/CC-MAIN-2024-10/000_00001.parquet");
  EXPECT_EQ(docs.at(45).line_no, 1);
  EXPECT_EQ(s->inputs[0].files, 3u);
  EXPECT_EQ(s->inputs[0].sha256, HashInput(dir + "/fw")->sha256);

  WriteText(dir + "/fw/README.md", "# FineWeb\n");
  auto card = ListInputFiles(dir + "/fw");
  ASSERT_FALSE(card.ok());
  EXPECT_NE(card.status().message().find("holds both Parquet (data/CC-MAIN-2024-10/000_00000."
                                         "parquet) and plain-text files (README.md)"),
            std::string::npos)
      << card.status().message();
  std::filesystem::remove(dir + "/fw/README.md");
  WriteText(dir + "/fw/data/extra.jsonl", "{\"text\":\"x\"}\n");
  auto mixed = ListInputFiles(dir + "/fw");
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("holds both JSONL (data/extra.jsonl) and Parquet"),
            std::string::npos)
      << mixed.status().message();
}

// Refused files fail before any document is read; a missing text column names the file and
// lists its columns; a compressed Parquet file is refused.
TEST(ParquetInput, RefusalsNameTheFileAndComeFirst) {
  const std::string dir = ScratchDir("parquet_refused");
  WriteText(dir + "/pool/a.jsonl", "{\"text\":\"first\"}\n");
  Copy(Fixture("docs-snappy-dict-v1.parquet"), dir + "/pool/b.parquet");
  const std::string whole = ReadText(dir + "/pool/b.parquet");
  std::filesystem::create_directories(dir + "/cut");
  WriteText(dir + "/cut/a.parquet", whole);
  WriteText(dir + "/cut/b.parquet", whole.substr(0, whole.size() - 10));  // Footer cut off.
  std::map<uint64_t, Doc> docs;
  auto cut = Documents({dir + "/cut"}, ReadOptions{}, &docs);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().ExitCode(), 2);
  EXPECT_NE(cut.status().message().find(dir + "/cut/b.parquet"), std::string::npos)
      << cut.status().message();
  EXPECT_TRUE(docs.empty());  // Not one row of a.parquet first.
  EXPECT_FALSE(ShardInputs({dir + "/cut"}).ok());

  ReadOptions other;
  other.text_field = "content";
  auto missing = Documents({dir + "/pool/b.parquet"}, other, &docs);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), Status::Kind::kInvalidArgument);
  EXPECT_EQ(missing.status().message(),
            dir +
                "/pool/b.parquet: no column \"content\" for the text; the file's columns are: "
                "id, text, url, score, count, flag, ratio");
  other.text_field = "score";
  auto not_text = Documents({dir + "/pool/b.parquet"}, other, &docs);
  ASSERT_FALSE(not_text.ok());
  EXPECT_NE(not_text.status().message().find("the text column \"score\" is DOUBLE"),
            std::string::npos)
      << not_text.status().message();

  WriteText(dir + "/b.parquet.zst", preflight::testing::ZstdOf(whole));
  auto zst = Documents({dir + "/b.parquet.zst"}, ReadOptions{}, &docs);
  ASSERT_FALSE(zst.ok());
  EXPECT_NE(zst.status().message().find("b.parquet.zst (decompressed): a Parquet file, "
                                        "compressed whole"),
            std::string::npos)
      << zst.status().message();
}

}  // namespace
}  // namespace preflight::corpus
