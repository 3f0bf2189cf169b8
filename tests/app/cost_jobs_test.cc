// The cost, plan, memory and fit jobs without the CLI: typed outcomes, their --json documents
// and their reports.

#include "app/cost_jobs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/cost_fit_job.h"
#include "app/cost_memory_job.h"
#include "app/cost_plan_job.h"
#include "testing/testing.h"

namespace preflight::app {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CostJob, NinetyDaysOnAThousandGpus) {
  CostRequest r;
  r.gpus = 1000;
  r.days = 90;
  r.price = 2;
  auto outcome = RunCost(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome->breakdown.compute_usd, 4320000.0);
  nlohmann::json doc = CostToJson(*outcome);
  EXPECT_EQ(doc["compute_usd"].get<double>(), 4320000.0);
  EXPECT_EQ(doc["price_source"], "given");
  EXPECT_FALSE(doc.contains("projection"));
  EXPECT_FALSE(doc.contains("receipt"));
  std::string text = CostText(*outcome);
  EXPECT_TRUE(Contains(text, "$4,320,000")) << text;
  EXPECT_TRUE(Contains(text, "assumptions:")) << text;
}

TEST(CostJob, BadInputIsAStatusNamingTheFlag) {
  CostRequest r;
  r.gpus = 1000;  // no --days
  auto outcome = RunCost(r);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(outcome.status().IsBadInput());
  EXPECT_TRUE(Contains(outcome.status().message(), "--days")) << outcome.status().message();
  r.days = 1;
  r.mfu = 1.5;
  outcome = RunCost(r);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(Contains(outcome.status().message(), "--mfu"));
}

