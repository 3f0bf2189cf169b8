// Inputs as people have them: folders of compressed shards, gzip, Arrow files,
// Hugging Face save_to_disk folders, binary junk, byte-order marks (doc/corpus-format.md).

#include "corpus/input_format.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <map>
#include <mutex>

#include "base/sha256.h"
#include "corpus/chunk_reader.h"
#include "corpus/scanner.h"
#include "testing/compress.h"
#include "testing/testing.h"

namespace preflight::corpus {
namespace {

using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

std::string Gzip(const std::string& body) { return preflight::testing::GzipOf(body); }
std::string Zstd(const std::string& body) { return preflight::testing::ZstdOf(body); }

// Every visited record, keyed by index: raw line, text, file and line number.
struct Seen {
  std::string line, text, file;
  int64_t line_no = 0;
  bool operator==(const Seen&) const = default;
};

Result<ScanSummary> ScanAll(const std::vector<std::string>& paths, const ReadOptions& options,
                            std::map<uint64_t, Seen>& seen) {
  std::mutex mu;
  return ScanDocuments(paths, options, [&](int, const Record& r, std::string_view text) {
    std::lock_guard<std::mutex> lock(mu);
    seen[r.index] = {std::string(r.line), std::string(text), std::string(r.file), r.line_no};
  });
}

std::string Lines(int first, int count) {
  std::string body;
  for (int i = first; i < first + count; ++i)
    body += "{\"id\":\"d" + std::to_string(i) + "\",\"text\":\"document " + std::to_string(i) +
            " \\u00e9\"}\n";
  return body;
}

TEST(Format, DetectsByContentBeforeName) {
  EXPECT_EQ(*DetectFormat("a.jsonl", "{\"text\":\"x\"}\n"), Format::kJsonl);
  EXPECT_EQ(*DetectFormat("a.json", "{\"text\":\"x\"}\n"), Format::kJsonl);
  EXPECT_EQ(*DetectFormat("a.jsonl.gz", "\x1f\x8b\x08"), Format::kJsonlGzip);
  EXPECT_EQ(*DetectFormat("a.data", "\x1f\x8b\x08"), Format::kJsonlGzip);  // By magic alone.
  EXPECT_EQ(*DetectFormat("a.jsonl", "\x28\xb5\x2f\xfd"), Format::kJsonlZstd);
  // A compressed name without the magic is read as named: the decoder then names the damage.
  EXPECT_EQ(*DetectFormat("a.jsonl.zst", "this is not zstd"), Format::kJsonlZstd);
  EXPECT_EQ(*DetectFormat("a.jsonl.gz", "{\"text\":\"x\"}"), Format::kJsonlGzip);
  EXPECT_EQ(*DetectFormat("notes.txt", "{ not json, a note }"), Format::kPlainText);
  EXPECT_EQ(*DetectFormat("README", "Hello\n"), Format::kPlainText);
  EXPECT_EQ(*DetectFormat("shard-0001", "  {\"text\":\"x\"}"), Format::kJsonl);
  EXPECT_EQ(*DetectFormat("bom.jsonl", "\xef\xbb\xbf{\"text\":\"x\"}"), Format::kJsonl);
}

TEST(Format, RefusesColumnarAndBinaryFilesWithAWayToConvert) {
  struct Case {
    std::string name, head, says, command;
  } cases[] = {
      {"x.feather", std::string("ARROW1\0\0", 8), "Arrow/Feather", "pd.read_feather("},
      {"data-00000-of-00001.arrow", std::string("\xff\xff\xff\xff\x10\x01\0\0", 8),
       "Arrow IPC stream", "datasets.Dataset.from_file('data-00000-of-00001.arrow')"},
      {"x.jsonl.bz2", "BZh91AY&SY", "bzip2", "bunzip2 -k x.jsonl.bz2"},
      {"x.jsonl.xz",
       "\xfd"
       "7zXZ",
       "xz", "xz -dk x.jsonl.xz"},
      {"x.bin", std::string("abc\0def", 7), "binary file (NUL byte at byte offset 3)",
       "Export it as JSONL (one {\"text\": ...} object per line)"},
      {"x.json", "[{\"text\": \"a\"}]", "JSON array", "jq -c '.[]' x.json > x.jsonl"},
      {"latin1", "caf\xe9 au lait", "not UTF-8 text", "iconv"},
  };
  for (const Case& c : cases) {
    auto got = DetectFormat(c.name, c.head);
    ASSERT_FALSE(got.ok()) << c.name;
    EXPECT_EQ(got.status().kind(), Status::Kind::kInvalidArgument) << c.name;
    const std::string& m = got.status().message();
    EXPECT_EQ(m.rfind(c.name + ": ", 0), 0u) << m;
    EXPECT_NE(m.find(c.says), std::string::npos) << m;
    if (c.command.rfind("Export", 0) != 0) {
      EXPECT_NE(m.find("Convert it with: "), std::string::npos) << m;
    }
    EXPECT_NE(m.find(c.command), std::string::npos) << m;
  }
}

TEST(Format, FolderOfMixedShardsReadsLikeTheConcatenatedFile) {
  std::string dir = ScratchDir("format_shards");
  std::system(("mkdir -p '" + dir + "/pool/sub' '" + dir + "/pool/.cache'").c_str());
  const std::string a = Lines(0, 3), b = Lines(3, 4), c = Lines(7, 2), d = Lines(9, 5);
  WriteText(dir + "/pool/part-0.jsonl", a);
  WriteText(dir + "/pool/part-1.jsonl.gz", Gzip(b));
  WriteText(dir + "/pool/part-2.jsonl.zst", Zstd(c));
  WriteText(dir + "/pool/sub/part-3.json.gz", Gzip(d));
  WriteText(dir + "/pool/.cache/junk.bin", std::string("\0\0\0", 3));  // Hidden: skipped.
  WriteText(dir + "/all.jsonl", a + b + c + d);

  std::map<uint64_t, Seen> from_folder, from_file;
  auto sf = ScanAll({dir + "/pool"}, ReadOptions{}, from_folder);
  ASSERT_TRUE(sf.ok()) << sf.status().message();
  ASSERT_TRUE(ScanAll({dir + "/all.jsonl"}, ReadOptions{}, from_file).ok());
  ASSERT_EQ(from_folder.size(), 14u);
  ASSERT_EQ(from_file.size(), 14u);
  for (uint64_t i = 0; i < 14; ++i) {
    EXPECT_EQ(from_folder[i].line, from_file[i].line) << i;
    EXPECT_EQ(from_folder[i].text, from_file[i].text) << i;
  }
  // Default ids are per file: each record names its shard and its line there.
  EXPECT_EQ(from_folder[0].file, dir + "/pool/part-0.jsonl");
  EXPECT_EQ(from_folder[4].file, dir + "/pool/part-1.jsonl.gz");
  EXPECT_EQ(from_folder[4].line_no, 2);
  EXPECT_EQ(from_folder[13].file, dir + "/pool/sub/part-3.json.gz");
  EXPECT_EQ(from_folder[13].line_no, 5);
  EXPECT_EQ(sf->inputs[0].files, 4u);
  EXPECT_EQ(sf->docs, 14u);

  // The raw lines (what selection copies out) come in the same order, and every reader agrees
  // on the folder's hash.
  std::vector<std::string> raw;
  std::vector<InputSummary> inputs;
  ASSERT_TRUE(ScanLines(
                  {dir + "/pool"}, ReadOptions{},
                  [&](const Record& r) {
                    raw.emplace_back(r.line);
                    return Status::Ok();
                  },
                  &inputs)
                  .ok());
  ASSERT_EQ(raw.size(), 14u);
  EXPECT_EQ(raw[13], from_file[13].line);
  auto hashed = HashInput(dir + "/pool");
  ASSERT_TRUE(hashed.ok());
  EXPECT_EQ(inputs[0].sha256, sf->inputs[0].sha256);
  EXPECT_EQ(hashed->sha256, sf->inputs[0].sha256);
  EXPECT_EQ(hashed->file_bytes, sf->inputs[0].file_bytes);
}

TEST(Format, GzipFileReadsLikePlainAndTruncationIsNamed) {
  std::string dir = ScratchDir("format_gzip");
  const std::string body = Lines(0, 2000);
  const std::string packed = Gzip(body);
  WriteText(dir + "/x.jsonl", body);
  WriteText(dir + "/x.jsonl.gz", packed);
  WriteText(dir + "/two.jsonl.gz", Gzip(Lines(0, 1000)) + Gzip(Lines(1000, 1000)));  // Members.
  std::map<uint64_t, Seen> plain, gz, members;
  ASSERT_TRUE(ScanAll({dir + "/x.jsonl"}, ReadOptions{}, plain).ok());
  auto s = ScanAll({dir + "/x.jsonl.gz"}, ReadOptions{}, gz);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(ScanAll({dir + "/two.jsonl.gz"}, ReadOptions{}, members).ok());
  ASSERT_EQ(gz.size(), 2000u);
  for (uint64_t i = 0; i < 2000; ++i) {
    EXPECT_EQ(gz[i].text, plain[i].text);
    EXPECT_EQ(members[i].text, plain[i].text);
  }
  EXPECT_EQ(s->inputs[0].sha256, Sha256::Hex(packed));  // Of the bytes on disk.

  WriteText(dir + "/cut.jsonl.gz", packed.substr(0, packed.size() / 2));
  std::map<uint64_t, Seen> cut;
  auto sc = ScanAll({dir + "/cut.jsonl.gz"}, ReadOptions{}, cut);
  ASSERT_FALSE(sc.ok());
  EXPECT_EQ(sc.status().kind(), Status::Kind::kCorruption);
  EXPECT_NE(sc.status().message().find("cut.jsonl.gz: truncated gzip stream at byte offset"),
            std::string::npos)
      << sc.status().message();

  std::string flipped = packed;
  flipped[20] = static_cast<char>(flipped[20] ^ 0x55);
  WriteText(dir + "/flipped.jsonl.gz", flipped);
  std::map<uint64_t, Seen> bad;
  auto sb = ScanAll({dir + "/flipped.jsonl.gz"}, ReadOptions{}, bad);
  ASSERT_FALSE(sb.ok());
  EXPECT_EQ(sb.status().kind(), Status::Kind::kCorruption) << sb.status().message();
  EXPECT_EQ(sb.status().message().rfind(dir + "/flipped.jsonl.gz: ", 0), 0u)
      << sb.status().message();
}

TEST(Format, CompressedFileGoesWholeToTheRangeAtByteZero) {
  std::string dir = ScratchDir("format_ranges");
  const std::string packed = Gzip(Lines(0, 500));
  WriteText(dir + "/x.jsonl.gz", packed);
  uint64_t lines = 0;
  for (uint64_t k = 0; k < 3; ++k) {
    uint64_t begin = packed.size() * k / 3, end = packed.size() * (k + 1) / 3;
    auto reader = ChunkReader::Open(dir + "/x.jsonl.gz", 1 << 20, begin, end);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    while (true) {
      auto chunk = (*reader)->Next();
      ASSERT_TRUE(chunk.ok());
      if (chunk->empty()) break;
      for (char c : *chunk) lines += c == '\n';
    }
  }
  EXPECT_EQ(lines, 500u);
}

TEST(Format, RefusedFilesFailBeforeAnyDocumentIsRead) {
  std::string dir = ScratchDir("format_refused");
  std::system(("mkdir -p '" + dir + "/pool'").c_str());
  WriteText(dir + "/pool/a.jsonl", Lines(0, 3));
  WriteText(dir + "/pool/b.feather", std::string("ARROW1\0\0", 8));
  WriteText(dir + "/junk.jsonl", std::string("\x7f"
                                             "ELF\x02\x01\x01\0\0\0",
                                             10));
  for (const std::string& path : {dir + "/pool", dir + "/pool/b.feather", dir + "/junk.jsonl"}) {
    std::map<uint64_t, Seen> seen;
    auto s = ScanAll({path}, ReadOptions{}, seen);
    ASSERT_FALSE(s.ok()) << path;
    EXPECT_EQ(s.status().kind(), Status::Kind::kInvalidArgument) << s.status().message();
    EXPECT_TRUE(seen.empty()) << path;  // Not one document of a.jsonl was visited first.
    ReadOptions skip;
    skip.skip_bad = true;  // A whole file of the wrong kind is not a bad line.
    EXPECT_FALSE(ScanAll({path}, skip, seen).ok()) << path;
  }
  std::map<uint64_t, Seen> seen;
  auto s = ScanAll({dir + "/pool"}, ReadOptions{}, seen);
  EXPECT_NE(s.status().message().find("pool/b.feather: an Arrow/Feather file"), std::string::npos)
      << s.status().message();
  auto j = ScanAll({dir + "/junk.jsonl"}, ReadOptions{}, seen);
  EXPECT_NE(j.status().message().find("junk.jsonl: a binary file (NUL byte at byte offset 7)"),
            std::string::npos)
      << j.status().message();
}

// What is inside a .gz or .zst is checked too: a gzipped tar archive or Parquet file, or a file
// compressed twice, is refused before a line of it is read as text.
TEST(Format, CompressedFilesThatHoldNoTextAreRefused) {
  std::string dir = ScratchDir("format_inside");
  std::string tar(1024, '\0');
  tar.replace(0, 11, "train.jsonl");
  tar.replace(257, 6, std::string("ustar\0", 6));
  WriteText(dir + "/data.tar", tar);
  WriteText(dir + "/data.tar.gz", Gzip(tar));
  WriteText(dir + "/x.parquet.zst", Zstd(std::string("PAR1\x15\x04\x15\0", 8) + "PAR1"));
  WriteText(dir + "/twice.jsonl.gz", Gzip(Gzip(Lines(0, 3))));
  struct Case {
    std::string file, says;
  } cases[] = {
      {"data.tar", "data.tar: a tar archive (\"ustar\" at byte 257)"},
      {"data.tar.gz", "data.tar.gz (decompressed): a tar archive"},
      {"x.parquet.zst", "x.parquet.zst (decompressed): a Parquet file"},
      {"twice.jsonl.gz", "twice.jsonl.gz (decompressed): compressed twice"},
  };
  for (const Case& c : cases) {
    std::map<uint64_t, Seen> seen;
    ReadOptions skip;
    skip.skip_bad = true;
    auto s = ScanAll({dir + "/" + c.file}, skip, seen);
    ASSERT_FALSE(s.ok()) << c.file;
    EXPECT_EQ(s.status().kind(), Status::Kind::kInvalidArgument) << s.status().message();
    EXPECT_NE(s.status().message().find(c.says), std::string::npos) << s.status().message();
    EXPECT_TRUE(seen.empty()) << c.file;
  }
}

TEST(Format, SaveToDiskFolderIsRefusedAsAWhole) {
  std::string dir = ScratchDir("format_save_to_disk");
  std::system(("mkdir -p '" + dir + "/ds'").c_str());
  WriteText(dir + "/ds/data-00000-of-00001.arrow", std::string("\xff\xff\xff\xff\x10\0\0\0", 8));
  WriteText(dir + "/ds/dataset_info.json", "{\"citation\": \"\", \"features\": {}}");
  WriteText(dir + "/ds/state.json", "{\"_data_files\": [{\"filename\": \"data.arrow\"}]}");
  std::map<uint64_t, Seen> seen;
  auto s = ScanAll({dir + "/ds"}, ReadOptions{}, seen);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(seen.empty());
  EXPECT_EQ(s.status().kind(), Status::Kind::kInvalidArgument);
  const std::string& m = s.status().message();
  EXPECT_EQ(m.rfind(dir + "/ds: a Hugging Face datasets save_to_disk folder", 0), 0u) << m;
  EXPECT_NE(m.find("datasets.load_from_disk('" + dir + "/ds').to_json('" + dir + "/ds.jsonl')"),
            std::string::npos)
      << m;
  EXPECT_FALSE(HashInput(dir + "/ds").ok());
}

TEST(Format, FolderMixingJsonlAndTextIsRefused) {
  std::string dir = ScratchDir("format_mixed");
  std::system(("mkdir -p '" + dir + "/hub/data'").c_str());
  WriteText(dir + "/hub/README.md", "# A dataset card\n");
  WriteText(dir + "/hub/data/train.jsonl", Lines(0, 2));
  std::map<uint64_t, Seen> seen;
  auto s = ScanAll({dir + "/hub"}, ReadOptions{}, seen);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(s.status().message().find("holds both JSONL (data/train.jsonl) and plain-text files "
                                      "(README.md)"),
            std::string::npos)
      << s.status().message();
}

TEST(Format, ByteOrderMarkIsSkippedAndSaidSo) {
  std::string dir = ScratchDir("format_bom");
  WriteText(dir + "/bom.jsonl", "\xef\xbb\xbf" + Lines(0, 2));
  std::map<uint64_t, Seen> seen;
  auto s = ScanAll({dir + "/bom.jsonl"}, ReadOptions{}, seen);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->docs, 2u);
  EXPECT_EQ(seen[0].line.rfind("{\"id\":\"d0\"", 0), 0u);  // The copied line has no mark.
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_EQ(s->notes[0], dir +
                             "/bom.jsonl: starts with a UTF-8 byte-order mark (EF BB BF); it "
                             "was skipped");
  EXPECT_EQ(s->inputs[0].sha256, Sha256::Hex("\xef\xbb\xbf" + Lines(0, 2)));

