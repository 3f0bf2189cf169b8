#include "ledger/ledger.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <regex>
#include <set>
#include <thread>

#include "base/sha256.h"
#include "base/version.h"
#include "ledger/verified_mark.h"
#include "test_util.h"

namespace preflight::ledger {
namespace {

using nlohmann::json;
using testing::Join;
using testing::Lines;
using testing::MakeLedger;
using testing::ReadFile;
using testing::SampleReceipt;
using testing::ScratchDir;
using testing::WriteFile;

TEST(Ledger, DefaultPathIsInTheWorkingDirectory) {
  EXPECT_EQ(DefaultLedgerPath(), ".preflight/ledger.jsonl");
}

TEST(Ledger, InputFileConvertsBothWays) {
  InputFile f{"data/pool.jsonl", std::string(64, 'b'), 7, 4096};
  json j = f;
  EXPECT_EQ(CanonicalJson(j), R"({"bytes":4096,"docs":7,"path":"data/pool.jsonl","sha256":")" +
                                  std::string(64, 'b') + R"("})");
  InputFile back = j.get<InputFile>();
  EXPECT_EQ(back.path, f.path);
  EXPECT_EQ(back.sha256, f.sha256);
  EXPECT_EQ(back.docs, 7u);
  EXPECT_EQ(back.bytes, 4096u);
}

TEST(Ledger, FirstAppendCreatesFolderAndLinksToGenesis) {
  std::string path = ScratchDir() + "/nested/.preflight/ledger.jsonl";
  auto r = Append(path, SampleReceipt(1));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["prev"], kGenesisHash);
  EXPECT_EQ((*r)["hash"], ReceiptHash(*r));
  EXPECT_EQ((*r)["tool"]["version"], kVersion);
  EXPECT_EQ((*r)["tool"]["git_commit"], kGitCommit);
  EXPECT_TRUE(std::regex_match((*r)["created_at"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
  // The line is the canonical form of exactly the receipt returned.
  EXPECT_EQ(ReadFile(path), CanonicalJson(*r) + "\n");
}

TEST(Ledger, ChainOfAppendsVerifiesAndReadsBack) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  std::vector<json> written;
  for (int i = 1; i <= 6; ++i) {
    auto r = Append(path, SampleReceipt(i));
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (!written.empty()) {
      EXPECT_EQ((*r)["prev"], written.back()["hash"]);
    }
    written.push_back(*r);
  }
  auto report = Verify(path);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok) << report->reason;
  EXPECT_EQ(report->lines, 6);
  EXPECT_EQ(report->first_bad_line, 0);
  EXPECT_EQ(report->reason, "");
  auto all = ReadAll(path);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 6u);
  for (size_t i = 0; i < written.size(); ++i) EXPECT_EQ((*all)[i], written[i]);
}

TEST(Ledger, EmptyLedgerVerifiesAndMissingOneIsNotFound) {
  std::string dir = ScratchDir();
  WriteFile(dir + "/empty.jsonl", "");
  auto report = Verify(dir + "/empty.jsonl");
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok);
  EXPECT_EQ(report->lines, 0);
  auto missing = Verify(dir + "/missing.jsonl");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), Status::Kind::kNotFound);
  EXPECT_NE(missing.status().message().find(dir + "/missing.jsonl"), std::string::npos);
  EXPECT_EQ(ReadAll(dir + "/missing.jsonl").status().kind(), Status::Kind::kNotFound);
}

// Verify on a ledger whose bytes were replaced, expecting line `bad` to be named with a reason
// starting `reason`.
void ExpectFirstBad(const std::string& path, int64_t bad, const std::string& reason) {
  auto report = Verify(path);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(report->first_bad_line, bad) << report->reason;
  EXPECT_EQ(report->reason.substr(0, reason.size()), reason) << report->reason;
}

TEST(LedgerTamper, ChangedValueIsAHashMismatchOnThatLine) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 5);
  std::vector<std::string> lines = Lines(ReadFile(path));
  size_t at = lines[2].find("\"kept_docs\":103");
  ASSERT_NE(at, std::string::npos);
  lines[2][at + 14] = '4';  // 103 -> 104
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 3, "hash mismatch: the line records ");
}

