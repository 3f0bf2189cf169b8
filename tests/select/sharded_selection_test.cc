// A pool in shards selects what the same documents in one file select, on any thread count, and
// a folder output holds the same kept lines, one file per pool file.

#include <gtest/gtest.h>

#include <sstream>

#include "base/sha256.h"
#include "corpus/scanner.h"
#include "select/batch.h"
#include "select/selector.h"
#include "testing/compress.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::select {
namespace {

using preflight::testing::GzipOf;
using preflight::testing::ReadText;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;
using preflight::testing::ZstdOf;

// The pool's lines cut into five shards of three formats, in name order.
void WriteShards(const std::string& dir) {
  std::istringstream in(ReadText(dir + "/pool.jsonl"));
  std::vector<std::string> parts(5);
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) parts[i * 5 / 1200] += line + "\n";
  std::system(("mkdir -p '" + dir + "/shards'").c_str());
  WriteText(dir + "/shards/part-0.jsonl", parts[0]);
  WriteText(dir + "/shards/part-1.jsonl.zst", ZstdOf(parts[1]));
  WriteText(dir + "/shards/part-2.jsonl.gz", GzipOf(parts[2]));
  WriteText(dir + "/shards/part-3.jsonl", parts[3]);
  WriteText(dir + "/shards/part-4.jsonl.zst", ZstdOf(parts[4]));
}

// The decompressed content of a kept file.
std::string Content(const std::string& path) {
  std::string out;
  EXPECT_TRUE(corpus::ScanLines({path}, corpus::ReadOptions{}, [&](const corpus::Record& r) {
                out.append(r.line);
                out.push_back('\n');
                return Status::Ok();
              }).ok());
  return out;
}

class ShardedPool : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(ScratchDir("sharded_pool"));
    preflight::testing::WritePlantedPool(*dir_, 1200, 0.30, 40, 5);
    WriteShards(*dir_);
  }
  // Selects from `pool` into `out` (relative to the test folder).
  static Result<SelectionResult> Select(const std::string& pool, const std::string& selector,
                                        int threads, const std::string& out,
                                        uint64_t split = 64 << 10) {
    SelectOptions o;
    o.selector = selector;
    o.seed = 7;
    o.threads = threads;
    o.split_bytes = split;
    o.out_path = *dir_ + "/" + out;
    return RunSelection({*dir_ + "/" + pool}, {*dir_ + "/target.jsonl"}, o);
  }
  static std::string* dir_;
};
std::string* ShardedPool::dir_ = nullptr;

// What a manifest says that does not depend on where the pool lay or how it was read.
nlohmann::json Essentials(const nlohmann::json& m) {
  nlohmann::json e = m;
  for (const char* key : {"cost", "inputs", "output"}) e.erase(key);
  return e;
}

TEST_F(ShardedPool, ShardsOnAnyThreadCountKeepWhatTheOneFileKeeps) {
  for (const std::string sel : {"first", "random", "dsir", "classifier"}) {
    auto whole = Select("pool.jsonl", sel, 1, sel + ".whole.jsonl", 64ull << 20);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    const std::string expected = ReadText(*dir_ + "/" + sel + ".whole.jsonl");
    ASSERT_FALSE(expected.empty());
    std::string first_zst;
    // fastText's training dominates the classifier's time: one thread count against the file.
    const std::vector<int> thread_counts =
        sel == "classifier" ? std::vector<int>{2} : std::vector<int>{1, 2, 3};
    for (int threads : thread_counts) {
      const std::string name = sel + ".t" + std::to_string(threads);
      auto sharded = Select("shards", sel, threads, name + ".jsonl");
      ASSERT_TRUE(sharded.ok()) << sharded.status().message();
      EXPECT_EQ(ReadText(*dir_ + "/" + name + ".jsonl"), expected) << name;
      EXPECT_EQ(Essentials(sharded->manifest).dump(), Essentials(whole->manifest).dump()) << name;
      auto zst = Select("shards", sel, threads, name + ".jsonl.zst");
      ASSERT_TRUE(zst.ok());
      const std::string bytes = ReadText(*dir_ + "/" + name + ".jsonl.zst");
      if (first_zst.empty()) first_zst = bytes;
      EXPECT_EQ(bytes, first_zst) << name;  // Bit-identical compressed output too.
      EXPECT_EQ(Content(*dir_ + "/" + name + ".jsonl.zst"), expected) << name;
    }
  }
}

