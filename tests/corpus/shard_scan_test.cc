// Shards read on several threads (corpus/shard_scan.h) give what one reader in order gives: the
// same documents, lines and hashes, and the first failure in reading order.

#include "corpus/shard_scan.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "base/sha256.h"
#include "corpus/scanner.h"
#include "testing/compress.h"
#include "testing/testing.h"

namespace preflight::corpus {
namespace {

using preflight::testing::GzipOf;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;
using preflight::testing::ZstdOf;

std::string DocLines(int first, int count, const std::string& pad = "") {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    out += "{\"text\":\"document " + std::to_string(i) + pad + " \\u00e9\"}\n";
    if (i % 7 == 3) out += "\n";  // a blank line now and then
  }
  return out;
}

// A document as a scan saw it: its text and its line in its file.
struct SeenDoc {
  std::string text, file;
  int64_t line_no = 0;
  bool operator==(const SeenDoc&) const = default;
};

// Collects every document by (shard, record), and every shard's read.
class CollectSink : public ShardSink {
 public:
  explicit CollectSink(const Sharding& sharding) : sharding_(sharding) {}
  Status OnChunk(ChunkWork& work) override {
    for (size_t i = 0; i < work.chunk().records.size(); ++i) {
      std::string_view text;
      if (!work.Text(i, &text)) continue;
      std::lock_guard<std::mutex> lock(mu_);
      docs[{work.chunk().shard, work.chunk().first_record + i}] = {
          std::string(text), sharding_.FileOf(work.chunk().shard).path,
          work.chunk().records[i].line_no};
    }
    return Status::Ok();
  }
  Status OnShardDone(const ShardRead& read) override {
    std::lock_guard<std::mutex> lock(mu_);
    reads[read.shard] = read;
    return Status::Ok();
  }
  std::map<std::pair<uint32_t, uint64_t>, SeenDoc> docs;
  std::map<uint32_t, ShardRead> reads;

