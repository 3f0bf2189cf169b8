// Builtin runs side by side (trial/concurrent_runs.h): the same numbers as one run at a time, a
// kill in the middle of two runs resumes to them, and the pool passes every result on and stops
// at the first failure.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "testing/planted.h"
#include "testing/testing.h"
#include "testing/trial_result.h"
#include "engine/config.h"
#include "trial/concurrent_runs.h"

namespace preflight::trial {
namespace {

using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;

TEST(ConcurrentRuns, AutoIsOneRunPerThreadForModelsUnderHalfAMillionParameters) {
  TrialConfig c;
  c.threads = 2;
  c.model = engine::NamedModel("tiny").value();
  EXPECT_EQ(RunsAtOnce(c), 2);
  c.threads = 1;
  EXPECT_EQ(RunsAtOnce(c), 1);
  c.threads = 2;
  c.model = engine::NamedModel("small").value();
  EXPECT_GE(engine::ParamCount(c.model), 500'000);
  EXPECT_EQ(RunsAtOnce(c), 1);
  c.runs_at_once = 3;  // asked for: as given, whatever the model
  EXPECT_EQ(RunsAtOnce(c), 3);
  c.runs_at_once = 0;
  c.model = engine::NamedModel("tiny").value();
  c.schedules = {"freeze:embeddings@0.5"};  // a schedule trial compares wall time: one at a time
  EXPECT_EQ(RunsAtOnce(c), 1);
}

TEST(ConcurrentRuns, EveryResultReachesTheCallerOnItsThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::set<int> got;
  Status st = RunConcurrently(
      9, 3, [](int i) -> Result<std::string> { return std::to_string(i * i); },
      [&](int i, const std::string& out) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_EQ(out, std::to_string(i * i));
        got.insert(i);
        return Status::Ok();
      });
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(got.size(), 9u);
}

TEST(ConcurrentRuns, TheFirstFailureStopsNewRunsAndTheFinishedOnesAreKept) {
  std::mutex mu;
  std::set<int> started, kept;
  Status st = RunConcurrently(
      20, 2,
      [&](int i) -> Result<std::string> {
        {
          std::lock_guard<std::mutex> lock(mu);
          started.insert(i);
        }
        if (i == 3) return Status::IOError("run 3 broke");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return std::string("ok");
      },
      [&](int i, const std::string&) {
        kept.insert(i);
        return Status::Ok();
      });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("run 3 broke"), std::string::npos) << st.message();
  EXPECT_LT(started.size(), 20u);  // stopped: only the run beside it went on
  for (int i : started) {
    if (i != 3) {
      EXPECT_TRUE(kept.count(i)) << "run " << i << " finished but was not passed on";
    }
  }
  // A failure of the caller's own (recording a result) is the one returned.
  st = RunConcurrently(
      6, 2, [](int) -> Result<std::string> { return std::string("ok"); },
      [&](int, const std::string&) { return Status::IOError("disk full"); });
  EXPECT_EQ(st.message(), "disk full");
}

// Two runs at a time, killed while both train, resumed: the numbers of one run at a time.
TEST(ConcurrentRuns, KilledSideBySideResumesToTheResultOfOneAtATime) {
  const std::string dir = ScratchDir("concurrent_kill");
  preflight::testing::WritePlantedPool(dir, 200, 0.3, 20, 8);
  const std::string flags =
      "--pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
      dir + "/target.jsonl --selector dsir --seeds 2 --steps 400 --eval-every 20 " +
      "--eval-windows 64 --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 2 " +
      "--quiet --json";
  auto one = RunCli("trial " + flags + " --runs-at-once 1 --out " + dir + "/one --ledger " + dir +
                    "/one.ledger");
  ASSERT_EQ(one.exit_code, 0) << one.err;

  // Both first runs train at once: wait for the second's checkpoint, then kill without warning.
  ASSERT_TRUE(preflight::testing::KillCliOnceExists(
      "trial " + flags + " --runs-at-once 2 --out " + dir + "/two --ledger " + dir + "/two.ledger",
      dir + "/two/runs/random-s2/checkpoint.bin"))
      << "the trial never reached its second run";
  ASSERT_FALSE(Exists(dir + "/two/result.json")) << "killed too late: the trial had finished";
  // Side by side: the first run was not yet finished (recorded) when the second checkpointed.
  const auto at_kill = nlohmann::json::parse(ReadText(dir + "/two/trial.json"));
  EXPECT_FALSE(at_kill.contains("runs") && at_kill["runs"].contains("random-s1"))
      << "the runs trained one after another";

  auto resumed = RunCli("trial " + flags + " --runs-at-once 2 --out " + dir + "/two --ledger " +
                        dir + "/two.ledger");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto a = nlohmann::json::parse(ReadText(dir + "/one/result.json"));
  auto b = nlohmann::json::parse(ReadText(dir + "/two/result.json"));
  EXPECT_EQ(preflight::testing::WithoutMeasuredCosts(a).dump(),
            preflight::testing::WithoutMeasuredCosts(b).dump());
  // Each run side by side was charged its own thread's time: positive, and no more than its wall
  // time (one thread cannot use more).
  const auto manifest = nlohmann::json::parse(ReadText(dir + "/two/trial.json"));
  ASSERT_EQ(manifest["runs"].size(), 4u);
  for (const auto& [key, run] : manifest["runs"].items()) {
    const double cpu = run["train_core_seconds"].get<double>();
    const double wall = run["train_seconds"].get<double>();
    EXPECT_GT(cpu, 0) << key;
    EXPECT_LE(cpu, wall * 1.05 + 0.05) << key << ": charged its neighbour's time too";
  }
}

}  // namespace
}  // namespace preflight::trial
