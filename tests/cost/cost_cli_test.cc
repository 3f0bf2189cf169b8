// The cost, plan, fit and memory subcommands through the built binary: exit codes, --json
// documents with the keys of doc/design.md, and the messages users see for bad input.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "base/file.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using nlohmann::json;

struct CliRun {
  int rc = -1;
  std::string out, err;
};

std::string Dir() {
  // One folder per test process: CTest runs tests in parallel, each in its own process.
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/cost_cli." + std::to_string(::getpid());
  EXPECT_TRUE(MakeDirectories(dir).ok());
  return dir;
}

std::string Scratch(const std::string& name, const std::string& text) {
  std::string path = Dir() + "/" + name;
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

// Runs `preflight ARGS` from a folder outside the source tree (the catalogue is compiled in).
CliRun Preflight(const std::string& args) {
  testing::CliResult run = testing::RunCli(args, "/");
  CliRun r;
  r.rc = run.exit_code;
  r.out = run.out;
  r.err = run.err;
  return r;
}

json ParseJson(const CliRun& r) {
  json doc = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << "stdout is not one JSON document:\n" << r.out;
  return doc;
}

TEST(CostCli, KnownAnswerAndDesignKeys) {
  CliRun r = Preflight("cost --gpus 1000 --days 90 --price 2 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_EQ(doc["compute_usd"].get<double>(), 4320000.0);
  ASSERT_TRUE(doc["components"].is_array());
  double total = doc["compute_usd"].get<double>();
  for (const json& c : doc["components"]) {
    EXPECT_TRUE(c.contains("name") && c.contains("usd") && c.contains("assumption")) << c;
    EXPECT_FALSE(c["assumption"].get<std::string>().empty());
    if (c["in_total"].get<bool>()) total += c["usd"].get<double>();
  }
  EXPECT_NEAR(doc["total_usd"].get<double>(), total, 1e-6);
  // The human report still goes somewhere a person sees it: stderr, under --json.
  EXPECT_NE(r.err.find("$4,320,000"), std::string::npos) << r.err;
}

TEST(CostCli, HumanReportOnStdout) {
  CliRun r = Preflight("cost --gpus 1000 --days 90 --price 2");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("$4,320,000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("energy"), std::string::npos);
  EXPECT_NE(r.out.find("failed experiments and restarts"), std::string::npos);
}

TEST(CostCli, FromFlops) {
  CliRun r = Preflight("cost --from-flops 5.88e23 --gpu H100-SXM --mfu 0.4 --gpus 1000 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  double gpu_hours = 5.88e23 / (989e12 * 0.4) / 3600;
  EXPECT_NEAR(doc["gpu_hours"].get<double>(), gpu_hours, 1e-6 * gpu_hours);
  EXPECT_NEAR(doc["compute_usd"].get<double>(), gpu_hours * 2.99, 1e-6 * gpu_hours);
  // Without a cluster size or a run length the wall clock is unknown.
  EXPECT_EQ(Preflight("cost --from-flops 5.88e23 --gpu H100-SXM --mfu 0.4").rc, 2);
}

TEST(CostCli, ProjectionFromAReceiptSaysWhatItRestsOn) {
  std::string receipt = Scratch("receipt.json", R"({"kind": "trial",
      "config": {"selector": "dsir", "model": "tiny", "steps": 400},
      "result": {"compute_saved": {"gross": 0.4, "net": 0.31, "ci95": [0.2, 0.4]}}})");
  CliRun r = Preflight("cost --gpus 1000 --days 90 --price 2 --saving-from " + receipt + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  ASSERT_TRUE(doc.contains("projection"));
  EXPECT_EQ(doc["projection"]["rests_on"]["quantity"], "compute_saved.net");
  EXPECT_DOUBLE_EQ(doc["projection"]["rests_on"]["value"].get<double>(), 0.31);
  EXPECT_NEAR(doc["projection"]["compute_usd_saved"].get<double>(), 0.31 * 4320000, 1e-6);
  EXPECT_NE(r.err.find("projection"), std::string::npos);

  CliRun human = Preflight("cost --gpus 1000 --days 90 --price 2 --saving 0.35");
  ASSERT_EQ(human.rc, 0) << human.err;
  size_t heading = human.out.find("\nprojection\n");
  ASSERT_NE(heading, std::string::npos) << human.out;
  EXPECT_NE(human.out.find("rests on", heading), std::string::npos);
  EXPECT_NE(human.out.find("$1,512,000", heading), std::string::npos) << human.out;
}

TEST(CostCli, RecordAppendsACostReceiptNamingTheTrialReceipt) {
  std::string receipt = Scratch("receipt_for_record.json",
                                R"({"kind": "trial", "result": {"compute_saved": {"net": 0.2}}})");
  std::string ledger = Dir() + "/record_ledger.jsonl";
  std::remove(ledger.c_str());
  CliRun r = Preflight("cost --gpus 64 --days 10 --saving-from " + receipt + " --record --ledger " +
                       ledger + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  ASSERT_TRUE(doc.contains("receipt"));
  json line = json::parse(ReadFileToString(ledger).value());
  EXPECT_EQ(line["kind"], "cost");
  EXPECT_EQ(line["hash"], doc["receipt"]);
  EXPECT_EQ(line["inputs"][0]["path"], receipt);
  EXPECT_EQ(line["result"]["projection"]["rests_on"]["value"], 0.2);
  // Without --record nothing is written.
  std::remove(ledger.c_str());
  ASSERT_EQ(Preflight("cost --gpus 64 --days 10 --ledger " + ledger).rc, 0);
  EXPECT_FALSE(PathExists(ledger));
}

TEST(CostCli, BadInputExitsTwoWithAMessage) {
  const char* bad[] = {
      "cost --gpus 0 --days 90 --price 2",
      "cost --gpus -5 --days 90 --price 2",
      "cost --gpus 1000 --days 0 --price 2",
      "cost --gpus 1000 --days -3 --price 2",
      "cost --gpus 1000 --days 90 --price 0",
      "cost --gpus 1000 --days 90 --price -1",
      "cost --from-flops 1e23 --gpus 8 --mfu 0",
      "cost --from-flops 1e23 --gpus 8 --mfu 1.5",
      "cost --gpus 1000 --days 90 --saving 1.2",
      "cost --gpus 1000 --days 90 --saving-from /nonexistent/receipt.json",
      "cost --gpus 1000",
      "cost --gpus 8 --days 1 --mfu 2",
      "cost --from-flops 1e23 --gpus 8 --days 3",
  };
  for (const char* args : bad) {
    CliRun r = Preflight(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
  }
}

TEST(CostCli, UnknownGpuListsTheKnownOnes) {
  CliRun r = Preflight("cost --gpus 8 --days 1 --gpu V100");
  EXPECT_EQ(r.rc, 2);
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-SXM", "H200", "B200"}) {
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
  }
}

TEST(PlanCli, EpochDefaultWithDesignKeys) {
  CliRun r = Preflight("plan --flops 5.76e23 --gpu H100-SXM --gpus 1024 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  for (const char* key : {"params", "tokens", "tokens_per_param", "loss", "flops", "days", "usd"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_NEAR(doc["params"].get<double>(), 7.2e10, 0.05e10);
  EXPECT_NEAR(doc["tokens"].get<double>(), 1.33e12, 0.005e12);
  EXPECT_NEAR(doc["tokens_per_param"].get<double>(), 18.4, 0.05);
  EXPECT_NEAR(doc["rule_of_20"]["tokens_per_param"].get<double>(), 20, 1e-9);
  double gpu_hours = 5.76e23 / (989e12 * 0.4) / 3600;
  EXPECT_NEAR(doc["days"].get<double>(), gpu_hours / 1024 / 24, 1e-9 * gpu_hours);
  EXPECT_NEAR(doc["usd"].get<double>(), gpu_hours * 2.99, 1e-6 * gpu_hours);
  EXPECT_EQ(doc["fit"]["name"], "epoch");
}

TEST(PlanCli, ChinchillaPrintedFitAndTheTwentyRuleLabelled) {
  CliRun r = Preflight("plan --flops 5.76e23 --fit chinchilla");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("92.6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20 tokens/param (rule)"), std::string::npos) << r.out;
}

TEST(PlanCli, InferenceAwareSardanaExample) {
  CliRun r = Preflight(
      "plan --fit chinchilla --alpha 0.336 --beta 0.283 --params 13e9 --inference-tokens 2e12 "
      "--json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  const json& by_flops = doc["inference_aware"]["by_flops"];
  EXPECT_NEAR(by_flops["chosen"]["params"].get<double>(), 7.0e9, 0.05e9);
  EXPECT_NEAR(by_flops["flops_saving"].get<double>(), 0.17, 0.005);
  EXPECT_TRUE(doc["inference_aware"].contains("by_dollars"));
}

TEST(PlanCli, BudgetInDollars) {
  CliRun r = Preflight("plan --budget-usd 1e6 --gpu H200 --gpus 256 --price 3 --mfu 0.5 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_NEAR(doc["usd"].get<double>(), 1e6, 1e-3);
  EXPECT_NEAR(doc["flops"].get<double>(), 1e6 / 3 * 3600 * 989e12 * 0.5, 1e12);
}

TEST(PlanCli, BadInputExitsTwo) {
  const char* bad[] = {
      "plan --budget-usd 0.000001 --gpu H100-SXM --gpus 8",  // too small for any model
      "plan --budget-usd -5 --gpus 8",
      "plan --flops 1e23 --mfu 0",
      "plan --flops 1e23 --mfu 1.01",
      "plan --flops 1e23 --gpus 0",
      "plan --flops 1e23 --gpu TPUv5",
      "plan --flops 1e23 --fit kaplan",
      "plan --gpus 8",  // no budget
  };
  for (const char* args : bad) {
    CliRun r = Preflight(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  EXPECT_NE(Preflight(bad[0]).err.find("budget too small"), std::string::npos);
}

TEST(PlanCli, FixedOverTrainedPointAnswersForThatPoint) {
  CliRun r = Preflight("plan --params 7e9 --tokens 2e12 --gpus 512 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_EQ(doc["params"].get<double>(), 7e9);
  EXPECT_EQ(doc["tokens"].get<double>(), 2e12);
  EXPECT_DOUBLE_EQ(doc["flops"].get<double>(), 8.4e22);
  EXPECT_NEAR(doc["tokens_per_param"].get<double>(), 285.7, 0.05);
  EXPECT_EQ(doc["fixed_point"], true);
  EXPECT_DOUBLE_EQ(doc["compute_optimal"]["flops"].get<double>(), 8.4e22);
  EXPECT_GT(doc["compute_optimal"]["params"].get<double>(), 7e9);
  EXPECT_NE(r.err.find("given (--params, --tokens)"), std::string::npos) << r.err;
  // --params alone still means the compute-optimal tokens for 7B.
  json optimal = ParseJson(Preflight("plan --params 7e9 --json"));
  EXPECT_LT(optimal["tokens"].get<double>(), 2e12);
  EXPECT_FALSE(optimal.contains("fixed_point"));
  EXPECT_EQ(Preflight("plan --tokens 2e12 --flops 1e22").rc, 2);
}

TEST(PlanCli, ServingLoadWithPrefillAndDecodeLines) {
  CliRun r = Preflight(
      "plan --params 7e9 --tokens 2e12 --requests 1e6 --prefill-tokens 1000 --decode-tokens 500 "
      "--prefill-mfu 0.5 --decode-mfu 0.1 --inference-dtype fp8 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json ia = ParseJson(r)["inference_aware"];
  EXPECT_DOUBLE_EQ(ia["inference_tokens"].get<double>(), 1.5e9);
  EXPECT_EQ(ia["inference_dtype"], "fp8");
  EXPECT_DOUBLE_EQ(ia["inference_peak_ops_per_gpu"].get<double>(), 1979e12);
  EXPECT_FALSE(ia.contains("inference_mfu"));
  const json& reference = ia["serving"]["reference"];
  EXPECT_DOUBLE_EQ(reference["prefill"]["flops"].get<double>(), 1.4e19);
  EXPECT_DOUBLE_EQ(reference["decode"]["flops"].get<double>(), 7e18);
  double decode_hours = 7e18 / (1979e12 * 0.1) / 3600;
  EXPECT_NEAR(reference["decode"]["gpu_hours"].get<double>(), decode_hours, 1e-9);
  EXPECT_TRUE(ia["serving"].contains("by_flops") && ia["serving"].contains("by_dollars"));
  EXPECT_NE(r.err.find("prefill: 1e9 tokens x 2N = 1.4e19 FLOPs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("decode : 5e8 tokens x 2N = 7e18 FLOPs"), std::string::npos) << r.err;

  CliRun int8 = Preflight(
      "plan --params 7e9 --requests 1e6 --prefill-tokens 100 --decode-tokens 100 --gpu TPU-v5e "
      "--inference-dtype int8 --json");
  ASSERT_EQ(int8.rc, 0) << int8.err;
  EXPECT_DOUBLE_EQ(ParseJson(int8)["inference_aware"]["inference_peak_ops_per_gpu"].get<double>(),
                   393e12);
  const char* bad[] = {
      "plan --params 7e9 --inference-tokens 1e12 --gpu A100-80GB --inference-dtype fp8",
      "plan --params 7e9 --inference-tokens 1e12 --inference-dtype fp4",
      "plan --params 7e9 --prefill-tokens 1000",
      "plan --params 7e9 --requests 1e6 --inference-tokens 1e12 --prefill-tokens 10",
      "plan --params 7e9 --requests 1e6",
      "plan --params 7e9 --requests 1e6 --decode-tokens 10 --decode-mfu 0",
  };
  for (const char* args : bad) {
    CliRun b = Preflight(args);
    EXPECT_EQ(b.rc, 2) << args << "\n" << b.err;
    EXPECT_FALSE(b.err.empty()) << args;
  }
  EXPECT_NE(Preflight(bad[0]).err.find("--inference-dtype fp8"), std::string::npos);
}

// Sardana et al.'s calculator's cost example (tests/cost/plan_loss_test.cc says where it is
// published): the cheapest model of loss 1.947 for 1e10 requests of 1,000 + 250 tokens.
TEST(PlanCli, LossTargetWithAServingLoadIsSardanasCostExample) {
  CliRun r = Preflight(
      "plan --fit chinchilla --alpha 0.336 --beta 0.283 --loss 1.947 --gpu A100-80GB --price 1.40 "
      "--mfu 0.5 --inference-gpu A100-40GB --inference-dtype int8 --inference-price 0.60 "
      "--requests 1e10 --prefill-tokens 1000 --decode-tokens 250 --prefill-mfu 0.4 "
      "--decode-mfu 0.2 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_EQ(doc["target_loss"].get<double>(), 1.947);
  EXPECT_NEAR(doc["loss"].get<double>(), 1.947, 1e-12);
  const json& cheapest = doc["inference_aware"]["by_dollars"];
  EXPECT_NEAR(cheapest["chosen"]["params"].get<double>() / 2.053e10, 1, 5e-4);
  EXPECT_NEAR(cheapest["chosen"]["tokens"].get<double>() / 3.302e12, 1, 5e-4);
  EXPECT_NEAR(100 * cheapest["params_share"].get<double>(), 60.23, 0.005);
  EXPECT_NEAR(100 * cheapest["tokens_share"].get<double>(), 182.41, 0.005);
  EXPECT_NEAR(100 * cheapest["chosen_lifetime_usd"].get<double>() /
                  cheapest["reference_lifetime_usd"].get<double>(),
              88.76, 0.005);
  EXPECT_NE(r.err.find("plan for loss 1.947"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("60.23% of the parameters and 182.41% of the tokens"), std::string::npos)
      << r.err;

  for (const char* bad :
       {"plan --loss 1.5", "plan --loss 1.947 --flops 1e23", "plan --loss 1.947 --params 7e9",
        "plan --loss 1.947 --tokens 1e12", "plan --loss 25"}) {
    CliRun b = Preflight(bad);
    EXPECT_EQ(b.rc, 2) << bad << "\n" << b.err;
    EXPECT_FALSE(b.err.empty()) << bad;
  }
  EXPECT_NE(Preflight("plan --loss 1.5").err.find("irreducible loss E"), std::string::npos);
}

TEST(FitCli, FitsACsvAndFeedsPlan) {
  std::string csv = "N,D,loss\n";
  for (double n : {1e8, 3e8, 1e9, 3e9}) {
    for (double tpp : {10, 20, 40}) {
      double d = n * tpp;
      double loss = 1.8172 + 482.01 / std::pow(n, 0.3478) + 2085.43 / std::pow(d, 0.3658);
      csv += std::to_string(n) + "," + std::to_string(d) + "," + std::to_string(loss) + "\n";
    }
  }
  std::string path = Scratch("runs.csv", csv);
  std::string fit_json = Dir() + "/fit.json";
  CliRun r = Preflight("fit --csv " + path + " --bootstrap 10 --out " + fit_json + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_NEAR(doc["law"]["E"].get<double>(), 1.8172, 0.01);
  EXPECT_NEAR(doc["law"]["alpha"].get<double>(), 0.3478, 0.01);
  EXPECT_EQ(doc["points"], 12);
  EXPECT_EQ(doc["intervals"]["beta"].size(), 2u);
  CliRun plan = Preflight("plan --flops 5.76e23 --law-json " + fit_json + " --json");
  ASSERT_EQ(plan.rc, 0) << plan.err;
  EXPECT_NEAR(ParseJson(plan)["tokens_per_param"].get<double>(), 18.4, 0.5);
}

TEST(FitCli, BadInputExitsTwo) {
  std::string nan_csv = Scratch("nan.csv", "N,D,loss\n1e8,2e9,3.0\n2e8,4e9,NaN\n");
  CliRun nan_run = Preflight("fit --csv " + nan_csv);
  EXPECT_EQ(nan_run.rc, 2);
  EXPECT_NE(nan_run.err.find(nan_csv + ":3"), std::string::npos) << nan_run.err;
  std::string few = Scratch("few.csv", "1e8,2e9,3.0\n2e8,4e9,2.9\n4e8,8e9,2.8\n8e8,1e10,2.7\n");
  CliRun few_run = Preflight("fit --csv " + few);
  EXPECT_EQ(few_run.rc, 2);
  EXPECT_NE(few_run.err.find("at least 5"), std::string::npos) << few_run.err;
  EXPECT_EQ(Preflight("fit").rc, 2);
  EXPECT_EQ(Preflight("fit --csv /nonexistent.csv").rc, 2);
}

TEST(MemoryCli, SixteenBytesPerParamAndInt4) {
  CliRun r = Preflight(
      "memory --params 7e9 --layers 32 --hidden 4096 --heads 32 --seq 4096 --recompute full "
      "--json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  const json& t = doc["training"];
  EXPECT_DOUBLE_EQ(t["weights_bytes"].get<double>() + t["gradients_bytes"].get<double>() +
                       t["optimizer_bytes"].get<double>(),
                   16 * 7e9);
  EXPECT_DOUBLE_EQ(t["activations_bytes"].get<double>(), 32 * 2.0 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(doc["inference"]["weights_bytes"]["int4"].get<double>(), 0.5 * 7e9);
}

TEST(MemoryCli, BadInputExitsTwo) {
  const char* bad[] = {
      "memory --layers 32 --hidden 4096 --heads 30",
      "memory --layers 32 --hidden 4096 --heads 32 --zero 5",
      "memory --layers 32 --hidden 4096 --heads 32 --recompute sometimes",
      "memory --layers 32 --hidden 4096 --heads 32 --gpus 12 --tensor-parallel 8",
      "memory --layers 32 --hidden 4096 --heads 32 --gpu K80",
      "memory --hidden 4096 --heads 32",
  };
  for (const char* args : bad) {
    CliRun r = Preflight(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
  }
}

TEST(CostCli, ParamsAndTokensGiveSixNDFlops) {
  // Chinchilla: 70B parameters on 1.4T tokens, C = 6ND = 5.88e23 FLOPs.
  CliRun r = Preflight(
      "cost --params 70e9 --tokens 1.4e12 --gpu H100-SXM --mfu 0.4 --gpus 1000 "
      "--json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_DOUBLE_EQ(doc["training_flops"]["flops"].get<double>(), 5.88e23);
  EXPECT_EQ(doc["training_flops"]["formula"], "C = 6ND");
  double gpu_hours = 5.88e23 / (989e12 * 0.4) / 3600;
  EXPECT_NEAR(doc["gpu_hours"].get<double>(), gpu_hours, 1e-6 * gpu_hours);
  EXPECT_NE(r.err.find("5.88e23 training FLOPs (C = 6ND)"), std::string::npos) << r.err;
  for (const char* args : {"cost --params 70e9 --gpus 1000", "cost --tokens 1e12 --gpus 8",
                           "cost --params 70e9 --tokens 1.4e12",
                           "cost --params 70e9 --tokens 1.4e12 --from-flops 1e23 --gpus 8",
                           "cost --params -1 --tokens 1e12 --gpus 8"}) {
    CliRun bad = Preflight(args);
    EXPECT_EQ(bad.rc, 2) << args << "\n" << bad.err;
    EXPECT_FALSE(bad.err.empty()) << args;
  }
}

TEST(CostCli, NewAcceleratorsPriceAndTpusHaveNoEnergyGuess) {
  CliRun r = Preflight("cost --gpus 256 --days 10 --gpu tpu-v5p --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc = ParseJson(r);
  EXPECT_EQ(doc["gpu"], "TPU-v5p");
  EXPECT_EQ(doc["components"][0]["name"], "energy");
  EXPECT_EQ(doc["components"][0]["usd"].get<double>(), 0);
  for (const char* gpu : {"MI300X", "L40S", "H100-PCIe", "TPU-v5e"}) {
    EXPECT_EQ(Preflight(std::string("cost --gpus 8 --days 1 --gpu ") + gpu).rc, 0) << gpu;
  }
}

std::string PilotResult(const std::string& name, const std::string& regime) {
  return Scratch(name, R"({"compute_saved": {"net": 0.31, "ci95": [0.2, 0.4]},
      "budget_steps": 400, "model": {"name": "tiny", "params": 1200000},
      "compute": {"runs": [{"tokens": 3276800}]})" +
                           regime + "}");
}

TEST(CostCli, SavingFromAnInformativePilotRoundsDollarsAndGivesTheInterval) {
  std::string path = PilotResult("informative.json", R"(, "regime": {"informative": true,
      "margin": 0.21})");
  CliRun r = Preflight("cost --gpus 1000 --days 90 --price 2 --saving-from " + path + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json p = ParseJson(r)["projection"];
  EXPECT_EQ(p["pilot"]["model"], "tiny");
  EXPECT_EQ(p["pilot"]["params"], 1200000);
  EXPECT_EQ(p["pilot"]["steps"], 400);
  EXPECT_EQ(p["regime"]["informative"], true);
  EXPECT_EQ(p["rounded_2sf"]["total_usd_saved"].get<double>(), 1700000);
  EXPECT_EQ(p["rounded_2sf"]["total_usd_saved_ci95"][0].get<double>(), 1100000);
  EXPECT_TRUE(p.contains("total_usd_saved_ci95"));
  EXPECT_FALSE(p.contains("dollar_interval_withheld"));
  // The report: the pilot's scale and regime beside the dollars, two significant figures.
  EXPECT_NE(r.err.find("pilot: the tiny pilot (1.20M params, 400 steps, 3.28M tokens per run); "
                       "regime: informative"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("projected savings for this run, from the tiny pilot"), std::string::npos);
  EXPECT_NE(r.err.find("total about $1,700,000 (95% interval about $1,100,000 to about "
                       "$2,200,000)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("$1,700,040"), std::string::npos) << "unrounded dollars:\n" << r.err;
}

TEST(CostCli, SavingFromAnUninformativeOrUncheckedPilotGivesNoDollarInterval) {
  std::string uninformative =
      PilotResult("uninformative.json", R"(, "regime": {"informative": false, "margin": -0.02})");
  CliRun r =
      Preflight("cost --gpus 1000 --days 90 --price 2 --saving-from " + uninformative + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json p = ParseJson(r)["projection"];
  EXPECT_FALSE(p.contains("total_usd_saved_ci95"));
  EXPECT_FALSE(p.contains("rounded_2sf"));
  EXPECT_EQ(p["dollar_interval_withheld"],
            "no dollar interval: the pilot's regime check calls it uninformative");
  EXPECT_NE(r.err.find("no dollar interval: the pilot's regime check calls it uninformative"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("not a projection the pilot supports"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("95% interval $"), std::string::npos) << r.err;

  CliRun unchecked = Preflight("cost --gpus 1000 --days 90 --price 2 --saving-from " +
                               PilotResult("none.json", ""));
  ASSERT_EQ(unchecked.rc, 0) << unchecked.err;
  EXPECT_NE(unchecked.out.find("no dollar interval: the pilot has no regime check"),
            std::string::npos)
      << unchecked.out;
  EXPECT_NE(unchecked.out.find("regime: not checked"), std::string::npos) << unchecked.out;
}

TEST(CostCli, DamagedResultExitsTwoNamingTheFileAndPath) {
  std::string wrong = Scratch("damaged.json", R"({"compute_saved": {"net": "0.31"}})");
  CliRun r = Preflight("cost --gpus 8 --days 1 --saving-from " + wrong);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(wrong + ": $.compute_saved.net: expected a number"), std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
  std::string truncated = Scratch("truncated.json", R"({"compute_saved": {"net": 0.31)");
  CliRun t = Preflight("cost --gpus 8 --days 1 --saving-from " + truncated);
  EXPECT_EQ(t.rc, 2);
  EXPECT_NE(t.err.find(truncated + ": not valid JSON"), std::string::npos) << t.err;
}

// A keep ladder's document (doc/ladder.md), with its recommendation as given.
std::string LadderFile(const std::string& name, const json& recommendation) {
  return Scratch(
      name,
      json{{"rungs", json::array()}, {"recommendation", recommendation}, {"receipt", "abc123"}}
          .dump());
}

TEST(CostCli, FromLadderPricesTheRecommendedFractionsRunAndPlanCountsItsEpochs) {
  const std::string ladder =
      LadderFile("ladder.json", {{"flops", 1e21},
                                 {"keep", 0.1},
                                 {"interval", {0.05, 0.2}},
                                 {"extrapolated", true},
                                 {"reason", "the trend of the best fraction over 3 rungs"}});
  // cost: the run the fraction was recommended for (1e21 FLOPs), the fraction beside it.
  CliRun c = Preflight("cost --from-ladder " + ladder + " --gpus 8 --json");
  ASSERT_EQ(c.rc, 0) << c.err;
  json doc = ParseJson(c);
  EXPECT_DOUBLE_EQ(doc["from_flops"]["flops"].get<double>(), 1e21);
  EXPECT_DOUBLE_EQ(doc["keep"]["keep"].get<double>(), 0.1);
  EXPECT_EQ(doc["keep"]["interval"], json({0.05, 0.2}));
  EXPECT_EQ(doc["keep"]["extrapolated"], true);
  EXPECT_EQ(doc["keep"]["receipt"], "abc123");
  EXPECT_NE(c.err.find("keep 10% of the pool (95% 5% to 20%)"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("EXTRAPOLATION"), std::string::npos) << c.err;
  // --from-flops wins over the ladder's compute; the fraction stays beside it.
  json other =
      ParseJson(Preflight("cost --from-ladder " + ladder + " --from-flops 2e21 --gpus 8 --json"));
  EXPECT_DOUBLE_EQ(other["from_flops"]["flops"].get<double>(), 2e21);
  EXPECT_DOUBLE_EQ(other["keep"]["keep"].get<double>(), 0.1);

  // plan: the compute-optimal run at 1e21 FLOPs, and with a pool, its epochs over the kept part:
  // D / (0.1 x pool tokens).
  CliRun p = Preflight("plan --from-ladder " + ladder + " --pool-tokens 1e11 --json");
  ASSERT_EQ(p.rc, 0) << p.err;
  json plan = ParseJson(p);
  EXPECT_NEAR(plan["flops"].get<double>(), 1e21, 1e21 * 1e-9);
  EXPECT_DOUBLE_EQ(plan["keep"]["kept_tokens"].get<double>(), 1e10);
  EXPECT_NEAR(plan["keep"]["epochs"].get<double>(), plan["tokens"].get<double>() / 1e10, 1e-9);
  EXPECT_EQ(plan["keep"]["repeats"], plan["keep"]["epochs"].get<double>() > 4);
}

TEST(CostCli, FromLadderRefusesALadderThatRecommendsNothing) {
  const std::string refused = LadderFile(
      "refused.json", {{"flops", 1e12},
                       {"keep", nullptr},
                       {"interval", nullptr},
                       {"extrapolated", false},
                       {"reason", "every rung learned no more than byte n-gram statistics"}});
  for (const char* cmd : {"cost --gpus 1 --from-ladder ", "plan --from-ladder "}) {
    CliRun r = Preflight(cmd + refused);
    EXPECT_EQ(r.rc, 2) << cmd << r.err;
    EXPECT_NE(r.err.find("recommends no fraction: every rung learned no more"), std::string::npos)
        << r.err;
  }
  const std::string one_keep = Scratch("one.json", json{{"rungs", json::array()}}.dump());
  CliRun r = Preflight("cost --gpus 1 --from-ladder " + one_keep);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no recommendation"), std::string::npos) << r.err;
}

TEST(CostCommandsCli, HelpExitsZero) {
  for (const char* cmd : {"cost", "plan", "fit", "memory"}) {
    CliRun r = Preflight(std::string(cmd) + " --help");
    EXPECT_EQ(r.rc, 0) << cmd;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace preflight
