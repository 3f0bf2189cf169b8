// The select command's contract for bad input: one clear message naming the file and line (or
// byte offset), exit status 2, and no output file left behind.

#include <dirent.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include "testing/testing.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::Exists;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

const char* kGoodTarget = "{\"text\":\"the target text about cats\"}\n";
const char* kGoodPool =
    "{\"text\":\"one document about dogs\"}\n{\"text\":\"another about cats\"}\n";

// Files in `dir` other than the inputs the test wrote.
std::vector<std::string> Leftovers(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != ".." && n.rfind("in.", 0) != 0) names.push_back(n);
  }
  closedir(d);
  return names;
}

CliResult Select(const std::string& dir, const std::string& pool, const std::string& extra = "",
                 const std::string& out = "") {
  return RunCli("select --pool " + pool + " --target " + dir +
                    "/in.target.jsonl --selector dsir --out " +
                    (out.empty() ? dir + "/kept.jsonl" : out) + " --ledger " + dir +
                    "/in.ledger.jsonl --quiet " + extra,
                dir);
}

void ExpectCleanFailure(const CliResult& r, const std::string& dir, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("preflight select: error: " + message), std::string::npos)
      << "stderr was: " << r.err << "\nexpected: " << message;
  EXPECT_TRUE(Leftovers(dir).empty())
      << "left behind: " << (Leftovers(dir).empty() ? "" : Leftovers(dir)[0]);
}

class SelectBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    WriteText(dir_ + "/in.target.jsonl", kGoodTarget);
  }
  std::string dir_;
};

TEST_F(SelectBadInput, MalformedJson) {
  WriteText(dir_ + "/in.pool.jsonl", std::string(kGoodPool) + "{\"text\": \"cut off\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:3: malformed JSON");
}

TEST_F(SelectBadInput, MissingTextField) {
  WriteText(dir_ + "/in.pool.jsonl", std::string(kGoodPool) + "{\"body\": \"x\"}\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:3: no \"text\" field");
}

TEST_F(SelectBadInput, NonStringTextField) {
  WriteText(dir_ + "/in.pool.jsonl", "{\"text\": [\"a\"]}\n" + std::string(kGoodPool));
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:1: field \"text\" is not a string");
}

TEST_F(SelectBadInput, InvalidUtf8) {
  WriteText(dir_ + "/in.pool.jsonl", std::string(kGoodPool) + "{\"text\": \"caf\xe9\"}\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:3: invalid UTF-8");
}

TEST_F(SelectBadInput, SkipBadCountsInsteadOfFailing) {
  WriteText(dir_ + "/in.pool.jsonl",
            std::string(kGoodPool) + "{\"text\": \"caf\xe9\"}\nnot json\n");
  CliResult r = Select(dir_, dir_ + "/in.pool.jsonl", "--skip-bad --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"skipped_bad_lines\": 2"), std::string::npos) << r.out;
  EXPECT_TRUE(Exists(dir_ + "/kept.jsonl"));
}

TEST_F(SelectBadInput, EmptyPool) {
  WriteText(dir_ + "/in.pool.jsonl", "");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     "the pool has no documents (" + dir_ + "/in.pool.jsonl)");
}

TEST_F(SelectBadInput, EmptyTarget) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  WriteText(dir_ + "/in.target.jsonl", "\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     "the target has no documents (" + dir_ + "/in.target.jsonl)");
}

TEST_F(SelectBadInput, DocumentOver64MiB) {
  const size_t n = (64u << 20) + 1;
  WriteText(dir_ + "/in.pool.jsonl", "{\"text\": \"" + std::string(n, 'a') + "\"}\n");
  ExpectCleanFailure(
      Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
      dir_ + "/in.pool.jsonl:1: document of 67108865 bytes is over the limit of 67108864 bytes");
}

TEST_F(SelectBadInput, KeepOutsideUnitInterval) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep 0"), dir_,
                     "--keep must be a number in (0, 1], got 0");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep 1.5"), dir_,
                     "--keep must be a number in (0, 1], got 1.5");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep -0.25"), dir_,
                     "--keep must be a number in (0, 1], got -0.25");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep nan"), dir_,
                     "--keep must be a number in (0, 1], got nan");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep inf"), dir_,
                     "--keep must be a number in (0, 1], got inf");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep quarter"), dir_,
                     "--keep must be a number in (0, 1], got quarter");
}

TEST_F(SelectBadInput, UnreadableZst) {
  WriteText(dir_ + "/in.pool.jsonl.zst", "this is not zstd at all");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl.zst"), dir_,
                     dir_ + "/in.pool.jsonl.zst: not a valid zstd stream near byte offset 0");
}

TEST_F(SelectBadInput, TruncatedZst) {
  std::string body;
  for (int i = 0; i < 2000; ++i) body += "{\"text\":\"document " + std::to_string(i) + "\"}\n";
  std::string packed(ZSTD_compressBound(body.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), body.data(), body.size(), 3));
  WriteText(dir_ + "/in.pool.jsonl.zst", packed.substr(0, packed.size() - 10));
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl.zst"), dir_,
                     dir_ + "/in.pool.jsonl.zst: truncated zstd stream");
}

TEST_F(SelectBadInput, MissingPoolFile) {
  ExpectCleanFailure(Select(dir_, dir_ + "/in.nothing.jsonl"), dir_,
                     dir_ + "/in.nothing.jsonl: no such file");
}

TEST_F(SelectBadInput, UnwritableOutput) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  // Missing parent folders are created, so the unwritable place is one no one can write: /proc.
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "", "/proc/kept.jsonl"), dir_,
                     "/proc/kept.jsonl: cannot write output");
}

TEST(SelectCli, HelpTeachesAndExitsZero) {
  CliResult r = RunCli("select --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--selector"), std::string::npos);
  EXPECT_NE(r.out.find("Example:"), std::string::npos);
}

TEST(SelectCli, MissingRequiredFlagIsUsageError) {
  CliResult r = RunCli("select --pool x.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out is required"), std::string::npos) << r.err;
}

TEST(SelectCli, JsonOutputHasTheContractKeysAndAReceipt) {
  std::string dir = ScratchDir("select_json");
  WriteText(dir + "/in.pool.jsonl", kGoodPool);
  WriteText(dir + "/in.target.jsonl", kGoodTarget);
  CliResult r = Select(dir, dir + "/in.pool.jsonl", "--json --keep 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* key : {"\"selector\"", "\"seed\"", "\"pool_docs\"", "\"pool_bytes\"",
                          "\"kept_docs\"", "\"kept_bytes\"", "\"core_seconds\"", "\"receipt\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
  CliResult v = RunCli("ledger verify --ledger " + dir + "/in.ledger.jsonl");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

}  // namespace
}  // namespace preflight
