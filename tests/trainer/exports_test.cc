// The exports read back in C++: tokens.bin is exactly the engine's tokenisation, llmc.bin its
// header then the same tokens, text.jsonl the documents, the manifest's counts and hashes; an
// export of the same source is reused, a changed source or damaged file is exported again.

#include "trainer/exports.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "testing/testing.h"
#include "engine/data.h"

namespace preflight::trainer {
namespace {

using preflight::testing::ReadText;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

std::vector<uint16_t> U16(const std::string& bytes) {
  std::vector<uint16_t> out(bytes.size() / 2);
  std::memcpy(out.data(), bytes.data(), out.size() * 2);
  return out;
}

TEST(Exports, RoundTripMatchesTheEngine) {
  const std::string dir = ScratchDir("exports_round");
  const std::string source = dir + "/arm.jsonl";
  WriteText(source,
            "{\"id\": 1, \"body\": \"h\\u00e9llo\", \"text\": \"ignored\"}\n\n"
            "{\"body\": \"a \\\"quoted\\\"\\nline\"}\n");
  auto e = ExportArm(source, "body", dir + "/exports/curated");
  ASSERT_TRUE(e.ok()) << e.status().message();
  auto docs = engine::ReadJsonlTexts(source, "body");
  ASSERT_TRUE(docs.ok());
  const std::vector<uint16_t> want = engine::Tokenize(*docs);
  EXPECT_EQ(U16(ReadText(e->tokens_bin)), want);
  EXPECT_EQ(e->documents, 2u);
  EXPECT_EQ(e->bytes, (*docs)[0].size() + (*docs)[1].size());
  EXPECT_EQ(e->tokens, want.size());

  const std::string llmc = ReadText(e->llmc_bin);
  ASSERT_EQ(llmc.size(), 1024 + 2 * want.size());
  int32_t header[256];
  std::memcpy(header, llmc.data(), sizeof(header));
  EXPECT_EQ(header[0], 20240520);
  EXPECT_EQ(header[1], 1);
  EXPECT_EQ(header[2], static_cast<int32_t>(want.size()));
  for (int i = 3; i < 256; ++i) EXPECT_EQ(header[i], 0) << i;
  EXPECT_EQ(U16(llmc.substr(1024)), want);

  const std::string text = ReadText(e->text_jsonl);
  const std::string lines = nlohmann::json{{"text", (*docs)[0]}}.dump() + "\n" +
                            nlohmann::json{{"text", (*docs)[1]}}.dump() + "\n";
  EXPECT_EQ(text, lines);

  auto m = nlohmann::json::parse(ReadText(e->manifest));
  EXPECT_EQ(m["tokenizer"], "bytes");
  EXPECT_EQ(m["vocab"], 257);
  EXPECT_EQ(m["boundary"], 256);
  EXPECT_EQ(m["tokens"], want.size());
  EXPECT_EQ(m["tokens"].get<uint64_t>(),
            m["bytes"].get<uint64_t>() + m["documents"].get<uint64_t>());
  EXPECT_EQ(m["source"]["sha256"], Sha256::Hex(ReadText(source)));
  EXPECT_EQ(m["files"]["llmc.bin"]["sha256"], Sha256::Hex(llmc));
  EXPECT_EQ(m["files"]["tokens.bin"]["bytes"], 2 * want.size());
}

TEST(Exports, ReusedWhenMatchingRedoneWhenNot) {
  const std::string dir = ScratchDir("exports_reuse");
  const std::string source = dir + "/arm.jsonl";
  WriteText(source, "{\"text\": \"one\"}\n{\"text\": \"two\"}\n");
  const std::string out = dir + "/exports/random";
  ASSERT_TRUE(ExportArm(source, "text", out).ok());
  struct stat before {};
  ::stat((out + "/tokens.bin").c_str(), &before);
  // Reused: nothing rewritten (same inode; an atomic rewrite would replace it).
  ASSERT_TRUE(ExportArm(source, "text", out).ok());
  struct stat after {};
  ::stat((out + "/tokens.bin").c_str(), &after);
  EXPECT_EQ(before.st_ino, after.st_ino);
  // A damaged file is noticed and the export made again.
  WriteText(out + "/llmc.bin", "damaged");
  auto read = ReadExport(out);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("llmc.bin: does not match the SHA-256"),
            std::string::npos);
  ASSERT_TRUE(ExportArm(source, "text", out).ok());
  EXPECT_TRUE(ReadExport(out).ok());
  // Another source: exported anew.
  WriteText(source, "{\"text\": \"three\"}\n");
  auto again = ExportArm(source, "text", out);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->documents, 1u);
  EXPECT_EQ(U16(ReadText(out + "/tokens.bin")), engine::Tokenize({"three"}));
}

// The same bytes read with another field are other documents: exported anew, the field recorded.
TEST(Exports, AnotherFieldOfTheSameSourceIsExportedAnew) {
  const std::string dir = ScratchDir("exports_field");
  const std::string source = dir + "/eval.jsonl";
  WriteText(source, "{\"text\": \"short\", \"content\": \"the longer one\"}\n");
  const std::string out = dir + "/exports/eval";
  auto text = ExportArm(source, "text", out);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->source_text_field, "text");
  auto content = ExportArm(source, "content", out);
  ASSERT_TRUE(content.ok()) << content.status().message();
  EXPECT_EQ(content->bytes, 14u);
  EXPECT_EQ(U16(ReadText(out + "/tokens.bin")), engine::Tokenize({"the longer one"}));
  const auto m = nlohmann::json::parse(ReadText(out + "/manifest.json"));
  EXPECT_EQ(m["source"]["text_field"], "content");
  EXPECT_EQ(ReadExport(out)->source_text_field, "content");
}

TEST(Exports, BadSourceIsNamed) {
  const std::string dir = ScratchDir("exports_bad");
  WriteText(dir + "/bad.jsonl", "{\"text\": \"ok\"}\n{\"text\": 3}\n");
  auto e = ExportArm(dir + "/bad.jsonl", "text", dir + "/out");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("bad.jsonl:2"), std::string::npos) << e.status().message();
}

}  // namespace
}  // namespace preflight::trainer
