// `preflight ledger` through the real binary: exit codes, messages and --json documents.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "ledger/ledger.h"
#include "test_util.h"
#include "testing/testing.h"

namespace preflight::ledger {
namespace {

using nlohmann::json;
using testing::Join;
using testing::Lines;
using testing::MakeLedger;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WriteFile;

struct CliRun {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `preflight ledger <args>` in folder `cwd`.
CliRun Ledger(const std::string& cwd, const std::string& args) {
  std::vector<std::string> argv = preflight::testing::SplitWords(args);
  argv.insert(argv.begin(), "ledger");
  preflight::testing::CliResult r = preflight::testing::RunCli(argv, cwd);
  CliRun run;
  run.exit_code = r.exit_code;
  run.out = r.out;
  run.err = r.err;
  return run;
}

TEST(LedgerCli, VerifyGoodLedgerExitsZero) {
  std::string dir = ScratchDir();
  MakeLedger(dir + "/l.jsonl", 3);
  CliRun run = Ledger(dir, "verify --ledger l.jsonl");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "l.jsonl: 3 receipts, every hash and link verified\n");
}

TEST(LedgerCli, VerifyUsesTheDefaultLedgerInTheWorkingDirectory) {
  std::string dir = ScratchDir();
  MakeLedger(dir + "/.preflight/ledger.jsonl", 2);
  CliRun run = Ledger(dir, "verify --json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  json doc = json::parse(run.out);
  EXPECT_EQ(doc["ledger"], ".preflight/ledger.jsonl");
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["lines"], 2);
  EXPECT_EQ(doc["first_bad_line"], 0);
}

TEST(LedgerCli, VerifyTamperedLedgerExitsOneNamingTheLine) {
  std::string dir = ScratchDir();
  MakeLedger(dir + "/l.jsonl", 4);
  std::vector<std::string> lines = Lines(ReadFile(dir + "/l.jsonl"));
  lines[2].replace(lines[2].find("\"kept_docs\":103"), 15, "\"kept_docs\":999");
  WriteFile(dir + "/l.jsonl", Join(lines));

  CliRun run = Ledger(dir, "verify --ledger l.jsonl");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err.rfind("preflight ledger verify: l.jsonl: line 3: hash mismatch: ", 0), 0u)
      << run.err;

  CliRun as_json = Ledger(dir, "verify --ledger l.jsonl --json");
  EXPECT_EQ(as_json.exit_code, 1);
  json doc = json::parse(as_json.out);
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["lines"], 4);
  EXPECT_EQ(doc["first_bad_line"], 3);
  EXPECT_EQ(doc["reason"].get<std::string>().rfind("hash mismatch", 0), 0u);
}

TEST(LedgerCli, MissingLedgerExitsTwo) {
  std::string dir = ScratchDir();
  CliRun run = Ledger(dir, "verify --ledger nowhere.jsonl");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("nowhere.jsonl: no ledger here"), std::string::npos) << run.err;
  EXPECT_EQ(Ledger(dir, "show").exit_code, 2);
}

TEST(LedgerCli, BadUsageExitsTwo) {
  std::string dir = ScratchDir();
  EXPECT_EQ(Ledger(dir, "").exit_code, 2);
  EXPECT_EQ(Ledger(dir, "audit").exit_code, 2);
  EXPECT_EQ(Ledger(dir, "show --last 0").exit_code, 2);
  EXPECT_EQ(Ledger(dir, "show --kind lunch").exit_code, 2);
  // Every kind a receipt can have is accepted as a filter (here the ledger itself is missing).
  for (const char* kind : {"train", "ladder", "battery"}) {
    EXPECT_EQ(Ledger(dir, std::string("show --kind ") + kind).err.find("not in"),
              std::string::npos)
        << kind;
  }
  EXPECT_EQ(Ledger(dir, "verify --help").exit_code, 0);
}

TEST(LedgerCli, ShowFiltersByKindAndLast) {
  std::string dir = ScratchDir();
  MakeLedger(dir + "/l.jsonl", 5);  // Kinds alternate: selection, trial, selection, trial, ...
  auto all = ReadAll(dir + "/l.jsonl");
  ASSERT_TRUE(all.ok());

  CliRun run = Ledger(dir, "show --ledger l.jsonl --kind trial --last 1 --json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  json doc = json::parse(run.out);
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0], (*all)[3]);

  CliRun everything = Ledger(dir, "show --ledger l.jsonl --json");
  EXPECT_EQ(json::parse(everything.out).size(), 5u);

  CliRun table = Ledger(dir, "show --ledger l.jsonl --last 2");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  std::vector<std::string> rows = Lines(table.out);
  ASSERT_EQ(rows.size(), 3u) << table.out;  // Header and two receipts.
  EXPECT_NE(rows[0].find("created_at"), std::string::npos);
  EXPECT_EQ(rows[1].rfind("     4  ", 0), 0u) << rows[1];
  EXPECT_NE(rows[1].find((*all)[3]["hash"].get<std::string>().substr(0, 12)), std::string::npos);
  // One line per receipt with its kind's facts (app/receipt_facts.h), not every key.
  EXPECT_NE(rows[2].find("kept 105 of"), std::string::npos) << rows[2];
}

TEST(LedgerCli, ShowRefusesAnUnreadableLedger) {
  std::string dir = ScratchDir();
  MakeLedger(dir + "/l.jsonl", 2);
  WriteFile(dir + "/l.jsonl", ReadFile(dir + "/l.jsonl") + "{\"cut");
  CliRun run = Ledger(dir, "show --ledger l.jsonl");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("l.jsonl: line 3 is incomplete"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace preflight::ledger