TEST(LedgerTamper, EveryFlippedBitOfALineIsCaughtOnThatLine) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 5);
  const std::string good = ReadFile(path);
  std::vector<std::string> lines = Lines(good);
  const size_t begin = lines[0].size() + lines[1].size();  // Line 3 starts here.
  for (size_t off = begin; off < begin + lines[2].size(); ++off) {
    for (unsigned char mask : {0x01, 0x80}) {
      std::string bad = good;
      bad[off] = static_cast<char>(bad[off] ^ mask);
      WriteFile(path, bad);
      auto report = Verify(path);
      ASSERT_TRUE(report.ok());
      ASSERT_EQ(report->first_bad_line, 3)
          << "byte " << off - begin << " of line 3, mask " << int(mask) << ": " << report->reason;
    }
  }
}

TEST(LedgerTamper, RemovedLineBreaksTheLinkOfTheNext) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 5);
  std::vector<std::string> lines = Lines(ReadFile(path));
  lines.erase(lines.begin() + 2);
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 3, "broken link to previous: prev is ");
  auto report = Verify(path);
  EXPECT_NE(report->reason.find("but line 2's hash is"), std::string::npos) << report->reason;
}

TEST(LedgerTamper, RemovedFirstLineIsCaughtOnLineOne) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 3);
  std::vector<std::string> lines = Lines(ReadFile(path));
  lines.erase(lines.begin());
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 1, "broken link to previous: the first line's prev must be 64 zeros");
}

TEST(LedgerTamper, SwappedLinesAreCaughtOnTheFirstOfThem) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 5);
  std::vector<std::string> lines = Lines(ReadFile(path));
  std::swap(lines[1], lines[2]);
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 2, "broken link to previous");
}

TEST(LedgerTamper, MissingFieldIsNamed) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 3);
  std::vector<std::string> lines = Lines(ReadFile(path));
  json r = json::parse(lines[1]);
  r.erase("config");
  lines[1] = CanonicalJson(r) + "\n";
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 2, "missing field 'config'");
}

TEST(LedgerTamper, GarbageLineIsNotJson) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 3);
  std::vector<std::string> lines = Lines(ReadFile(path));
  lines.insert(lines.begin() + 1, "{\"kind\": oops\n");
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 2, "not JSON (syntax error at byte ");
  auto all = ReadAll(path);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().kind(), Status::Kind::kCorruption);
  EXPECT_NE(all.status().message().find(path + ": line 2 is not JSON"), std::string::npos)
      << all.status().message();
}

// Found by fuzz_ledger: a number that overflows a double made the JSON parser throw
// out_of_range, which nothing caught: `ledger verify` died instead of naming the line.
TEST(LedgerTamper, NumberTooLargeToReadIsNamedNotACrash) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 2);
  std::vector<std::string> lines = Lines(ReadFile(path));
  lines.insert(lines.begin() + 1, "{\"cost\":{\"core_seconds\":182e33000}}\n");
  WriteFile(path, Join(lines));
  ExpectFirstBad(path, 2, "not a receipt (a number too large to read)");
  auto all = ReadAll(path);
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find(path + ": line 2 is not a receipt"), std::string::npos)
      << all.status().message();
  // As the last line, Append refuses to extend it rather than crash.
  lines.pop_back();
  lines.pop_back();
  lines.push_back("{\"cost\":{\"core_seconds\":1e999}}\n");
  WriteFile(path, Join(lines));
  auto appended = Append(path, SampleReceipt(9, "cost"));
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(appended.status().kind(), Status::Kind::kCorruption);
}

TEST(LedgerTamper, TruncatedLastLineFailsVerifyAndIsNeverExtended) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 4);
  const std::string good = ReadFile(path);
  for (size_t cut : {size_t{1}, Lines(good).back().size() / 2}) {
    const std::string truncated = good.substr(0, good.size() - cut);
    WriteFile(path, truncated);
    ExpectFirstBad(path, 4, "incomplete: the file ends without a newline");

    auto appended = Append(path, SampleReceipt(9));
    ASSERT_FALSE(appended.ok());
    EXPECT_EQ(appended.status().kind(), Status::Kind::kCorruption);
    EXPECT_NE(appended.status().message().find(path + ": line 4 is incomplete"), std::string::npos)
        << appended.status().message();
    EXPECT_NE(appended.status().message().find("preflight ledger verify --ledger " + path),
              std::string::npos);
    EXPECT_EQ(ReadFile(path), truncated);  // Left exactly as it was.

    auto all = ReadAll(path);
    ASSERT_FALSE(all.ok());
    EXPECT_NE(all.status().message().find("line 4 is incomplete"), std::string::npos);
  }
}

