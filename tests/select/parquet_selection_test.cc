// A Parquet pool (and target) selects what the same documents given as JSONL select: the same
// ids kept, in the same order, for every selector, thread count and cut into shards (row groups
// for Parquet). The fixtures' JSONL twins hold the rows the writers were given
// (tests/parquet/fixtures/make.mjs), in a FineWeb-like folder layout.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "corpus/scanner.h"
#include "select/selector.h"
#include "testing/parquet_files.h"
#include "testing/testing.h"

namespace preflight::select {
namespace {

using preflight::testing::ParquetFixtureDir;
using preflight::testing::ReadText;
using preflight::testing::ScratchDir;

// Pool file (relative), its Parquet fixture and the fixture's JSONL twin.
struct PoolFile {
  const char *rel, *parquet, *jsonl;
};
constexpr PoolFile kPool[] = {
    {"data/CC-MAIN-2024-10/000_00000", "fallback-v1.parquet", "fallback.jsonl"},
    {"data/CC-MAIN-2024-10/000_00001", "docs-snappy-dict-v2.parquet", "docs.jsonl"},
    {"data/CC-MAIN-2024-18/000_00000", "fineweb-snappy-v1.parquet", "fineweb.jsonl"},
    {"data/CC-MAIN-2024-18/000_00001", "long-zstd-v1.parquet", "long.jsonl"},
};

void Copy(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(std::filesystem::path(to).parent_path());
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

// The kept documents' ids and texts, in order, from a kept file or folder.
struct KeptRows {
  std::vector<std::string> ids, texts;
};
KeptRows KeptRowsOf(const std::string& path) {
  KeptRows k;
  EXPECT_TRUE(corpus::ScanLines({path}, corpus::ReadOptions{}, [&](const corpus::Record& r) {
                const auto j = nlohmann::json::parse(r.line);
                k.ids.push_back(j.at("id").dump());
                k.texts.push_back(j.at("text").get<std::string>());
                return Status::Ok();
              }).ok());
  return k;
}

class ParquetPool : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(ScratchDir("parquet_pool"));
    for (const PoolFile& f : kPool) {
      Copy(ParquetFixtureDir() + f.parquet, *dir_ + "/pq/" + f.rel + ".parquet");
      Copy(ParquetFixtureDir() + f.jsonl, *dir_ + "/js/" + f.rel + ".jsonl");
    }
    Copy(ParquetFixtureDir() + "fineweb-zstd-v2.parquet", *dir_ + "/target.parquet");
    Copy(ParquetFixtureDir() + "fineweb.jsonl", *dir_ + "/target.jsonl");
  }
  static SelectOptions Options(const std::string& selector, int threads, uint64_t split,
                               const std::string& out) {
    SelectOptions o;
    o.selector = selector;
    o.seed = 11;
    o.keep = 0.3;
    o.threads = threads;
    o.split_bytes = split;
    o.read.skip_bad = true;  // docs and long hold null texts
    o.out_path = *dir_ + "/" + out;
    return o;
  }
  // Selects from the Parquet pool (format "pq", Parquet target) or its JSONL twin ("js").
  static Result<SelectionResult> Select(const std::string& format, const SelectOptions& o) {
    const std::string target = *dir_ + (format == "pq" ? "/target.parquet" : "/target.jsonl");
    return RunSelection({*dir_ + "/" + format}, {target}, o);
  }
  static std::string* dir_;
};
std::string* ParquetPool::dir_ = nullptr;

// What a manifest says of the choice: equal for the two formats.
nlohmann::json Choice(const nlohmann::json& m) {
  nlohmann::json c;
  for (const char* key : {"pool_docs", "pool_bytes", "budget_bytes", "kept_docs", "kept_bytes",
                          "skipped_bad_lines", "explain"}) {
    if (m.contains(key)) c[key] = m[key];
  }
  return c;
}

TEST_F(ParquetPool, SelectsTheIdsTheJsonlTwinSelects) {
  for (const std::string sel : {"first", "random", "dsir"}) {
    auto jsonl = Select("js", Options(sel, 1, 64ull << 20, sel + ".js.jsonl"));
    ASSERT_TRUE(jsonl.ok()) << jsonl.status().message();
    const KeptRows want = KeptRowsOf(*dir_ + "/" + sel + ".js.jsonl");
    ASSERT_GT(want.ids.size(), 10u);
    ASSERT_LT(want.ids.size(), jsonl->pool_docs);
    // Every row group its own shard (split 1 byte; the JSONL twin in 4 KiB ranges), or whole.
    for (uint64_t split : {uint64_t{1}, uint64_t{64} << 20}) {
      for (int threads : {1, 3}) {
        const std::string name =
            sel + ".pq." + std::to_string(split) + "." + std::to_string(threads) + ".jsonl";
        auto pq = Select("pq", Options(sel, threads, split, name));
        ASSERT_TRUE(pq.ok()) << pq.status().message();
        const KeptRows got = KeptRowsOf(*dir_ + "/" + name);
        EXPECT_EQ(got.ids, want.ids) << name;
        EXPECT_EQ(got.texts, want.texts) << name;
        EXPECT_EQ(Choice(pq->manifest), Choice(jsonl->manifest)) << name;
        EXPECT_EQ(pq->kept, jsonl->kept) << name;
      }
    }
  }
  auto cut = Select("js", Options("dsir", 3, 4096, "dsir.js.cut.jsonl"));
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(KeptRowsOf(*dir_ + "/dsir.js.cut.jsonl").ids, KeptRowsOf(*dir_ + "/dsir.js.jsonl").ids);
}

// --out DIR/: a Parquet file's kept rows as DIR/<same path>.jsonl.zst, JSONL in zstd.
TEST_F(ParquetPool, AFolderOutputNamesEachParquetFilesKeptRowsAsZstdJsonl) {
  auto folder = Select("pq", Options("dsir", 2, 1, "kept/"));
  ASSERT_TRUE(folder.ok()) << folder.status().message();
  const nlohmann::json& files = folder->manifest["output"]["files"];
  ASSERT_EQ(files.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(files[i]["path"], std::string(kPool[i].rel) + ".jsonl.zst");
    EXPECT_EQ(files[i]["compression"], "zstd");
    EXPECT_EQ(files[i]["from"], *dir_ + "/pq/" + kPool[i].rel + ".parquet");
  }
  // Its own twin selection: ctest runs each test in a process of its own, in any order.
  auto twin = Select("js", Options("dsir", 1, uint64_t{64} << 20, "dsir.js.twin.jsonl"));
  ASSERT_TRUE(twin.ok()) << twin.status().message();
  EXPECT_EQ(KeptRowsOf(*dir_ + "/kept").ids, KeptRowsOf(*dir_ + "/dsir.js.twin.jsonl").ids);
}

// Without an id column a row is named by its file, row group and row; a null text stops the
// selection without --skip-bad, naming the row.
TEST_F(ParquetPool, RowsWithoutIdsAreNamedByRowGroupAndRow) {
  SelectOptions o = Options("random", 2, 1, "noid.jsonl");
  o.id_field = "no_such_column";
  o.annotate_path = *dir_ + "/noid.scores.jsonl";
  auto r = Select("pq", o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<std::string> notes = testing::ReadJsonLines(o.annotate_path);
  ASSERT_EQ(notes.size(), r->pool_docs);
  // The first document of the fineweb file: row 0 of row group 0; its last, row group 2.
  const std::string fineweb = *dir_ + "/pq/" + kPool[2].rel + ".parquet";
  const std::string text = ReadText(o.annotate_path);
  EXPECT_NE(text.find("{\"id\":\"" + fineweb + ":rg0:0\""), std::string::npos);
  EXPECT_NE(text.find("{\"id\":\"" + fineweb + ":rg2:"), std::string::npos);

  SelectOptions strict = Options("first", 1, 64ull << 20, "strict.jsonl");
  strict.read.skip_bad = false;
  auto failed = Select("pq", strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().ExitCode(), 2);
  EXPECT_EQ(failed.status().message(),
            *dir_ + "/pq/" + kPool[1].rel + ".parquet: row group 0, row 3: null text");
  EXPECT_FALSE(testing::Exists(*dir_ + "/strict.jsonl"));
}

}  // namespace
}  // namespace preflight::select
