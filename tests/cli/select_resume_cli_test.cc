// A selection killed with SIGKILL resumes: the rerun of the same command reuses what finished and
// writes the bytes an uninterrupted run writes (doc/select.md, "A killed selection").

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/compress.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using testing::Exists;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

// Eight zstd (or plain) shards of the planted pool, and its target.
std::string MakePool(const std::string& dir, bool plain = false) {
  testing::WritePlantedPool(dir, 2400, 0.3, 40, 21);
  std::istringstream in(ReadText(dir + "/pool.jsonl"));
  std::vector<std::string> parts(8);
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) parts[i * 8 / 2400] += line + "\n";
  ::mkdir((dir + "/pool").c_str(), 0777);
  for (int k = 0; k < 8; ++k) {
    const std::string name = dir + "/pool/part-" + std::to_string(k) + ".jsonl";
    if (plain) {
      WriteText(name, parts[k]);
    } else {
      WriteText(name + ".zst", testing::ZstdOf(parts[k]));
    }
  }
  return dir + "/pool";
}

std::string SelectArgs(const std::string& dir, const std::string& out,
                       const std::string& selector = "dsir") {
  return "select --pool " + dir + "/pool --target " + dir + "/target.jsonl --selector " +
         selector + " --threads 1 --seed 4 --out " + dir + "/" + out + " --ledger " + dir +
         "/ledger.jsonl --quiet --json";
}

// The manifest's passes over the pool of the run that wrote `out`.
double Passes(const std::string& dir, const std::string& out) {
  std::string m = out;
  while (!m.empty() && m.back() == '/') m.pop_back();
  auto j = nlohmann::json::parse(ReadText(dir + "/" + m + ".manifest.json"));
  return j["cost"]["passes"][0]["passes"];
}

TEST(SelectResume, AKilledSelectionResumesToTheBytesOfAnUninterruptedRun) {
  const std::string dir = ScratchDir("select_resume");
  MakePool(dir);
  for (const std::string selector : {"dsir", "classifier"}) {
    const std::string ref = selector + ".ref.jsonl.zst", out = selector + ".jsonl.zst";
    ASSERT_EQ(RunCli(SelectArgs(dir, ref, selector)).exit_code, 0);
    EXPECT_EQ(Passes(dir, ref), selector == "dsir" ? 3 : 4);  // pool, (negatives,) score, write
    // Killed once a shard's scores are saved, and once a piece is written (the classifier, whose
    // training dominates its time, once).
    const std::vector<std::string> marks =
        selector == "dsir" ? std::vector<std::string>{"score-3", "piece-5"}
                           : std::vector<std::string>{"piece-5"};
    for (const std::string& mark : marks) {
      testing::KillCliOnceExists(SelectArgs(dir, out, selector), dir + "/" + out + ".partial/" + mark);
      const bool killed_midway = Exists(dir + "/" + out + ".partial");
      // An output never lacks its manifest; a kill between naming the two leaves the work
      // folder, which the rerun finishes from.
      if (Exists(dir + "/" + out)) EXPECT_TRUE(Exists(dir + "/" + out + ".manifest.json"));
      auto rerun = RunCli(SelectArgs(dir, out, selector));
      ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
      EXPECT_EQ(ReadText(dir + "/" + out), ReadText(dir + "/" + ref)) << selector << " " << mark;
      EXPECT_FALSE(Exists(dir + "/" + out + ".partial"));
      if (killed_midway) {
        EXPECT_LT(Passes(dir, out), Passes(dir, ref)) << selector << " " << mark;
      }
    }
  }
}

TEST(SelectResume, ARerunWithEveryPassDoneReadsEachShardOnceForItsHash) {
  const std::string dir = ScratchDir("select_resume_done");
  MakePool(dir);
  ASSERT_EQ(RunCli(SelectArgs(dir, "ref/")).exit_code, 0);
  // A run killed just before it names its outputs: everything is in its work folder.
  const std::string out = "kept/";
  testing::KillCliOnceExists(SelectArgs(dir, out), dir + "/kept.partial/out/part-7.jsonl.zst");
  if (!Exists(dir + "/kept.partial")) GTEST_SKIP() << "the run ended before it was killed";
  auto rerun = RunCli(SelectArgs(dir, out));
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  for (int k = 0; k < 8; ++k) {
    const std::string name = "/part-" + std::to_string(k) + ".jsonl.zst";
    EXPECT_EQ(ReadText(dir + "/kept" + name), ReadText(dir + "/ref" + name)) << name;
  }
  EXPECT_EQ(Passes(dir, out), 1);
}

TEST(SelectResume, AShardChangedSinceTheKilledRunIsReadAgain) {
  const std::string dir = ScratchDir("select_resume_changed");
  MakePool(dir, /*plain=*/true);
  for (const std::string selector : {"dsir", "random"}) {
    const std::string out = selector + ".jsonl", stale = selector + ".stale.jsonl";
    ASSERT_EQ(RunCli(SelectArgs(dir, stale, selector)).exit_code, 0);
    testing::KillCliOnceExists(SelectArgs(dir, out, selector),
                               dir + "/" + out + ".partial/piece-6");
    // Other bytes, the same size and modification time: only the file's hash tells.
    const std::string shard = dir + "/pool/part-2.jsonl";
    struct stat before;
    ASSERT_EQ(::stat(shard.c_str(), &before), 0);
    std::string body = ReadText(shard);
    for (size_t at = body.find("bg"); at != std::string::npos; at = body.find("bg", at + 1)) {
      body[at] = 't';  // background words made target-like
    }
    WriteText(shard, body);
    const timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, shard.c_str(), times, 0), 0);
    auto rerun = RunCli(SelectArgs(dir, out, selector));
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    ASSERT_EQ(RunCli(SelectArgs(dir, selector + ".fresh.jsonl", selector)).exit_code, 0);
    EXPECT_EQ(ReadText(dir + "/" + out), ReadText(dir + "/" + selector + ".fresh.jsonl"));
    EXPECT_NE(ReadText(dir + "/" + out), ReadText(dir + "/" + stale));
    // Put the shard back for the next selector.
    MakePool(dir, /*plain=*/true);
  }
}

TEST(SelectResume, TwoSelectionsDoNotWriteOneOutputAtOnce) {
  const std::string dir = ScratchDir("select_resume_lock");
  MakePool(dir);
  // A live holder of the work folder's lock: this test process.
  ::mkdir((dir + "/kept.jsonl.partial").c_str(), 0777);
  const int fd = ::open((dir + "/kept.jsonl.partial/lock").c_str(), O_RDWR | O_CREAT, 0666);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  auto r = RunCli(SelectArgs(dir, "kept.jsonl"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("another selection is writing " + dir + "/kept.jsonl"), std::string::npos)
      << r.err;
  ::close(fd);
  EXPECT_EQ(RunCli(SelectArgs(dir, "kept.jsonl")).exit_code, 0);
}

}  // namespace
}  // namespace preflight
