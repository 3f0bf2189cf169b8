#include "corpus/scanner.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/file.h"
#include "base/progress.h"
#include "base/sha256.h"
#include "corpus/chunk_reader.h"
#include "testing/testing.h"

namespace preflight::corpus {
namespace {

using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

struct Collected {
  std::map<uint64_t, std::string> texts;  // record index -> text
  std::map<uint64_t, int64_t> lines;      // record index -> line number
  std::mutex mu;
};

Result<ScanSummary> Collect(const std::vector<std::string>& paths, const ReadOptions& o,
                            Collected& c) {
  return ScanDocuments(paths, o, [&](int, const Record& r, std::string_view text) {
    std::lock_guard<std::mutex> lock(c.mu);
    c.texts[r.index] = std::string(text);
    c.lines[r.index] = r.line_no;
  });
}

TEST(Scanner, ReadsTextFieldsInOrderWithLineNumbers) {
  std::string dir = ScratchDir("scanner_order");
  WriteText(dir + "/a.jsonl",
            "{\"id\":1,\"text\":\"alpha\"}\n\n{\"text\":\"be\\u00e9ta\",\"genre\":\"x\"}\n{"
            "\"text\":\"\"}");
  Collected c;
  auto s = Collect({dir + "/a.jsonl"}, ReadOptions{}, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->docs, 3u);
  EXPECT_EQ(s->inputs[0].blank, 1u);
  EXPECT_EQ(c.texts[0], "alpha");
  EXPECT_EQ(c.texts[1], "be\xc3\xa9ta");  // JSON escapes are decoded.
  EXPECT_EQ(c.lines[1], 3);               // The blank line 2 is counted in line numbers.
  EXPECT_EQ(c.texts[2], "");              // An empty document is a document of 0 bytes.
  EXPECT_EQ(s->text_bytes, 5u + 6u);
}

TEST(Scanner, HashesTheBytesAsRead) {
  std::string dir = ScratchDir("scanner_hash");
  std::string body = "{\"text\":\"x\"}\n{\"text\":\"y\"}\n";
  WriteText(dir + "/a.jsonl", body);
  Collected c;
  auto s = Collect({dir + "/a.jsonl"}, ReadOptions{}, c);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->inputs[0].sha256, Sha256::Hex(body));
}

TEST(Scanner, SameResultOnOneAndTwoThreadsAcrossManyChunks) {
  std::string dir = ScratchDir("scanner_threads");
  std::string body;
  for (int i = 0; i < 40000; ++i)
    body += "{\"text\":\"document number " + std::to_string(i) + " " + std::string(i % 300, 'z') +
            "\"}\n";
  WriteText(dir + "/big.jsonl", body);  // ~6.5 MB: several chunks at the 8 MiB/2 refill mark.
  Collected one, two;
  ReadOptions o1, o2;
  o2.threads = 2;
  ASSERT_TRUE(Collect({dir + "/big.jsonl"}, o1, one).ok());
  ASSERT_TRUE(Collect({dir + "/big.jsonl"}, o2, two).ok());
  EXPECT_EQ(one.texts.size(), 40000u);
  EXPECT_EQ(one.texts, two.texts);
  EXPECT_EQ(one.lines, two.lines);
}

TEST(Scanner, ReadsZstdLikePlain) {
  std::string dir = ScratchDir("scanner_zstd");
  std::string body;
  for (int i = 0; i < 1000; ++i) body += "{\"text\":\"line " + std::to_string(i) + "\"}\n";
  std::string packed(ZSTD_compressBound(body.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), body.data(), body.size(), 3));
  WriteText(dir + "/a.jsonl", body);
  WriteText(dir + "/a.jsonl.zst", packed);
  Collected plain, zst;
  auto sp = Collect({dir + "/a.jsonl"}, ReadOptions{}, plain);
  auto sz = Collect({dir + "/a.jsonl.zst"}, ReadOptions{}, zst);
  ASSERT_TRUE(sz.ok()) << sz.status().message();
  EXPECT_EQ(plain.texts, zst.texts);
  EXPECT_EQ(sz->inputs[0].sha256, Sha256::Hex(packed));  // The hash is of the bytes on disk.

  // A truncated frame is an error naming the file, never a silent short read.
  WriteText(dir + "/cut.jsonl.zst", packed.substr(0, packed.size() / 2));
  Collected cut;
  auto sc = Collect({dir + "/cut.jsonl.zst"}, ReadOptions{}, cut);
  ASSERT_FALSE(sc.ok());
  EXPECT_NE(sc.status().message().find("cut.jsonl.zst: truncated zstd stream"), std::string::npos)
      << sc.status().message();
}

TEST(Scanner, BadLinesNameFileAndLine) {
  std::string dir = ScratchDir("scanner_bad");
  struct Case {
    std::string line, message;
  } cases[] = {
      {"{\"text\": \"ok\"", "malformed JSON"},
      {"{\"id\": 3}", "no \"text\" field"},
      {"{\"text\": 7}", "field \"text\" is not a string"},
      {"{\"text\": \"bad \xff byte\"}", "invalid UTF-8"},
      {"[1, 2]", "not a JSON object"},
  };
  for (const auto& c : cases) {
    WriteText(dir + "/p.jsonl", "{\"text\":\"fine\"}\n{\"text\":\"fine\"}\n" + c.line + "\n");
    Collected got;
    auto s = Collect({dir + "/p.jsonl"}, ReadOptions{}, got);
    ASSERT_FALSE(s.ok()) << c.line;
    EXPECT_EQ(s.status().message().rfind(dir + "/p.jsonl:3: " + c.message, 0), 0u)
        << s.status().message();
    EXPECT_TRUE(s.status().IsBadInput());

    ReadOptions skip;
    skip.skip_bad = true;
    Collected skipped;
    auto k = Collect({dir + "/p.jsonl"}, skip, skipped);
    ASSERT_TRUE(k.ok());
    EXPECT_EQ(k->bad, 1u);
    EXPECT_EQ(k->docs, 2u);
    ASSERT_EQ(k->bad_examples.size(), 1u);
  }
}