  // A mark inside the file (two files joined with their marks) is a bad line, named as such.
  WriteText(dir + "/joined.jsonl", Lines(0, 1) + "\xef\xbb\xbf" + Lines(1, 1));
  auto j = ScanAll({dir + "/joined.jsonl"}, ReadOptions{}, seen);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message().rfind(dir + "/joined.jsonl:2: starts with a UTF-8 byte-order "
                                             "mark",
                                       0),
            0u)
      << j.status().message();
}

TEST(Format, SkipBadListsEveryBadLineWithFileLineAndReason) {
  std::string dir = ScratchDir("format_skip_bad");
  std::system(("mkdir -p '" + dir + "/pool'").c_str());
  WriteText(dir + "/pool/a.jsonl", Lines(0, 2) + "{\"text\": 7}\n" + Lines(2, 1));
  WriteText(dir + "/pool/b.jsonl.gz", Gzip("{oops\n" + Lines(3, 1) + "{\"id\": 1}\n"));
  ReadOptions skip;
  skip.skip_bad = true;
  skip.threads = 2;
  std::map<uint64_t, Seen> seen;
  auto s = ScanAll({dir + "/pool"}, skip, seen);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->docs, 4u);
  EXPECT_EQ(s->bad, 3u);
  ASSERT_EQ(s->bad_lines.size(), 3u);
  EXPECT_EQ(s->bad_lines[0].Message(), dir + "/pool/a.jsonl:3: field \"text\" is not a string");
  EXPECT_EQ(s->bad_lines[1].file, dir + "/pool/b.jsonl.gz");
  EXPECT_EQ(s->bad_lines[1].line_no, 1);
  EXPECT_EQ(s->bad_lines[1].reason.rfind("malformed JSON", 0), 0u);
  EXPECT_EQ(s->bad_lines[2].Message(), dir + "/pool/b.jsonl.gz:3: no \"text\" field");
  EXPECT_EQ(s->bad_examples.size(), 3u);

  // Without --skip-bad the first bad line stops the read, named the same way.
  auto strict = ScanAll({dir + "/pool"}, ReadOptions{}, seen);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().message(), s->bad_lines[0].Message());
}

TEST(Format, PlainTextFolderKeepsOneDocumentPerFile) {
  std::string dir = ScratchDir("format_text");
  std::system(("mkdir -p '" + dir + "/docs'").c_str());
  WriteText(dir + "/docs/a.txt",
            "\xef\xbb\xbf"
            "first");
  WriteText(dir + "/docs/b.txt", "second \xff");
  ReadOptions skip;
  skip.skip_bad = true;
  std::map<uint64_t, Seen> seen;
  auto s = ScanAll({dir + "/docs"}, skip, seen);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].text, "first");
  EXPECT_EQ(seen[0].line, "{\"id\":\"a.txt\",\"text\":\"first\"}");
  ASSERT_EQ(s->bad_lines.size(), 1u);
  EXPECT_EQ(s->bad_lines[0].Message(), dir + "/docs/b.txt: invalid UTF-8");
  EXPECT_EQ(s->notes.size(), 1u);
}

}  // namespace
}  // namespace preflight::corpus
