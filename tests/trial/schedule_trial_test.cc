// Schedule trials: the numbers on hand-made curves (savings on cumulative FLOPs, net of the
// trigger, early-stopped runs, the compute rule, fixed against adaptive), and one whole trial from
// the command line on a planted pool with a micro model.

#include <gtest/gtest.h>

#include <cmath>

#include "narrate/schedule_record.h"
#include "testing/planted.h"
#include "testing/testing.h"
#include "trial/result_json.h"
#include "trial/schedule_metrics.h"
#include "trial/schedule_runs.h"

namespace preflight::trial {
namespace {

using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;
using testing::MakeRun;

ScheduleTrialInputs Inputs(std::vector<ScheduleArm> arms) {
  ScheduleTrialInputs in;
  in.arms = std::move(arms);
  in.budget_steps = 40;
  in.bootstrap.resamples = 200;
  return in;
}

// Baseline: L* = 2.2 at step 40 after 4,000 FLOPs. The arm freezes at step 20 (steps then cost
// 60 instead of 100) and reaches 2.2 at step 40 after 3,200 FLOPs: gross 1 - 3200/4000 = 20%;
// net of a 100-FLOP trigger 1 - 3300/4000 = 17.5%. At its total of 3,200 FLOPs the baseline was
// at 2.5 - 0.2 * 0.3 = 2.44, so the arm is 0.24 bits per byte better at equal compute.
TEST(ScheduleMetrics, SavingsOnCumulativeFlopsNetOfTheTrigger) {
  const std::vector<double> base_bpb = {5, 4, 3, 2.5, 2.2};
  const std::vector<double> arm_bpb = {5, 4, 3, 2.6, 2.2};
  ScheduleArm base{{"baseline", "random", ""}, {}};
  ScheduleArm arm{{"a", "random", "freeze:blocks=0@adaptive:threshold=0.1"}, {}};
  for (uint64_t seed : {1, 2}) {
    base.runs.push_back(MakeRun(seed, base_bpb, 100, 100, -1));
    arm.runs.push_back(MakeRun(seed, arm_bpb, 100, 60, 20, 100));
  }
  auto r = ComputeScheduleTrial(Inputs({base, arm}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ScheduleComparison& c = r->comparisons.at(0);
  EXPECT_EQ(c.kind, "adaptive");
  EXPECT_DOUBLE_EQ(c.l_star, 2.2);
  EXPECT_DOUBLE_EQ(c.flops_baseline, 4000);
  EXPECT_DOUBLE_EQ(c.flops_arm, 3200);
  EXPECT_DOUBLE_EQ(c.gross, 0.2);
  EXPECT_DOUBLE_EQ(c.net, 1 - 3300.0 / 4000);
  EXPECT_DOUBLE_EQ(c.net_core_seconds, 1 - 3.3 / 4.0);
  EXPECT_DOUBLE_EQ(c.net_wall, 1 - 1.65 / 2.0);
  EXPECT_NEAR(c.loss_at_equal_compute, 2.2 - 2.44, 1e-12);
  EXPECT_DOUBLE_EQ(c.frozen_at, 20);
  EXPECT_EQ(c.frozen_runs, 2);
  ASSERT_EQ(c.per_seed.size(), 2u);
  EXPECT_DOUBLE_EQ(c.per_seed[0].gross, 0.2);
  // Identical seeds: every resample gives the same saving.
  EXPECT_DOUBLE_EQ(c.ci.gross.lo, 0.2);
  EXPECT_DOUBLE_EQ(c.ci.gross.hi, 0.2);

  // Interpolation on the FLOPs axis: crossing 2.3 between (3000 FLOPs, 2.5) and
  // (4000 FLOPs, 2.2)... for the arm, between (2600, 2.6) and (3200, 2.2): 3/4 of the way.
  Crossing x = CrossingOf(MeteredOf(arm.runs[0]), 2.3);
  EXPECT_DOUBLE_EQ(x.columns[kFlopsColumn], 2600 + 0.75 * 600);
  EXPECT_DOUBLE_EQ(x.step, 37.5);

  // The JSON view carries the DESIGN keys for the primary comparison.
  nlohmann::json j = ScheduleTrialResultToJson(*r);
  EXPECT_EQ(j["kind"], "schedule");
  EXPECT_DOUBLE_EQ(j["compute_saved"]["gross"].get<double>(), 0.2);
  EXPECT_TRUE(j["caught_up"].get<bool>());
}

TEST(ScheduleMetrics, EarlyStoppedRunsAreCarriedFlat) {
  ScheduleArm base{{"baseline", "random", ""}, {MakeRun(1, {5, 4, 3, 2.5, 2.2}, 100, 100, -1)}};
  ScheduleRun stopped = MakeRun(1, {5, 4, 3.5}, 100, 100, -1);
  stopped.stopped_early = true;
  ScheduleArm arm{{"stop", "random", "earlystop:patience=1"}, {stopped}};
  auto r = ComputeScheduleTrial(Inputs({base, arm}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ScheduleComparison& c = r->comparisons.at(0);
  EXPECT_EQ(c.kind, "earlystop");
  EXPECT_FALSE(c.caught_up);
  EXPECT_TRUE(std::isinf(c.gross));
  EXPECT_DOUBLE_EQ(c.total_flops_arm, 2000);
  EXPECT_EQ(r->mean_curves[1].bpb, (std::vector<double>{5, 4, 3.5, 3.5, 3.5}));
  // At 2,000 FLOPs the baseline was at 3.0: stopping cost 0.5 bits per byte at equal compute.
  EXPECT_DOUBLE_EQ(c.loss_at_equal_compute, 0.5);
  EXPECT_EQ(c.stopped_runs, 1);
}

TEST(ScheduleMetrics, BestFixedBesideAdaptive) {
  const std::vector<double> b = {5, 4, 3, 2.5, 2.2};
  ScheduleArm base{{"baseline", "random", ""}, {MakeRun(1, b, 100, 100, -1)}};
  ScheduleArm early{{"f1", "random", "freeze:blocks=0@0.25"},
                    {MakeRun(1, {5, 4, 3.2, 2.8, 2.5}, 100, 60, 10)}};
  ScheduleArm late{{"f2", "random", "freeze:blocks=0@0.75"}, {MakeRun(1, b, 100, 60, 30)}};
  ScheduleArm adaptive{{"ad", "random", "freeze:blocks=0@adaptive:threshold=0.1"},
                       {MakeRun(1, b, 100, 60, 30, 500)}};
  auto r = ComputeScheduleTrial(Inputs({base, early, late, adaptive}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  // f1 never reaches 2.2; f2 saves 1 - 3600/4000 = 10%; the adaptive arm froze at the same
  // step but paid 500 FLOPs for its trigger: 1 - 4100/4000 < 0. The fixed step won.
  EXPECT_EQ(r->verdict.best_fixed, 1);
  EXPECT_EQ(r->verdict.best_adaptive, 2);
  EXPECT_EQ(r->verdict.winner, "fixed");
  EXPECT_NE(narrate::ScheduleVerdictText(*r).find("selection on the eval set"), std::string::npos);
  narrate::ScheduleQuestion q{"brown:cj", "a random 25% of the pool", "tiny", 1000, 40, 1, 100};
  nlohmann::json record = narrate::BuildScheduleLabRecord(q, *r);
  for (const char* key : {"summary", "question", "falsifier", "finding"}) {
    EXPECT_FALSE(record[key].get<std::string>().empty()) << key;
  }
  EXPECT_NE(record["summary"].get<std::string>().find("fixed step won"), std::string::npos);
  EXPECT_NE(record["does_not_show"].dump().find("selection on the eval set"), std::string::npos);
}

TEST(ScheduleMetrics, ComputeRuleAllowsLessNeverMore) {
  std::vector<ScheduleRunCompute> ok = {{"baseline/seed-1", true, 100, 8, 40, 4000},
                                        {"a/seed-1", false, 100, 8, 40, 3200},
                                        {"stop/seed-1", false, 100, 8, 20, 2000}};
  EXPECT_TRUE(CheckScheduleCompute(ok, 40).ok());
  auto more = ok;
  more[1].flops = 4100;
  EXPECT_FALSE(CheckScheduleCompute(more, 40).ok());
  auto model = ok;
  model[1].flops_per_step = 120;
  EXPECT_FALSE(CheckScheduleCompute(model, 40).ok());
  auto short_base = ok;
  short_base[0].steps = 30;
  EXPECT_FALSE(CheckScheduleCompute(short_base, 40).ok());
  // Different eval steps from the baseline are refused too.
  ScheduleArm base{{"baseline", "random", ""}, {MakeRun(1, {5, 4, 3, 2.5, 2.2}, 100, 100, -1)}};
  ScheduleRun odd = MakeRun(1, {5, 4, 3, 2.5, 2.2}, 100, 100, -1);
  odd.curve.steps[2] = 25;
  ScheduleArm arm{{"a", "random", "freeze:blocks=0@0.5"}, {odd}};
  EXPECT_FALSE(ComputeScheduleTrial(Inputs({base, arm})).ok());
}

// A whole schedule trial from the command line: a 2-block micro model, 2 seeds, 60 steps, a
// fixed freeze of block 0 at half the steps beside an adaptive one. The fixed arm freezes at
// step 30 in every run, spends exactly 30 full and 30 frozen steps of FLOPs, and the receipt,
// result.json and report.html carry the comparison and the lab record.
TEST(ScheduleTrial, EndToEndFromTheCommandLine) {
  std::string dir = ScratchDir("schedule_trial");
  preflight::testing::WritePlantedPool(dir, 120, 0.3, 20, 5);
  preflight::testing::TestRng rng(7);
  std::string eval;
  for (int i = 0; i < 10; ++i) {
    eval += nlohmann::json{{"text", preflight::testing::MakeDoc(rng, "tg", 120)}}.dump() + "\n";
  }
  WriteText(dir + "/eval.jsonl", eval);
  std::string flags =
      "--pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
      dir +
      "/eval.jsonl --seeds 2 --steps 60 --eval-every 10 --eval-windows 32 --layers 2 --d-model 32 "
      "--heads 2 --context 32 --batch 8 --threads 1 --lr 0.003 --quiet --json "
      "--arm-b 'freeze:blocks=0@adaptive:threshold=0.2,window=10' --sweep 'freeze:blocks=0@0.5'";
  auto run = RunCli("trial " + flags + " --out " + dir + "/out --ledger " + dir + "/ledger");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out["kind"], "schedule");
  ASSERT_EQ(out["comparisons"].size(), 2u);
  const nlohmann::json& adaptive = out["comparisons"][0];
  const nlohmann::json& fixed = out["comparisons"][1];
  EXPECT_EQ(adaptive["kind"], "adaptive");
  EXPECT_EQ(fixed["schedule"], "freeze:blocks=0@0.5");
  EXPECT_DOUBLE_EQ(fixed["frozen_at"].get<double>(), 30);
  EXPECT_EQ(fixed["frozen_runs"], 2);
  // Exact FLOPs from the shapes: block 0 and the embeddings frozen in a 2-block model.
  nlohmann::json result = nlohmann::json::parse(ReadText(dir + "/out/result.json"));
  double full = 0, frozen_total = 0, base_total = 0;
  for (const auto& r : result["compute"]["runs"]) {
    full = r["flops_per_step"].get<double>();
    if (r["run"].get<std::string>().rfind("freeze-blocks-0-at-0.5/", 0) == 0) {
      frozen_total = r["flops"].get<double>();
    }
    if (r["run"].get<std::string>().rfind("baseline/", 0) == 0)
      base_total = r["flops"].get<double>();
  }
  const double C = 32, T = 32, tokens = 8 * 32;
  const double saved_per_step = (4 * (12 * C * C + 13 * C) + 8 * T * C + 4 * C) * tokens;
  EXPECT_DOUBLE_EQ(base_total, 60 * full);
  EXPECT_DOUBLE_EQ(frozen_total, 60 * full - 30 * saved_per_step);
  EXPECT_DOUBLE_EQ(fixed["flops"]["total_arm"].get<double>(), frozen_total);
  EXPECT_GT(adaptive["trigger"]["flops"].get<double>(), 0);
  EXPECT_FALSE(out["verdict"]["text"].get<std::string>().empty());
  EXPECT_FALSE(out["lab_record"]["falsifier"].get<std::string>().empty());
  const std::string html = ReadText(dir + "/out/report.html");
  EXPECT_NE(html.find("id=\"schedules\""), std::string::npos);
  EXPECT_NE(html.find("freeze:blocks=0@0.5"), std::string::npos);
  EXPECT_NE(html.find("id=\"lab-record\""), std::string::npos);
  // The regime check: the one data file's n-gram scores against the baseline's L*, every arm.
  const nlohmann::json& regime = out["regime"];
  ASSERT_TRUE(regime.is_object()) << out.dump();
  EXPECT_EQ(regime["baseline_arm"], "baseline");
  EXPECT_EQ(regime["l_star"], out["l_star"]);
  EXPECT_EQ(regime["arms"].size(), 3u);
  EXPECT_EQ(regime["arms"]["baseline"], regime["arms"]["freeze-blocks-0-at-0.5"]);
  EXPECT_EQ(result["regime"], regime);
  EXPECT_NE(html.find("<section id=\"regime\""), std::string::npos);
  EXPECT_TRUE(out["lab_record"]["regime"].is_string());
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/ledger").exit_code, 0);

  // The same command again reuses every run and gives the same numbers.
  auto again = RunCli("trial " + flags + " --out " + dir + "/out --ledger " + dir + "/ledger");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  nlohmann::json out2 = nlohmann::json::parse(again.out);
  EXPECT_EQ(out2["reused_runs"], 6);
  EXPECT_EQ(out2["comparisons"][1]["compute_saved"]["gross"], fixed["compute_saved"]["gross"]);
  // Bad schedules are usage errors naming the schedule.
  auto bad = RunCli("trial " + flags + " --arm-b 'freeze:blocks=0-5@0.5' --out " + dir + "/bad");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("freeze:blocks=0-5@0.5"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace preflight::trial
