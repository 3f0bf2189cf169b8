// preflight under mpirun: a selection on 1, 2 and 3 ranks writes the same bytes as one process
// (manifest: all but the measured "cost" block), a trial on 2 ranks gets the plain run's result,
// and a rank that cannot read its part of the pool fails the whole job with no output left.

#include <dirent.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/planted.h"
#include "testing/testing.h"
#include "testing/trial_result.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::Exists;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

// `preflight <args>` on `ranks` MPI ranks (0: no mpirun at all).
CliResult RunRanks(int ranks, const std::string& args) {
  if (ranks == 0) return RunCli(args);
  std::vector<std::string> argv = {
      PREFLIGHT_MPIRUN,      "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np",
      std::to_string(ranks), PREFLIGHT_BINARY};
  for (const std::string& a : testing::SplitWords(args)) argv.push_back(a);
  return testing::RunProgram(argv);
}

// The manifest without what a run measures (its cost block), as canonical text.
std::string ManifestSansCost(const std::string& path) {
  auto m = nlohmann::json::parse(ReadText(path));
  m.erase("cost");
  return m.dump(2);
}

// A pool in two files whose line boundaries fall off every even split point (asserted), with
// blank lines, and its target. With --shard-bytes 16000 the files are cut into shards that the
// ranks share.
struct Pool {
  std::string dir, files, target;
};

Pool MakePool(const std::string& name) {
  Pool p;
  p.dir = ScratchDir(name);
  testing::WritePlantedPool(p.dir, 240, 0.3, 30, 11);
  std::string all = ReadText(p.dir + "/pool.jsonl");
  // Split after the 150th line and put blank lines in the first file.
  size_t cut = 0;
  for (int i = 0; i < 150; ++i) cut = all.find('\n', cut) + 1;
  std::string first = all.substr(0, cut), second = all.substr(cut);
  first.insert(first.find('\n', first.size() / 3) + 1, "\n   \n");
  WriteText(p.dir + "/pool-a.jsonl", first);
  WriteText(p.dir + "/pool-b.jsonl", second);
  p.files = p.dir + "/pool-a.jsonl " + p.dir + "/pool-b.jsonl";
  p.target = p.dir + "/target.jsonl";
  const std::string joined = first + second;
  for (int n : {2, 3}) {
    for (int k = 1; k < n; ++k) {
      size_t at = joined.size() * k / n;
      EXPECT_NE(joined[at - 1], '\n') << "split point " << k << "/" << n << " is a line start";
    }
  }
  return p;
}

std::string SelectArgs(const Pool& p, const std::string& selector, const std::string& extra = "") {
  return "select --pool " + p.files + " --target " + p.target + " --selector " + selector +
         " --keep 0.3 --seed 7 --threads 1 --shard-bytes 16000 --out " + p.dir +
         "/out.jsonl --ledger " + p.dir + "/ledger.jsonl --quiet --clf-epochs 3 " + extra;
}

class DistSelect : public ::testing::TestWithParam<std::string> {};

TEST_P(DistSelect, OneTwoAndThreeRanksWriteThePlainRunsBytes) {
  const std::string selector = GetParam();
  Pool p = MakePool("dist_select_" + selector);
  auto plain = RunRanks(0, SelectArgs(p, selector));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string want_out = ReadText(p.dir + "/out.jsonl");
  const std::string want_manifest = ManifestSansCost(p.dir + "/out.jsonl.manifest.json");
  ASSERT_FALSE(want_out.empty());
  std::vector<std::pair<int, std::string>> runs = {{1, ""}, {2, ""}, {3, ""}};
  if (selector == "dsir") runs.push_back({3, "--mpi-cut gather"});
  for (const auto& [ranks, extra] : runs) {
    std::remove((p.dir + "/out.jsonl").c_str());
    std::remove((p.dir + "/out.jsonl.manifest.json").c_str());
    auto r = RunRanks(ranks, SelectArgs(p, selector, extra));
    ASSERT_EQ(r.exit_code, 0) << ranks << " ranks " << extra << ": " << r.err;
    EXPECT_EQ(ReadText(p.dir + "/out.jsonl"), want_out) << ranks << " ranks " << extra;
    EXPECT_EQ(ManifestSansCost(p.dir + "/out.jsonl.manifest.json"), want_manifest)
        << ranks << " ranks " << extra;
    auto m = nlohmann::json::parse(ReadText(p.dir + "/out.jsonl.manifest.json"));
    if (ranks > 1) {
      // The communication is measured per rank and phase; rank 1 sent something in the cut.
      const auto& phases = m["cost"]["mpi"]["phases_by_rank"];
      ASSERT_EQ(phases.size(), static_cast<size_t>(ranks));
      uint64_t cut_bytes = 0;
      for (const auto& ph : phases[1])
        if (ph["phase"] == "cut") cut_bytes = ph["bytes_sent"];
      EXPECT_GT(cut_bytes, 0u);
    }
    // One line of output (rank 0's), as from the plain run.
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'),
              std::count(plain.out.begin(), plain.out.end(), '\n'));
  }
}