TEST(LedgerTamper, AppendRefusesALastLineWithoutHash) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 2);
  std::string damaged = ReadFile(path) + "not a receipt\n";
  WriteFile(path, damaged);
  auto appended = Append(path, SampleReceipt(3));
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(appended.status().kind(), Status::Kind::kCorruption);
  EXPECT_NE(appended.status().message().find(path + ": line 3 (the last) is not JSON"),
            std::string::npos)
      << appended.status().message();
  EXPECT_EQ(ReadFile(path), damaged);
}

// Issue 31: an append read only the last line, so a ledger with an edited line 4 was extended.
TEST(LedgerTamper, AppendToALedgerWithAnEditedEarlierLineIsRefused) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 6);
  std::vector<std::string> lines = Lines(ReadFile(path));
  const size_t at = lines[3].find("\"kept_docs\":104");
  ASSERT_NE(at, std::string::npos);
  lines[3][at + 14] = '5';  // 104 -> 105, the hash left as it was
  const std::string tampered = Join(lines);
  // With the verified mark Append left (its digest no longer matches) and without one.
  for (bool keep_mark : {true, false}) {
    WriteFile(path, tampered);
    if (!keep_mark) std::filesystem::remove(VerifiedMarkPath(path));
    auto appended = Append(path, SampleReceipt(7));
    ASSERT_FALSE(appended.ok()) << "mark kept: " << keep_mark;
    EXPECT_EQ(appended.status().kind(), Status::Kind::kCorruption);
    EXPECT_NE(appended.status().message().find(path + ": line 4 is bad: hash mismatch"),
              std::string::npos)
        << appended.status().message();
    EXPECT_EQ(ReadFile(path), tampered);           // not extended
    const Status checked = CheckAppendable(path);  // what jobs ask before any work
    EXPECT_EQ(checked.kind(), Status::Kind::kCorruption) << checked.message();
  }
}

TEST(LedgerAppend, TheVerifiedMarkCoversTheWholeLedgerAfterEachAppend) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 3);
  auto mark = ReadVerifiedMark(path);
  ASSERT_TRUE(mark.has_value());
  EXPECT_EQ(mark->bytes, static_cast<int64_t>(ReadFile(path).size()));
  EXPECT_EQ(mark->sha256, Sha256::Hex(ReadFile(path)));
  EXPECT_TRUE(CheckAppendable(path).ok());
}

TEST(LedgerAppend, LinesAfterTheMarkAreCheckedOneByOne) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  MakeLedger(path, 3);
  const std::string mark_at_three = ReadFile(VerifiedMarkPath(path));
  ASSERT_TRUE(Append(path, SampleReceipt(4)).ok());
  ASSERT_TRUE(Append(path, SampleReceipt(5)).ok());
  // Lines 4 and 5 as a writer that keeps no mark would leave them: good ones are extended...
  WriteFile(VerifiedMarkPath(path), mark_at_three);
  ASSERT_TRUE(Append(path, SampleReceipt(6)).ok());
  EXPECT_EQ(ReadVerifiedMark(path)->bytes, static_cast<int64_t>(ReadFile(path).size()));
  auto report = Verify(path);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok) << report->reason;
  // ...a bad one after the mark is named.
  std::vector<std::string> lines = Lines(ReadFile(path));
  std::swap(lines[3], lines[4]);
  WriteFile(path, Join(lines));
  WriteFile(VerifiedMarkPath(path), mark_at_three);
  auto appended = Append(path, SampleReceipt(7));
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.status().message().find(": line 4 is bad: broken link to previous"),
            std::string::npos)
      << appended.status().message();
  // A mark that is garbage is no mark: a good ledger is still extended.
  std::swap(lines[3], lines[4]);
  WriteFile(path, Join(lines));
  WriteFile(VerifiedMarkPath(path), "{\"bytes\": 12, \"sha256\": \"nope\"}\n");
  EXPECT_TRUE(Append(path, SampleReceipt(7)).ok());
}