TEST_F(ShardedPool, AFolderOutputHoldsOneKeptFilePerPoolFileNamedAndCompressedAsIt) {
  auto file = Select("shards", "dsir", 2, "dsir.one.jsonl");
  auto folder = Select("shards", "dsir", 2, "kept/");
  ASSERT_TRUE(file.ok() && folder.ok()) << folder.status().message();
  const nlohmann::json& out = folder->manifest["output"];
  ASSERT_EQ(out["files"].size(), 5u);
  std::string joined;
  uint64_t docs = 0;
  for (const auto& f : out["files"]) {
    const std::string path = *dir_ + "/kept/" + f["path"].get<std::string>();
    EXPECT_EQ(preflight::Sha256::Hex(ReadText(path)), f["sha256"]) << path;
    EXPECT_EQ(f["from"], *dir_ + "/shards/" + f["path"].get<std::string>());
    joined += Content(path);
    docs += f["docs"].get<uint64_t>();
  }
  EXPECT_EQ(out["files"][1]["compression"], "zstd");
  EXPECT_EQ(out["files"][2]["compression"], "gzip");
  EXPECT_EQ(joined, ReadText(*dir_ + "/dsir.one.jsonl"));
  EXPECT_EQ(docs, folder->kept_docs);
  // The folder reads back as a pool input with the hash the manifest gives it.
  EXPECT_EQ(corpus::HashInput(*dir_ + "/kept")->sha256, out["sha256"]);
  EXPECT_FALSE(preflight::testing::Exists(*dir_ + "/kept.partial"));
  // A second run replaces the former output.
  auto again = Select("shards", "random", 1, "kept/");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_NE(again->manifest["output"]["sha256"], out["sha256"]);
}

// Two dsir selections toward different targets, a random one and a first one, as one batch: each
// writes what it writes alone, and the pool is read three times (first pass, scores, writing)
// where alone they read it 3 + 3 + 2 + 2 times.
TEST_F(ShardedPool, ABatchWritesWhatEachSelectionWritesAloneInThreeReads) {
  // A second target: the planted pool's background documents.
  std::istringstream in(ReadText(*dir_ + "/pool.jsonl"));
  std::string line, other;
  for (int i = 0; std::getline(in, line) && i < 200; ++i) {
    if (line.find("\"planted\":false") != std::string::npos) other += line + "\n";
  }
  WriteText(*dir_ + "/other.jsonl", other);
  std::vector<SelectionRequest> requests;
  const std::vector<std::pair<std::string, std::string>> asked = {
      {"dsir", "target.jsonl"}, {"dsir", "other.jsonl"}, {"random", ""}, {"first", ""}};
  for (size_t i = 0; i < asked.size(); ++i) {
    SelectOptions o;
    o.selector = asked[i].first;
    o.seed = 7;
    o.threads = 2;
    o.split_bytes = 64 << 10;
    o.out_path = *dir_ + "/batch-" + std::to_string(i) + ".jsonl.zst";
    requests.push_back({asked[i].second.empty() ? std::vector<std::string>{}
                                                : std::vector<std::string>{*dir_ + "/" + asked[i].second},
                        o});
  }
  auto batch = RunSelections({*dir_ + "/shards"}, requests);
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  for (size_t i = 0; i < requests.size(); ++i) {
    SelectOptions o = requests[i].options;
    o.out_path = *dir_ + "/alone-" + std::to_string(i) + ".jsonl.zst";
    auto alone = RunSelection({*dir_ + "/shards"}, requests[i].target, o);
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    EXPECT_EQ(ReadText(o.out_path), ReadText(requests[i].options.out_path)) << i;
    EXPECT_EQ(Essentials(alone->manifest).dump(), Essentials((*batch)[i].manifest).dump()) << i;
    EXPECT_EQ(alone->manifest["cost"]["passes"][0]["passes"].get<double>(),
              asked[i].first == "dsir" ? 3 : 2);
    EXPECT_EQ((*batch)[i].manifest["cost"]["passes"][0]["passes"].get<double>(), 3) << i;
  }
}

}  // namespace
}  // namespace preflight::select