INSTANTIATE_TEST_SUITE_P(Selectors, DistSelect,
                         ::testing::Values("random", "first", "dsir", "classifier"));

// Inputs that cannot be cut by byte range (a .zst file, a plain-text folder) go whole to one rank,
// between a plain file that is cut: the same bytes as one process on 2 and 3 ranks.
TEST(DistSelect, ZstdAndFolderInputsAmongPlainOnes) {
  Pool p = MakePool("dist_mixed");
  const std::string b = ReadText(p.dir + "/pool-b.jsonl");
  std::string z(ZSTD_compressBound(b.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), b.data(), b.size(), 3));
  WriteText(p.dir + "/pool-z.jsonl.zst", z);
  ASSERT_TRUE(std::filesystem::create_directories(p.dir + "/pool-folder"));
  testing::TestRng rng(5);
  for (int i = 0; i < 6; ++i)
    WriteText(p.dir + "/pool-folder/doc" + std::to_string(i) + ".txt",
              testing::MakeDoc(rng, i % 2 ? "tg" : "bg", 80 + 40 * i));
  const std::string args = "select --pool " + p.dir + "/pool-z.jsonl.zst " + p.dir +
                           "/pool-folder " + p.dir + "/pool-a.jsonl --target " + p.target +
                           " --selector dsir --keep 0.4 --seed 3 --threads 1 --out " + p.dir +
                           "/out.jsonl --ledger " + p.dir + "/ledger.jsonl --quiet";
  ASSERT_EQ(RunRanks(0, args).exit_code, 0);
  const std::string want_out = ReadText(p.dir + "/out.jsonl");
  const std::string want_manifest = ManifestSansCost(p.dir + "/out.jsonl.manifest.json");
  for (int ranks : {2, 3}) {
    auto r = RunRanks(ranks, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadText(p.dir + "/out.jsonl"), want_out) << ranks << " ranks";
    EXPECT_EQ(ManifestSansCost(p.dir + "/out.jsonl.manifest.json"), want_manifest)
        << ranks << " ranks";
  }
}

// Files in `dir` whose names do not start with "pool" or "target" (outputs, temporaries).
std::vector<std::string> Outputs(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != ".." && n.rfind("pool", 0) != 0 && n.rfind("target", 0) != 0)
      names.push_back(n);
  }
  closedir(d);
  return names;
}

TEST(DistSelectFailure, ARankThatCannotReadItsShardFailsTheJobWithNoOutput) {
  Pool p = MakePool("dist_fail");
  // The last input is a .zst that is not zstd: it cannot be cut, so it goes whole to the rank
  // holding its first byte, the last rank; only that rank fails.
  WriteText(p.dir + "/pool-c.jsonl.zst", "this is not a zstd frame\n");
  const std::string args = "select --pool " + p.files + " " + p.dir +
                           "/pool-c.jsonl.zst --target " + p.target +
                           " --selector dsir --threads 1 --out " + p.dir + "/out.jsonl --ledger " +
                           p.dir + "/ledger.jsonl --quiet";
  for (int ranks : {2, 3}) {
    auto r = RunRanks(ranks, args);
    EXPECT_NE(r.exit_code, 0) << r.err;
    const std::string want = "rank " + std::to_string(ranks - 1) + ": " + p.dir +
                             "/pool-c.jsonl.zst: not a valid zstd stream";
    EXPECT_NE(r.err.find("preflight select: error: " + want), std::string::npos)
        << "stderr was: " << r.err;
    EXPECT_TRUE(Outputs(p.dir).empty()) << "left behind: " << Outputs(p.dir)[0];
  }
}

