// A ladder reuses a finished trial of the same arms and config (app/rung_reuse.h): the rung that
// is that trial trains nothing and gets exactly the runs a fresh rung would have trained; a
// trial of the same arms at another scale lends rung 1 its arms; a trial of other arms lends
// nothing. Through the binary, with a very small model.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::rung_reuse_cli_test {
namespace {

using nlohmann::json;
using testing::RunCli;

const char* kModel = "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1";

std::string Flags(const std::string& dir) {
  return "--pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
         dir + "/eval.jsonl --seeds 2 --eval-windows 32 " + kModel + " --quiet --ledger " + dir +
         "/ledger.jsonl";
}

void WriteInputs(const std::string& dir) {
  testing::WritePlantedPool(dir, 300, 0.3, 16, 9);
  testing::TestRng rng(77);
  std::string eval;
  for (int i = 0; i < 10; ++i)
    eval += json{{"text", testing::MakeDoc(rng, "tg", 150)}}.dump() + "\n";
  testing::WriteText(dir + "/eval.jsonl", eval);
}

json ReadJson(const std::string& path) { return json::parse(testing::ReadText(path)); }

ino_t Inode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

json Ladder(const std::string& dir, const std::string& out) {
  auto r = RunCli("ladder " + Flags(dir) + " --rungs tiny:20,tiny:40,tiny:80 --json --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

TEST(RungReuseCli, ALadderBesideAFinishedTrialTrainsItsRunsOnlyOnce) {
  const std::string dir = testing::ScratchDir("rung_reuse");
  WriteInputs(dir);
  // The trial (with its forecast) beside the ladder, at rung 2's scale; one of other arms too.
  auto trial = RunCli("trial " + Flags(dir) + " --steps 40 --out " + dir + "/runs/trial");
  ASSERT_EQ(trial.exit_code, 0) << trial.err;
  auto other = RunCli("trial " + Flags(dir) + " --keep 0.5 --steps 40 --out " + dir + "/runs/half");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  const json ladder = Ladder(dir, dir + "/runs/ladder");
  ASSERT_TRUE(ladder.is_object());

  // Rung 2 is the trial: its runs are the trial's, and it trained none of its own.
  const json trial_folder = ReadJson(dir + "/runs/trial/trial.json");
  const json rung2 = ReadJson(dir + "/runs/ladder/rung-2-tiny-40/trial.json");
  EXPECT_EQ(rung2["runs"], trial_folder["runs"]);
  EXPECT_FALSE(testing::Exists(dir + "/runs/ladder/rung-2-tiny-40/runs/curated-s1"));
  EXPECT_TRUE(testing::Exists(dir + "/runs/ladder/rung-3-tiny-80/runs/curated-s1"));
  // Its own accounting: no forecast is charged to a rung, and its receipt is its own.
  EXPECT_EQ(rung2["forecast_core_seconds"], 0);
  EXPECT_EQ(rung2["config"]["forecast"], "");
  EXPECT_NE(ladder["rungs"][1]["trial_receipt"],
            ReadJson(dir + "/runs/trial/result.json")["receipt"]);
  // Rung 1 (another scale) took the trial's arms instead of selecting them again.
  for (const char* arm : {"curated", "random"}) {
    EXPECT_EQ(Inode(dir + "/runs/ladder/rung-1-tiny-20/arms/" + std::string(arm) + ".jsonl"),
              Inode(dir + "/runs/trial/arms/" + std::string(arm) + ".jsonl"))
        << arm;
  }

  // The same ladder where no trial lies beside it trains every rung, to the same curves.
  const std::string alone = testing::ScratchDir("rung_reuse_alone");
  WriteInputs(alone);
  const json fresh = Ladder(alone, alone + "/ladder");
  ASSERT_TRUE(fresh.is_object());
  EXPECT_TRUE(testing::Exists(alone + "/ladder/rung-2-tiny-40/runs/curated-s1"));
  const json fresh2 = ReadJson(alone + "/ladder/rung-2-tiny-40/trial.json");
  ASSERT_EQ(fresh2["runs"].size(), rung2["runs"].size());
  for (auto& [key, run] : fresh2["runs"].items()) {
    EXPECT_EQ(run["curve"].size(), rung2["runs"][key]["curve"].size()) << key;
    for (size_t i = 0; i < run["curve"].size(); ++i) {
      EXPECT_EQ(run["curve"][i]["eval_bpb"], rung2["runs"][key]["curve"][i]["eval_bpb"]) << key;
    }
  }
  EXPECT_EQ(fresh["rungs"][1]["compute_saved"]["gross"],
            ladder["rungs"][1]["compute_saved"]["gross"]);
}

}  // namespace
}  // namespace preflight::rung_reuse_cli_test
