// The demo started where its data is not: one message that names the file, says a relative
// --data is read from the working directory, and how to fix it; exit status 2; nothing written.

#include <gtest/gtest.h>

#include <string>

#include "testing/testing.h"

namespace preflight {
namespace {

using testing::Exists;
using testing::RunCli;
using testing::ScratchDir;

TEST(DemoCli, OutsideTheRepositoryItSaysWhereItLookedAndWhatToDo) {
  const std::string dir = ScratchDir("demo_elsewhere");
  auto r = RunCli("demo --out out --ledger ledger.jsonl", dir);  // the default --data: relative
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("battery.json (read from the working directory)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("repository's root (or pass --data)"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dir + "/out"));
  EXPECT_FALSE(Exists(dir + "/ledger.jsonl"));

  auto absolute = RunCli("demo --data " + dir + "/nodata --out out", dir);
  EXPECT_EQ(absolute.exit_code, 2) << absolute.err;
  EXPECT_EQ(absolute.err.find("working directory"), std::string::npos) << absolute.err;
  EXPECT_NE(absolute.err.find(dir + "/nodata/battery.json"), std::string::npos) << absolute.err;

  auto empty = RunCli(std::vector<std::string>{"demo", "--data", "", "--out", "out"}, dir);
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("(read from the working directory)"), std::string::npos) << empty.err;
}

}  // namespace
}  // namespace preflight
