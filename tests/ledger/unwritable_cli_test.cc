// Every command that writes a ledger or an output refuses an unwritable one with exit 2 before
// any work (README, "exit codes"; issue 25): the message names the path, nothing is computed
// (no progress line of the work) and nothing is left behind. /proc/nope is unwritable for
// every user, root included (access(2) would say yes to root: ledger/writable.h).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "testing/testing.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

constexpr const char* kNope = "/proc/nope";

// A folder with small inputs: a pool, T_sel, T_eval, a battery spec over them, a fit CSV and a
// verified ledger of one receipt.
std::string Inputs(const std::string& name) {
  const std::string dir = ScratchDir(name);
  std::string pool;
  for (int i = 0; i < 40; ++i) {
    pool += "{\"text\":\"document " + std::to_string(i) + " about " +
            (i % 2 ? "cats and dogs" : "ships and the sea") + "\",\"genre\":\"" +
            (i % 2 ? "a" : "b") + "\"}\n";
  }
  WriteText(dir + "/pool.jsonl", pool);
  WriteText(dir + "/sel.jsonl", "{\"text\":\"cats and dogs and cats\"}\n");
  WriteText(dir + "/eval.jsonl", "{\"text\":\"dogs and cats, held out\"}\n");
  WriteText(dir + "/battery.json",
            R"({"default_target":"t","targets":[{"name":"t","genre":"a","pool":"pool.jsonl",)"
            R"("target_select":"sel.jsonl","target_eval":"eval.jsonl"}]})");
  WriteText(dir + "/runs.csv", "N,D,loss\n1e8,1e9,3.1\n");
  return dir;
}

// Exit 2, and stderr is the one error line naming /proc/nope: no progress of any work before it.
void ExpectRefusedFirst(const CliResult& r, const std::string& args) {
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("preflight ", 0), 0u) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(kNope), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": more than the error:\n" << r.err;
}

TEST(UnwritableCli, LedgerUnderProcExitsTwoBeforeAnyWork) {
  const std::string d = Inputs("unwritable_ledger");
  const std::string ledger = std::string(kNope) + "/l.jsonl";
  const std::string io = " --pool " + d + "/pool.jsonl --target-select " + d +
                         "/sel.jsonl --target-eval " + d + "/eval.jsonl";
  const std::vector<std::string> commands = {
      "select --pool " + d + "/pool.jsonl --target " + d + "/sel.jsonl --selector dsir --out " + d +
          "/kept.jsonl",
      "train --data " + d + "/pool.jsonl --eval " + d +
          "/eval.jsonl --model tiny --steps 2 --out " + d + "/train",
      "forecast --pool " + d + "/pool.jsonl --target-select " + d + "/sel.jsonl --steps 2",
      "forecast --calibrate",
      "trial" + io + " --steps 2 --seeds 1 --out " + d + "/trial",
      "ladder" + io + " --rungs tiny:2,tiny:4,tiny:8 --seeds 1 --out " + d + "/ladder",
      "battery --spec " + d + "/battery.json --steps 2 --seeds 1 --out " + d + "/battery",
      "demo --data " + d + " --steps 2 --seeds 1 --ladder-rungs '' --out " + d + "/demo",
      "cost --gpus 8 --days 1 --price 2 --record",
  };
  for (const std::string& args : commands) {
    ExpectRefusedFirst(RunCli(args + " --ledger " + ledger, d), args);
  }
  for (const char* out :
       {"kept.jsonl", "kept.jsonl.manifest.json", "train", "trial", "ladder", "battery", "demo"}) {
    EXPECT_FALSE(std::filesystem::exists(d + "/" + out)) << out << " was left behind";
  }
}

TEST(UnwritableCli, OutputsUnderProcExitTwoBeforeAnyWork) {
  const std::string d = Inputs("unwritable_out");
  const std::string nope = kNope;
  const std::string ledger = " --ledger " + d + "/l.jsonl";
  const std::string io = " --pool " + d + "/pool.jsonl --target-select " + d +
                         "/sel.jsonl --target-eval " + d + "/eval.jsonl";
  const std::vector<std::string> commands = {
      "select --pool " + d + "/pool.jsonl --target " + d + "/sel.jsonl --selector dsir --out " +
          nope + "/kept.jsonl" + ledger,
      "select --pool " + d + "/pool.jsonl --target " + d + "/sel.jsonl --selector dsir --out " + d +
          "/kept.jsonl --annotate " + nope + "/a.jsonl" + ledger,
      "train --data " + d + "/pool.jsonl --eval " + d +
          "/eval.jsonl --model tiny --steps 2 --out " + nope + "/train" + ledger,
      "forecast --pool " + d + "/pool.jsonl --target-select " + d + "/sel.jsonl --steps 2 --work " +
          nope + "/work" + ledger,
      "demo --data " + d + " --steps 2 --seeds 1 --ladder-rungs '' --out " + nope + "/demo" +
          ledger,
      "fit --csv " + d + "/runs.csv --out " + nope + "/fit.json",
      "corpus import --brown " + d + "/no-such-brown --out " + nope + "/brown",
      "ledger report --ledger " + d + "/l.jsonl --out " + nope + "/site",
      // Without --quiet: the trial's estimate and a --budget's timing come after the check.
      "trial" + io + " --steps 2 --seeds 1 --out " + nope + "/trial" + ledger,
      "trial" + io + " --budget 1m --seeds 1 --out " + nope + "/trial" + ledger,
      "ladder" + io + " --rungs tiny:2,tiny:4,tiny:8 --seeds 1 --out " + nope + "/ladder" + ledger,
      "ladder" + io + " --budget 1m --seeds 1 --out " + nope + "/ladder" + ledger,
      "battery --spec " + d + "/battery.json --steps 2 --seeds 1 --out " + nope + "/battery" +
          ledger,
  };
  for (const std::string& args : commands) {
    ExpectRefusedFirst(RunCli(args, d), args);
  }
  EXPECT_FALSE(std::filesystem::exists(d + "/kept.jsonl"));
  EXPECT_FALSE(std::filesystem::exists(d + "/l.jsonl"));  // no receipt was appended
}

}  // namespace
}  // namespace preflight