TEST(LedgerAppend, RejectsMalformedReceiptsAndWritesNothing) {
  std::string path = ScratchDir() + "/sub/ledger.jsonl";
  struct Case {
    std::function<void(json&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json& r) { r.erase("cost"); }, "receipt: missing field 'cost'"},
      {[](json& r) { r["kind"] = "lunch"; }, "receipt: 'kind' must be one of"},
      {[](json& r) { r["extra"] = 1; }, "receipt: unknown field 'extra'"},
      {[](json& r) { r["hash"] = "x"; }, "receipt: already has 'hash'; Append fills it"},
      {[](json& r) { r["prev"] = kGenesisHash; }, "receipt: already has 'prev'"},
      {[](json& r) { r["inputs"][0]["sha256"] = "ABC"; }, "'inputs/0/sha256' must be 64"},
      {[](json& r) { r["inputs"][0]["docs"] = -1; }, "'inputs/0/docs' must be a non-negative"},
      {[](json& r) { r["inputs"] = json::object(); }, "'inputs' must be an array"},
      {[](json& r) { r["result"] = 3; }, "'result' must be an object"},
      {[](json& r) { r["cost"].erase("flops"); }, "'cost/flops' is missing"},
      {[](json& r) { r["cost"]["core_seconds"] = "fast"; }, "'cost/core_seconds' must be a"},
      {[](json& r) { r["result"]["loss"] = std::nan(""); }, "'/result/loss' is not a finite"},
  };
  for (const Case& c : cases) {
    json r = SampleReceipt(1);
    c.edit(r);
    auto appended = Append(path, r);
    ASSERT_FALSE(appended.ok()) << c.message;
    EXPECT_EQ(appended.status().kind(), Status::Kind::kInvalidArgument);
    EXPECT_NE(appended.status().message().find(c.message), std::string::npos)
        << appended.status().message();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  auto wrong_type = Append(path, json::array());
  EXPECT_EQ(wrong_type.status().message(), "receipt: must be a JSON object");
}

TEST(LedgerAppend, ExtraFieldsInsideInputsAndCostAreKept) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  json r = SampleReceipt(1, "cost");
  r["inputs"][0]["role"] = "pool";
  r["cost"]["wall_seconds"] = 2.5;
  auto appended = Append(path, r);
  ASSERT_TRUE(appended.ok()) << appended.status().message();
  EXPECT_EQ((*appended)["inputs"][0]["role"], "pool");
  EXPECT_TRUE(Verify(path)->ok);
}

// Every writer appends its own numbered receipts; all must land, once each, in one chain.
void ExpectAllLanded(const std::string& path, int writers, int per_writer) {
  auto report = Verify(path);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok) << "line " << report->first_bad_line << ": " << report->reason;
  EXPECT_EQ(report->lines, writers * per_writer);
  auto all = ReadAll(path);
  ASSERT_TRUE(all.ok());
  std::set<std::pair<int, int>> seen;
  for (const json& r : *all) {
    seen.emplace(r["config"]["writer"].get<int>(), r["config"]["seed"].get<int>());
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(writers * per_writer));
}

constexpr int kWriters = 4;
constexpr int kPerWriter = 15;

json WriterReceipt(int writer, int i) {
  json r = SampleReceipt(i);
  r["config"]["writer"] = writer;
  return r;
}

TEST(LedgerConcurrency, ThreadsAllLandInOneChain) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  std::vector<std::thread> threads;
  std::vector<int> failures(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) failures[w] += !Append(path, WriterReceipt(w, i)).ok();
    });
  }
  for (auto& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], 0) << "writer " << w;
  ExpectAllLanded(path, kWriters, kPerWriter);
}

TEST(LedgerConcurrency, ProcessesAllLandInOneChain) {
  std::string path = ScratchDir() + "/ledger.jsonl";
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int failed = 0;
      for (int i = 0; i < kPerWriter; ++i) failed += !Append(path, WriterReceipt(w, i)).ok();
      ::_exit(failed == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << pid;
  }
  ExpectAllLanded(path, kWriters, kPerWriter);
}

}  // namespace
}  // namespace preflight::ledger
