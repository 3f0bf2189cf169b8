// The writability checks every command runs before any work (ledger/writable.h): they must say
// no where a write would fail even for root (under /proc, a file where a folder should be), say
// yes where it would succeed, and leave nothing behind.

#include "ledger/writable.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ledger/ledger.h"
#include "test_util.h"

namespace preflight::ledger {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

size_t Entries(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++n;
  }
  return n;
}

void ExpectRefused(const Status& st, const std::string& path, const std::string& flag) {
  ASSERT_FALSE(st.ok()) << path;
  EXPECT_EQ(st.ExitCode(), 2) << st.message();
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(flag), std::string::npos) << st.message();
}

TEST(Writable, UnderProcIsRefusedEvenForRoot) {
  // /proc takes no new files, whoever asks: the check that access(2) passes for root.
  ExpectRefused(CheckAppendable("/proc/nope/l.jsonl"), "/proc/nope/l.jsonl", "--ledger");
  ExpectRefused(CheckWritableFile("/proc/nope/out.jsonl", "--out"), "/proc/nope/out.jsonl",
                "--out");
  ExpectRefused(CheckWritableFolder("/proc/nope/run", "--out"), "/proc/nope/run", "--out");
  ExpectRefused(CheckWritableFile("/proc/out.jsonl", "--annotate"), "/proc/out.jsonl",
                "--annotate");
}

TEST(Writable, AFileWhereAFolderShouldBeIsRefused) {
  const std::string dir = ScratchDir();
  WriteFile(dir + "/plain", "x");
  ExpectRefused(CheckAppendable(dir + "/plain/l.jsonl"), dir + "/plain/l.jsonl", "--ledger");
  ExpectRefused(CheckWritableFolder(dir + "/plain", "--out"), dir + "/plain", "--out");
  ExpectRefused(CheckWritableFolder(dir + "/plain/run", "--out"), dir + "/plain/run", "--out");
  ExpectRefused(CheckWritableFile(dir, "--out"), dir, "is a folder");
  ExpectRefused(CheckAppendable(dir), dir, "--ledger");
}

TEST(Writable, WritablePlacesPassAndNothingIsLeftBehind) {
  const std::string dir = ScratchDir();
  EXPECT_TRUE(CheckAppendable(dir + "/new/.preflight/ledger.jsonl").ok());
  EXPECT_TRUE(CheckWritableFile(dir + "/a/b/out.jsonl", "--out").ok());
  EXPECT_TRUE(CheckWritableFolder(dir + "/run", "--out").ok());
  EXPECT_TRUE(CheckWritableFolder(dir, "--out").ok());
  EXPECT_EQ(Entries(dir), 0u);  // no probe file, no folder made
  ASSERT_TRUE(Append(dir + "/l.jsonl", testing::SampleReceipt(1)).ok());
  const std::string before = testing::ReadFile(dir + "/l.jsonl");
  EXPECT_TRUE(CheckAppendable(dir + "/l.jsonl").ok());
  EXPECT_EQ(testing::ReadFile(dir + "/l.jsonl"), before);
  EXPECT_EQ(Entries(dir), 2u);  // the ledger and the verified mark Append left (no probe)
}

TEST(Writable, EmptyPathsAreRefused) {
  EXPECT_EQ(CheckWritableFile("", "--out").ExitCode(), 2);
  EXPECT_EQ(CheckWritableFolder("", "--out").ExitCode(), 2);
  EXPECT_EQ(CheckAppendable("").ExitCode(), 2);
}

}  // namespace
}  // namespace preflight::ledger
