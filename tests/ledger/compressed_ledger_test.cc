// A ledger read wherever a pool may be (.gz, .zst), never appended to compressed; receipts found
// by hash and kind (FindReceipt).

#include <gtest/gtest.h>

#include <string>

#include "ledger/ledger.h"
#include "test_util.h"
#include "testing/compress.h"
#include "testing/testing.h"

namespace preflight::ledger {
namespace {

using nlohmann::json;
using testing::MakeLedger;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WriteFile;

// A plain ledger of 5 receipts and its gzip and zstd copies, in `dir`.
void MakeCompressedCopies(const std::string& dir) {
  MakeLedger(dir + "/l.jsonl", 5);
  const std::string plain = ReadFile(dir + "/l.jsonl");
  WriteFile(dir + "/l.jsonl.gz", preflight::testing::GzipOf(plain));
  WriteFile(dir + "/l.jsonl.zst", preflight::testing::ZstdOf(plain));
}

TEST(CompressedLedger, VerifiesAndReadsAsThePlainOne) {
  const std::string dir = ScratchDir();
  MakeCompressedCopies(dir);
  auto plain = ReadAll(dir + "/l.jsonl");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  for (const char* name : {"/l.jsonl.gz", "/l.jsonl.zst"}) {
    auto report = Verify(dir + name);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_TRUE(report->ok) << name << ": " << report->reason;
    EXPECT_EQ(report->lines, 5) << name;
    auto read = ReadAll(dir + name);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(*read, *plain) << name;
  }
}

TEST(CompressedLedger, DamageInsideTheCompressedTextIsFoundOnItsLine) {
  const std::string dir = ScratchDir();
  MakeLedger(dir + "/l.jsonl", 3);
  std::string text = ReadFile(dir + "/l.jsonl");
  const size_t second = text.find('\n') + 1;
  text.replace(text.find("\"kept_docs\":", second), 15, "\"kept_docs\":999");
  WriteFile(dir + "/l.jsonl.zst", preflight::testing::ZstdOf(text));
  auto report = Verify(dir + "/l.jsonl.zst");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(report->first_bad_line, 2);
}

TEST(CompressedLedger, CutOffStreamIsCorruptionNamingTheFile) {
  const std::string dir = ScratchDir();
  MakeCompressedCopies(dir);
  for (const char* name : {"/l.jsonl.gz", "/l.jsonl.zst"}) {
    const std::string packed = ReadFile(dir + name);
    WriteFile(dir + name, packed.substr(0, packed.size() / 2));
    auto read = ReadAll(dir + name);
    ASSERT_FALSE(read.ok()) << name;
    EXPECT_EQ(read.status().kind(), Status::Kind::kCorruption) << read.status().message();
    EXPECT_NE(read.status().message().find(dir + name), std::string::npos)
        << read.status().message();
  }
}

TEST(CompressedLedger, AppendIsRefusedAndLeavesTheFileAsItWas) {
  const std::string dir = ScratchDir();
  MakeCompressedCopies(dir);
  // By name, and by content under a plain name.
  WriteFile(dir + "/packed.jsonl", ReadFile(dir + "/l.jsonl.zst"));
  for (const char* name : {"/l.jsonl.gz", "/l.jsonl.zst", "/packed.jsonl", "/new.jsonl.zst"}) {
    const std::string path = dir + name;
    const bool existed = preflight::testing::Exists(path);
    const std::string before = existed ? ReadFile(path) : "";
    auto appended = Append(path, testing::SampleReceipt(9));
    ASSERT_FALSE(appended.ok()) << name;
    EXPECT_EQ(appended.status().kind(), Status::Kind::kInvalidArgument);
    EXPECT_NE(appended.status().message().find("compressed ledger is read-only"), std::string::npos)
        << appended.status().message();
    Status check = CheckAppendable(path);
    EXPECT_EQ(check.kind(), Status::Kind::kInvalidArgument) << name;
    EXPECT_EQ(preflight::testing::Exists(path), existed) << name;
    if (existed) EXPECT_EQ(ReadFile(path), before) << name;
  }
}

TEST(FindReceipt, FindsByHashAndKindInPlainAndCompressedLedgers) {
  const std::string dir = ScratchDir();
  MakeCompressedCopies(dir);  // odd lines selection, even lines trial
  auto all = ReadAll(dir + "/l.jsonl");
  ASSERT_TRUE(all.ok());
  const std::string hash = (*all)[3]["hash"];
  for (const char* name : {"/l.jsonl", "/l.jsonl.gz", "/l.jsonl.zst"}) {
    auto found = FindReceipt(dir + name, hash, ReceiptKind::kTrial);
    ASSERT_TRUE(found.ok()) << name << ": " << found.status().message();
    EXPECT_EQ(found->kind, ReceiptKind::kTrial);
    EXPECT_EQ(found->hash, hash);
    EXPECT_EQ(found->line, 4);
    EXPECT_EQ(found->json, (*all)[3]);
  }
}

TEST(FindReceipt, AnotherKindOrNoSuchHashIsNotFoundSayingWhich) {
  const std::string dir = ScratchDir();
  MakeLedger(dir + "/l.jsonl", 2);
  auto all = ReadAll(dir + "/l.jsonl");
  ASSERT_TRUE(all.ok());
  auto other = FindReceipt(dir + "/l.jsonl", (*all)[0]["hash"], ReceiptKind::kForecast);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().kind(), Status::Kind::kNotFound);
  EXPECT_NE(other.status().message().find("is a selection receipt, not a forecast receipt"),
            std::string::npos)
      << other.status().message();
  auto none = FindReceipt(dir + "/l.jsonl", std::string(64, 'f'), ReceiptKind::kTrial);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().kind(), Status::Kind::kNotFound);
  EXPECT_FALSE(FindReceipt(dir + "/l.jsonl", "", ReceiptKind::kSelection).ok());
  EXPECT_FALSE(
      FindReceipt(dir + "/missing.jsonl", (*all)[0]["hash"], ReceiptKind::kSelection).ok());
}