TEST(DistSelectFailure, ABadLineIsNamedByItsLineInTheWholeFile) {
  Pool p = MakePool("dist_bad_line");
  // Line 141 of the first file (which has two blank lines before it) lies past the middle and
  // the first third of the pool: a rank other than the first reads its shard.
  std::string a = ReadText(p.dir + "/pool-a.jsonl");
  size_t at = 0;
  for (int i = 0; i < 140; ++i) at = a.find('\n', at) + 1;
  const double where = static_cast<double>(at) /
                       static_cast<double>(a.size() + ReadText(p.dir + "/pool-b.jsonl").size());
  ASSERT_TRUE(where > 0.5 && where < 2.0 / 3) << where;
  a.insert(at, "{\"text\": \"unterminated\n");
  WriteText(p.dir + "/pool-a.jsonl", a);
  const std::string args = SelectArgs(p, "dsir");
  auto plain = RunRanks(0, args);
  ASSERT_EQ(plain.exit_code, 2) << plain.err;
  const std::string want = p.dir + "/pool-a.jsonl:141: malformed JSON";
  ASSERT_NE(plain.err.find("preflight select: error: " + want), std::string::npos) << plain.err;
  for (int ranks : {2, 3}) {
    auto r = RunRanks(ranks, args);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("preflight select: error: rank "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(": " + want), std::string::npos)
        << ranks << " ranks, stderr was: " << r.err;
    EXPECT_TRUE(Outputs(p.dir).empty()) << "left behind: " << Outputs(p.dir)[0];
  }
}

TEST(DistCommands, ACommandThatCannotShareItsWorkIsRefusedOnSeveralRanks) {
  const std::string dir = ScratchDir("dist_refuse");
  auto r = RunRanks(2, "ledger verify --ledger " + dir + "/ledger.jsonl");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("preflight ledger: error: this command does not run on several MPI ranks"),
            std::string::npos)
      << r.err;
}

TEST(DistTrial, TwoRanksGiveThePlainRunsResult) {
  const std::string dir = ScratchDir("dist_trial");
  testing::WritePlantedPool(dir, 160, 0.3, 20, 5);
  std::string eval;
  testing::TestRng rng(99);
  for (int i = 0; i < 48; ++i)
    eval += nlohmann::json{{"text", testing::MakeDoc(rng, "tg", 120)}}.dump() + "\n";
  WriteText(dir + "/eval.jsonl", eval);
  const std::string flags = "--pool " + dir + "/pool.jsonl --target-select " + dir +
                            "/target.jsonl --target-eval " + dir +
                            "/eval.jsonl --selector dsir --model tiny --seeds 2 --steps 20 "
                            "--eval-every 10 --eval-windows 16 --threads 1 --quiet --json";
  auto plain =
      RunRanks(0, "trial " + flags + " --out " + dir + "/plain --ledger " + dir + "/plain.ledger");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  auto spread =
      RunRanks(2, "trial " + flags + " --out " + dir + "/mpi --ledger " + dir + "/mpi.ledger");
  ASSERT_EQ(spread.exit_code, 0) << spread.err;
  auto a = nlohmann::json::parse(ReadText(dir + "/plain/result.json"));
  auto b = nlohmann::json::parse(ReadText(dir + "/mpi/result.json"));
  EXPECT_EQ(preflight::testing::WithoutMeasuredCosts(a).dump(2),
            preflight::testing::WithoutMeasuredCosts(b).dump(2));
  // Rank 0 alone printed the summary and appended the receipts: as many as the plain run's.
  auto summary = nlohmann::json::parse(spread.out);
  EXPECT_TRUE(summary.contains("receipt")) << spread.out;
  const std::string ledger = ReadText(dir + "/mpi.ledger");
  const std::string plain_ledger = ReadText(dir + "/plain.ledger");
  EXPECT_EQ(std::count(ledger.begin(), ledger.end(), '\n'),
            std::count(plain_ledger.begin(), plain_ledger.end(), '\n'));
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/mpi.ledger").exit_code, 0);
}

}  // namespace
}  // namespace preflight
