// A ladder reads its inputs once for its first rung: the ladder's own check (trial::CheckTrial,
// before anything is written) hands what it read to rung 1's trial, which would otherwise parse
// the pool and the target again. Shown as in tests/trial/input_check_test.cc: T_sel is spoiled
// after the ladder's check and mended once rung 1 trains; a rung 1 that read T_sel again would
// stop at the spoiled line. A keep ladder's rung 1 selects every fraction from those same passes.

#include <gtest/gtest.h>

#include <string>

#include "app/ladder_job.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::app {
namespace {

using preflight::testing::ReadText;
using preflight::testing::ReplaceLine;
using preflight::testing::WriteText;

LadderRung Micro(int64_t steps) {
  LadderRung r;
  r.model_name = "micro";
  r.model.layers = 1;
  r.model.d_model = 32;
  r.model.heads = 2;
  r.model.context = 32;
  r.model.batch = 4;
  r.steps = steps;
  return r;
}

// Runs the ladder of `keeps` with T_sel spoiled between the ladder's check and rung 1's
// training: it finishes only when every selection of rung 1 took the check's passes.
void ExpectRungOneReadsNothingAgain(const std::string& name, const std::vector<double>& keeps) {
  const std::string dir = testing::ScratchDir(name);
  testing::WritePlantedPool(dir, 120, 0.3, 12, 5);
  WriteText(dir + "/eval.jsonl", ReadText(dir + "/target.jsonl"));
  LadderRequest r;
  r.base.pool = {dir + "/pool.jsonl"};
  r.base.target_select = dir + "/target.jsonl";
  r.base.target_eval = dir + "/eval.jsonl";
  r.base.selector = "dsir";
  r.base.seeds = 1;
  r.base.eval_max_windows = 16;
  r.base.threads = 1;
  r.rungs = {Micro(10), Micro(20), Micro(40)};
  r.out_dir = dir + "/ladder";
  r.ledger_path = dir + "/ledger.jsonl";
  SetKeeps(keeps, r.base);

  const std::string good = ReadText(r.base.target_select);
  bool spoiled = false, mended = false;
  TrialObserver observer;
  observer.note = [&](const std::string& line) {
    if (line.rfind("ladder: rung 1 of", 0) == 0) {  // after the ladder's check, before rung 1
      ReplaceLine(r.base.target_select, 2, "{\"id\": \"t\", \"text\": [1]}");
      spoiled = true;
    }
  };
  observer.progress = [&](const ProgressReport& p) {
    if (spoiled && !mended && p.stage.rfind("train", 0) == 0) {  // rung 1 is training
      WriteText(r.base.target_select, good);
      mended = true;
    }
  };
  auto job = RunLadderJob(r, observer);
  ASSERT_TRUE(spoiled && mended);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_EQ(job->rungs.size(), 3u);
  if (keeps.size() > 1) {  // a keep ladder: every fraction selected from the same passes
    ASSERT_TRUE(job->rungs[0].keep.has_value());
    EXPECT_EQ(job->rungs[0].keep->keeps.size(), keeps.size());
  }
  // Without the check handed on, rung 1's own check stops at the spoiled line.
  ReplaceLine(r.base.target_select, 2, "{\"id\": \"t\", \"text\": [1]}");
  r.out_dir = dir + "/again";
  auto again = RunLadderJob(r, {});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find(r.base.target_select + ":2:"), std::string::npos)
      << again.status().message();
}

TEST(LadderReadsOnce, RungOneTakesOverTheLaddersCheck) {
  ExpectRungOneReadsNothingAgain("ladder_reads_once", {0.25});
}

TEST(LadderReadsOnce, AKeepLaddersFractionsShareThePoolsFirstPass) {
  ExpectRungOneReadsNothingAgain("ladder_reads_once_keeps", {0.1, 0.3});
}

}  // namespace
}  // namespace preflight::app