TEST(FindReceipt, TheHashQuotedInsideAnEarlierReceiptIsNotThatReceipt) {
  const std::string dir = ScratchDir();
  const std::string h(64, 'c');
  // Line 1 quotes h in its config (its canonical text holds "hash":"<h>" too); line 2 is h.
  WriteFile(dir + "/l.jsonl", "{\"config\":{\"hash\":\"" + h + "\"},\"hash\":\"" +
                                  std::string(64, 'a') + "\",\"kind\":\"trial\"}\n" +
                                  "{\"hash\":\"" + h + "\",\"kind\":\"trial\"}\n");
  auto found = FindReceipt(dir + "/l.jsonl", h, ReceiptKind::kTrial);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->line, 2);
  EXPECT_FALSE(found->json.contains("config"));
}

TEST(ReceiptKind, NamesRoundTripAndUnknownIsNone) {
  for (const std::string& name : AllKindNames()) {
    auto kind = KindFromName(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(KindName(*kind), name);
    EXPECT_EQ(KindOf(json{{"kind", name}}), kind);
  }
  EXPECT_FALSE(KindFromName("schedule").has_value());
  EXPECT_FALSE(KindOf(json{{"kind", 3}}).has_value());
  EXPECT_FALSE(KindOf(json::array()).has_value());
}

// Through the binary: `ledger verify` and `ledger show` read both compressed forms.
TEST(CompressedLedgerCli, VerifyAndShowReadGzipAndZstd) {
  const std::string dir = ScratchDir();
  MakeCompressedCopies(dir);
  for (const std::string name : {"l.jsonl.gz", "l.jsonl.zst"}) {
    auto verify = preflight::testing::RunCli({"ledger", "verify", "--ledger", name}, dir);
    EXPECT_EQ(verify.exit_code, 0) << verify.err;
    EXPECT_EQ(verify.out, name + ": 5 receipts, every hash and link verified\n");
    auto show = preflight::testing::RunCli(
        {"ledger", "show", "--ledger", name, "--kind", "trial", "--json"}, dir);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    const json doc = json::parse(show.out);
    ASSERT_EQ(doc.size(), 2u);
    auto plain = ReadAll(dir + "/l.jsonl");  // lines 2 and 4 are the trials
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(doc[0], (*plain)[1]);
    EXPECT_EQ(doc[1], (*plain)[3]);
  }
}

// The calibration ledger committed in bench/calibration/ is zstd-compressed: it verifies as it is.
TEST(CompressedLedgerCli, TheCommittedCalibrationLedgerVerifies) {
  const std::string path =
      std::string(PREFLIGHT_SOURCE_DIR) + "/bench/calibration/ledger-tiny-300-2026-12-05.jsonl.zst";
  auto verify = preflight::testing::RunCli({"ledger", "verify", "--ledger", path, "--json"});
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  const json doc = json::parse(verify.out);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_GT(doc["lines"].get<int64_t>(), 0);
}

}  // namespace
}  // namespace preflight::ledger