TEST(CostJob, RecordAppendsAReceiptWhoseResultIsTheDocument) {
  std::string dir = testing::ScratchDir("cost_job_record");
  CostRequest r;
  r.gpus = 8;
  r.days = 1;
  r.saving = 0.25;
  r.record = true;
  r.ledger_path = dir + "/ledger.jsonl";
  auto outcome = RunCost(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  ASSERT_TRUE(outcome->receipt_hash.has_value());
  nlohmann::json line = nlohmann::json::parse(testing::ReadText(r.ledger_path));
  EXPECT_EQ(line["hash"], *outcome->receipt_hash);
  nlohmann::json doc = CostToJson(*outcome);
  EXPECT_EQ(doc["receipt"], *outcome->receipt_hash);
  doc.erase("receipt");
  EXPECT_EQ(line["result"], doc);
  EXPECT_EQ(line["config"]["saving"], 0.25);
}

TEST(PlanJob, EpochFitAtChinchillaCompute) {
  PlanRequest r;
  r.flops = 5.76e23;
  r.gpus = 1024;
  auto outcome = RunPlan(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  nlohmann::json doc = PlanToJson(*outcome);
  EXPECT_NEAR(doc["tokens_per_param"].get<double>(), 18.39, 0.01);
  EXPECT_EQ(doc["fit"]["name"], "epoch");
  EXPECT_FALSE(doc.contains("inference_aware"));
  EXPECT_TRUE(Contains(PlanText(*outcome), "20 tokens/param (rule)"));
}

TEST(PlanJob, OverriddenConstantsAreNamed) {
  PlanRequest r;
  r.params = 13e9;
  r.fit = "chinchilla";
  r.alpha = 0.336;
  r.beta = 0.283;
  r.inference_tokens = 2e12;
  auto outcome = RunPlan(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome->law.name, "chinchilla+overrides");
  nlohmann::json doc = PlanToJson(*outcome);
  EXPECT_NEAR(doc["inference_aware"]["by_flops"]["flops_saving"].get<double>(), 0.1745, 0.001);
  EXPECT_TRUE(Contains(PlanText(*outcome), "fewest dollars"));
}

TEST(PlanJob, UnknownLawIsBadInput) {
  PlanRequest r;
  r.flops = 1e23;
  r.fit = "kaplan";
  auto outcome = RunPlan(r);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().ExitCode(), 2);
}

TEST(CostJob, ParamsAndTokensPriceSixND) {
  CostRequest r;
  r.params = 70e9;
  r.tokens = 1.4e12;
  r.gpus = 1000;
  auto outcome = RunCost(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_DOUBLE_EQ(*outcome->flops, 5.88e23);
  nlohmann::json doc = CostToJson(*outcome);
  EXPECT_DOUBLE_EQ(doc["training_flops"]["flops"].get<double>(), 5.88e23);
  EXPECT_DOUBLE_EQ(doc["from_flops"]["flops"].get<double>(), 5.88e23);
  EXPECT_TRUE(Contains(CostText(*outcome), "(C = 6ND)"));
  r.tokens.reset();
  EXPECT_EQ(RunCost(r).status().ExitCode(), 2);
}

TEST(CostJob, PilotWithoutRegimeCheckHasNoDollarInterval) {
  std::string dir = testing::ScratchDir("cost_job_pilot");
  CostRequest r;
  r.gpus = 1000;
  r.days = 90;
  r.price = 2;
  r.saving_from = dir + "/result.json";
  testing::WriteText(r.saving_from, R"({"compute_saved": {"net": 0.31, "ci95": [0.2, 0.4]},
      "model": {"name": "tiny", "params": 1200000}, "budget_steps": 400})");
  auto outcome = RunCost(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  ASSERT_TRUE(outcome->pilot.has_value());
  EXPECT_EQ(outcome->interval_withheld, "no dollar interval: the pilot has no regime check");
  EXPECT_FALSE(outcome->projection->total_usd_saved_low.has_value());
  EXPECT_TRUE(Contains(CostText(*outcome), "no dollar interval: the pilot has no regime check"));

  testing::WriteText(r.saving_from, R"({"compute_saved": {"net": 0.31, "ci95": [0.2, 0.4]},
      "regime": {"informative": true, "margin": 0.2}})");
  outcome = RunCost(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome->interval_withheld, "");
  EXPECT_TRUE(outcome->projection->total_usd_saved_low.has_value());
  nlohmann::json doc = CostToJson(*outcome);
  EXPECT_EQ(doc["projection"]["rounded_2sf"]["compute_usd_saved"].get<double>(), 1300000);
  EXPECT_TRUE(Contains(CostText(*outcome), "compute about $1,300,000"));
}

TEST(PlanJob, ServingLoadNeedsRequests) {
  PlanRequest r;
  r.params = 7e9;
  r.prefill_tokens = 1000;
  auto outcome = RunPlan(r);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(Contains(outcome.status().message(), "--requests"));
  r.requests = 1e6;
  r.decode_tokens = 500;
  r.inference_dtype = "int8";
  outcome = RunPlan(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  nlohmann::json ia = PlanToJson(*outcome)["inference_aware"];
  EXPECT_EQ(ia["inference_dtype"], "int8");
  EXPECT_DOUBLE_EQ(ia["serving"]["reference"]["prefill"]["tokens"].get<double>(), 1e9);
  std::string text = PlanText(*outcome);
  EXPECT_TRUE(Contains(text, "prefill: 1e9 tokens x 2N")) << text;
  EXPECT_TRUE(Contains(text, "decode : 5e8 tokens x 2N")) << text;
}

TEST(MemoryJob, SixteenBytesPerParamAndFitOnAGpu) {
  MemoryRequest r;
  r.params = 7e9;
  r.shape.layers = 32;
  r.shape.hidden = 4096;
  r.shape.heads = 32;
  r.train.sequence = 4096;
  r.recompute = "full";
  r.gpu = "H100";
  auto outcome = RunMemory(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  nlohmann::json doc = MemoryToJson(*outcome);
  const nlohmann::json& t = doc["training"];
  EXPECT_DOUBLE_EQ(t["weights_bytes"].get<double>() + t["gradients_bytes"].get<double>() +
                       t["optimizer_bytes"].get<double>(),
                   16 * 7e9);
  EXPECT_EQ(doc["gpu"]["name"], "H100-SXM");
  EXPECT_FALSE(doc["gpu"]["training_fits"].get<bool>());  // 112 GB of state on an 80 GB GPU
  EXPECT_TRUE(Contains(MemoryText(*outcome), "does NOT fit"));
}

TEST(FitJob, FitsPointsFromACsvAndReportsProgress) {
  std::string dir = testing::ScratchDir("fit_job");
  std::string csv = "N,D,loss\n";
  for (double n : {1e8, 3e8, 1e9, 3e9}) {
    for (double tpp : {10, 20, 40}) {
      double d = n * tpp;
      double loss = 1.8172 + 482.01 / std::pow(n, 0.3478) + 2085.43 / std::pow(d, 0.3658);
      csv += std::to_string(n) + "," + std::to_string(d) + "," + std::to_string(loss) + "\n";
    }
  }
  FitRequest r;
  r.csv = dir + "/runs.csv";
  testing::WriteText(r.csv, csv);
  r.options.bootstrap = 0;
  r.out_path = dir + "/fit.json";
  std::string progress;
  r.progress = [&progress](const ProgressReport& p) { progress += p.note + "\n"; };
  auto outcome = RunFit(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_NEAR(outcome->fit.law.E, 1.8172, 0.01);
  EXPECT_TRUE(Contains(progress, "12 runs, 4500 starting points")) << progress;
  nlohmann::json written = nlohmann::json::parse(testing::ReadText(r.out_path));
  EXPECT_EQ(written, FitToJson(*outcome));
  EXPECT_EQ(written["source"]["kind"], "csv");
  EXPECT_TRUE(Contains(FitText(*outcome), "12 runs"));
}

TEST(FitJob, NeitherOrBothInputsIsBadInput) {
  FitRequest r;
  auto outcome = RunFit(r);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().ExitCode(), 2);
}

}  // namespace
}  // namespace preflight::app