 private:
  const Sharding& sharding_;
  std::mutex mu_;
};

// The documents in reading order, numbered as in a whole read (lines within each file).
std::vector<SeenDoc> InOrder(const Sharding& sharding, const CollectSink& sink) {
  std::vector<int64_t> before(sharding.shards.size(), 0);
  for (uint32_t s = 1; s < sharding.shards.size(); ++s) {
    if (s > sharding.FileOf(s).first_shard) {
      before[s] = before[s - 1] + static_cast<int64_t>(sink.reads.at(s - 1).lines);
    }
  }
  std::vector<SeenDoc> out;
  for (const auto& [key, doc] : sink.docs) {
    SeenDoc d = doc;
    if (d.line_no > 0) d.line_no += before[key.first];
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<SeenDoc> ReadInOrder(const std::vector<std::string>& paths) {
  std::map<uint64_t, SeenDoc> seen;
  std::mutex mu;
  auto s = ScanDocuments(paths, ReadOptions{}, [&](int, const Record& r, std::string_view text) {
    std::lock_guard<std::mutex> lock(mu);
    seen[r.index] = {std::string(text), std::string(r.file), r.line_no};
  });
  EXPECT_TRUE(s.ok()) << s.status().message();
  std::vector<SeenDoc> out;
  for (auto& [i, d] : seen) out.push_back(d);
  return out;
}

std::optional<ScanFailure> Scan(const Sharding& sharding, int threads, const ReadOptions& read,
                                CollectSink& sink) {
  ScanRequest req;
  req.sharding = &sharding;
  for (uint32_t s = 0; s < sharding.shards.size(); ++s) req.shards.push_back(s);
  req.read = &read;
  req.threads = threads;
  return ScanShards(req, sink);
}

// A folder of a plain file cut in ranges, a gzip and a zstd shard, and a plain-text file input.
std::vector<std::string> MixedPool(const std::string& dir) {
  std::system(("mkdir -p '" + dir + "/pool'").c_str());
  WriteText(dir + "/pool/a.jsonl", DocLines(0, 400, std::string(40, 'x')));
  WriteText(dir + "/pool/b.jsonl.gz", GzipOf(DocLines(400, 50)));
  WriteText(dir + "/pool/c.jsonl.zst", ZstdOf(DocLines(450, 60)));
  WriteText(dir + "/d.txt", "a plain-text document");
  return {dir + "/pool", dir + "/d.txt"};
}

TEST(ShardScan, ManyThreadsReadWhatOneReaderInOrderReads) {
  const std::vector<std::string> paths = MixedPool(ScratchDir("shard_scan_mixed"));
  const std::vector<SeenDoc> expected = ReadInOrder(paths);
  ASSERT_EQ(expected.size(), 511u);
  for (uint64_t split : {uint64_t{1000}, uint64_t{4096}, kSplitBytes}) {
    auto sharding = ShardInputs(paths, split);
    ASSERT_TRUE(sharding.ok()) << sharding.status().message();
    for (int threads : {1, 2, 3}) {
      CollectSink sink(*sharding);
      ASSERT_FALSE(Scan(*sharding, threads, ReadOptions{}, sink).has_value());
      EXPECT_EQ(InOrder(*sharding, sink), expected) << "split " << split << ", " << threads;
    }
  }
}

TEST(ShardScan, EveryFileIsHashedInTheSameReadAsScanDocumentsHashesIt) {
  const std::vector<std::string> paths = MixedPool(ScratchDir("shard_scan_hash"));
  auto sharding = ShardInputs(paths, 1000);
  ASSERT_TRUE(sharding.ok());
  ASSERT_GT(sharding->files[0].shards, 3u);  // a.jsonl is cut
  CollectSink sink(*sharding);
  ASSERT_FALSE(Scan(*sharding, 2, ReadOptions{}, sink).has_value());
  std::vector<std::string> rels, shas;
  for (uint32_t f = 0; f < 3; ++f) {
    const ShardedFile& file = sharding->files[f];
    const ShardRead& read = sink.reads.at(file.first_shard);
    EXPECT_EQ(read.file_sha256, Sha256::Hex(preflight::testing::ReadText(file.path))) << file.path;
    EXPECT_EQ(read.file_bytes, file.size);
    for (uint32_t s = file.first_shard + 1; s < file.first_shard + file.shards; ++s) {
      EXPECT_EQ(sink.reads.at(s).file_sha256, "");  // Later ranges hash nothing.
    }
    rels.push_back(file.rel);
    shas.push_back(read.file_sha256);
  }
  EXPECT_EQ(FolderSha256(rels, shas), HashInput(paths[0])->sha256);
}

// Found by fuzz_jsonl: a file that is only a byte-order mark, cut at byte 1, gave the first part
// one record (the mark, unrecognised in a 2-byte buffer) and the whole file none.
TEST(ShardScan, RangesOfAFileTileItsRecordsWhereverItIsCut) {
  const std::string dir = ScratchDir("shard_scan_ranges");
  for (const std::string& body : {std::string("\xef\xbb\xbf"), "\xef\xbb\xbf" + DocLines(0, 3),
                                  "\xef\xbb\xbf\n" + DocLines(0, 1), DocLines(0, 5) + "{}"}) {
    WriteText(dir + "/p.jsonl", body);
    ReadOptions skip;
    skip.skip_bad = true;
    uint64_t whole = 0;
    ASSERT_TRUE(ScanDocuments({dir + "/p.jsonl"}, skip, [&](int, const Record&, std::string_view) {
                  ++whole;
                }).ok());
    for (uint64_t split = 1; split <= body.size(); ++split) {
      auto sharding = ShardInputs({dir + "/p.jsonl"}, split);
      ASSERT_TRUE(sharding.ok());
      CollectSink sink(*sharding);
      ASSERT_FALSE(Scan(*sharding, 2, skip, sink).has_value());
      EXPECT_EQ(sink.docs.size(), whole) << "split " << split;
    }
  }
}

TEST(ShardScan, TheFirstBadLineInReadingOrderIsReportedByItsLineInItsFile) {
  const std::string dir = ScratchDir("shard_scan_bad");
  std::string body = DocLines(0, 300);
  body += "{\"text\": 7}\n";  // a bad line deep in the file
  const int64_t bad_line = std::count(body.begin(), body.end(), '\n');
  body += DocLines(300, 300) + "{oops\n";
  WriteText(dir + "/p.jsonl", body);
  const std::string expected =
      dir + "/p.jsonl:" + std::to_string(bad_line) + ": field \"text\" is not a string";
  for (int threads : {1, 2, 4}) {
    auto sharding = ShardInputs({dir + "/p.jsonl"}, 2000);
    ASSERT_TRUE(sharding.ok());
    CollectSink sink(*sharding);
    auto failure = Scan(*sharding, threads, ReadOptions{}, sink);
    ASSERT_TRUE(failure.has_value());
    std::vector<int64_t> before(sharding->shards.size(), 0);
    for (uint32_t s = 1; s <= failure->shard; ++s) {
      before[s] = before[s - 1] + static_cast<int64_t>(sink.reads.at(s - 1).lines);
    }
    EXPECT_EQ(FailureStatus(*failure, *sharding, before).message(), expected) << threads;
  }
}

TEST(ShardScan, SkipBadListsTheBadLinesOfEachShardInOrder) {
  const std::string dir = ScratchDir("shard_scan_skip");
  WriteText(dir + "/p.jsonl.zst",
            ZstdOf(DocLines(0, 2) + "{\"id\": 1}\n" + DocLines(2, 2) + "[1]\n"));
  auto sharding = ShardInputs({dir + "/p.jsonl.zst"});
  ASSERT_TRUE(sharding.ok());
  ReadOptions skip;
  skip.skip_bad = true;
  CollectSink sink(*sharding);
  ASSERT_FALSE(Scan(*sharding, 2, skip, sink).has_value());
  const ShardRead& read = sink.reads.at(0);
  ASSERT_EQ(read.bad.size(), 2u);
  EXPECT_EQ(read.bad[0].line_no, 3);
  EXPECT_EQ(read.bad[0].reason, "no \"text\" field");
  EXPECT_EQ(read.bad[1].line_no, 7);  // after the blank line that follows document 3
  EXPECT_EQ(read.records, 6u);
  EXPECT_EQ(sink.docs.size(), 4u);
}

TEST(ShardScan, AMissingOrDamagedShardFailsWithItsCause) {
  const std::string dir = ScratchDir("shard_scan_damaged");
  std::system(("mkdir -p '" + dir + "/pool'").c_str());
  WriteText(dir + "/pool/a.jsonl", DocLines(0, 20));
  std::string packed = ZstdOf(DocLines(20, 200));
  packed.resize(packed.size() / 2);
  WriteText(dir + "/pool/b.jsonl.zst", packed);
  auto sharding = ShardInputs({dir + "/pool"});
  ASSERT_TRUE(sharding.ok());
  CollectSink sink(*sharding);
  auto failure = Scan(*sharding, 2, ReadOptions{}, sink);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->shard, 1u);
  EXPECT_NE(failure->status.message().find("b.jsonl.zst: truncated zstd stream"), std::string::npos)
      << failure->status.message();
  EXPECT_EQ(sink.reads.count(0), 1u);  // The shard before it was read to its end.
  EXPECT_EQ(ShardInputs({dir + "/nope"}).status().kind(), Status::Kind::kNotFound);
}

}  // namespace
}  // namespace preflight::corpus