TEST(Scanner, OversizedDocumentIsRefused) {
  std::string dir = ScratchDir("scanner_huge");
  WriteText(dir + "/p.jsonl", "{\"text\":\"" + std::string(5000, 'a') + "\"}\n");
  ReadOptions o;
  o.max_document_bytes = 4096;
  Collected got;
  auto s = Collect({dir + "/p.jsonl"}, o, got);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "p.jsonl:1: document of 5000 bytes is over the limit of 4096 bytes"),
            std::string::npos)
      << s.status().message();
}

TEST(Scanner, MissingFileIsNotFound) {
  Collected got;
  auto s = Collect({"/nonexistent/pool.jsonl"}, ReadOptions{}, got);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().kind(), Status::Kind::kNotFound);
  EXPECT_EQ(s.status().message(), "/nonexistent/pool.jsonl: no such file");
}

TEST(Scanner, PlainTextFolderIsOneDocumentPerFile) {
  std::string dir = ScratchDir("scanner_folder");
  std::system(("mkdir -p '" + dir + "/docs/sub'").c_str());
  WriteText(dir + "/docs/b.txt", "second");
  WriteText(dir + "/docs/a.txt", "first");
  WriteText(dir + "/docs/sub/c.txt", "third");
  Collected got;
  auto s = Collect({dir + "/docs"}, ReadOptions{}, got);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(got.texts.size(), 3u);
  EXPECT_EQ(got.texts[0], "first");  // Sorted by relative path.
  EXPECT_EQ(got.texts[1], "second");
  EXPECT_EQ(got.texts[2], "third");
}

// Progress: stage "read" in bytes on disk, never decreasing, ending at every input's bytes (a
// JSONL file and a folder of plain text), each report on the calling thread.
TEST(Scanner, ProgressEndsAtTheInputsBytesOnDisk) {
  std::string dir = ScratchDir("scanner_progress");
  std::system(("mkdir -p '" + dir + "/docs'").c_str());
  WriteText(dir + "/a.jsonl", "{\"text\":\"alpha\"}\n{\"text\":\"beta\"}\n");
  WriteText(dir + "/docs/b.txt", "second");
  std::vector<ProgressReport> reports;
  const std::thread::id caller = std::this_thread::get_id();
  ReadOptions o;
  o.threads = 2;
  auto s = ScanDocuments(
      {dir + "/a.jsonl", dir + "/docs"}, o, [](int, const Record&, std::string_view) {},
      [&](const ProgressReport& p) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        reports.push_back(p);
      });
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_FALSE(reports.empty());
  const uint64_t bytes = *FileSize(dir + "/a.jsonl") + *FileSize(dir + "/docs/b.txt");
  for (size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].stage, "read");
    EXPECT_EQ(reports[i].unit, "B");
    EXPECT_EQ(reports[i].total, bytes);
    if (i > 0) {
      EXPECT_GE(reports[i].done, reports[i - 1].done);
    }
  }
  EXPECT_EQ(reports.back().done, bytes);
}

// Byte ranges that tile a file tile its lines: every line is read by exactly one range,
// wherever the cut points fall (mid-line, on a '\n', at 0 or the end).
TEST(ChunkReader, RangesTileTheLines) {
  std::string dir = ScratchDir("chunk_ranges");
  std::string body;
  for (int i = 0; i < 300; ++i)
    body += "line-" + std::to_string(i) + std::string(i % 7, '.') + "\n";
  body += "last-without-newline";
  WriteText(dir + "/f.txt", body);
  for (uint64_t parts : {1, 2, 3, 7, 64}) {
    std::string joined;
    for (uint64_t k = 0; k < parts; ++k) {
      uint64_t begin = body.size() * k / parts, end = body.size() * (k + 1) / parts;
      auto reader = ChunkReader::Open(dir + "/f.txt", 1 << 20, begin, end);
      ASSERT_TRUE(reader.ok());
      while (true) {
        auto chunk = (*reader)->Next();
        ASSERT_TRUE(chunk.ok());
        if (chunk->empty()) break;
        joined += std::string(*chunk);
      }
    }
    EXPECT_EQ(joined, body) << parts << " parts";
  }
}

TEST(ChunkReader, LineLongerThanTheLimitIsCorruption) {
  std::string dir = ScratchDir("chunk_long");
  // Longer than one 8 MiB chunk, so the buffer must grow, and over the 8.5 MiB limit.
  WriteText(dir + "/f.txt", "short\n" + std::string(9u << 20, 'x') + "\n");
  auto reader = ChunkReader::Open(dir + "/f.txt", 17u << 19);
  ASSERT_TRUE(reader.ok());
  Status st;
  while (true) {
    auto chunk = (*reader)->Next();
    if (!chunk.ok()) {
      st = chunk.status();
      break;
    }
    if (chunk->empty()) break;
  }
  // The first chunk ("short\n") may come first; the long line must then fail.
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("byte offset 6 is longer than 8912896 bytes"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace preflight::corpus
