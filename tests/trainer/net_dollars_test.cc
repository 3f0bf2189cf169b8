// A launched trainer's net saving in dollars (doc/trainers.md, "What a launched run costs"),
// through `preflight trial --trainer cmd` with the fake trainer (fake_trainer.h): the receipt's
// net is checked against a hand computation from the receipt's own numbers, each price says where
// it came from, a new price reuses every run, and the price flags' errors exit 2.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "fake_trainer.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::trainer::net_dollars_test {
namespace {

using preflight::testing::CliResult;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

// A launched trial on the fake trainer (its run.json states 0.01 s of training per run) in
// dir/out with `extra` flags.
CliResult Trial(const std::string& dir, const std::string& out, const std::string& extra) {
  return RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                "/target.jsonl --target-eval " + dir +
                "/eval.jsonl --selector dsir --seeds 2 --steps 40 --eval-every 4 "
                "--eval-windows 16 --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 "
                "--threads 1 --quiet --json --ledger " +
                dir + "/ledger.jsonl --out " + dir + "/" + out +
                " --trainer cmd --trainer-cmd '/usr/bin/python3 " +
                preflight::testing::WriteFakeTrainer(dir) + " --run-json'" + extra);
}

// The result of the ledger's last receipt (the trial's).
nlohmann::json LastReceiptResult(const std::string& dir) {
  std::istringstream in(ReadText(dir + "/ledger.jsonl"));
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  const nlohmann::json receipt = nlohmann::json::parse(last);
  EXPECT_EQ(receipt["kind"], "trial");
  return receipt["result"];
}

double Num(const nlohmann::json& j) { return j.get<double>(); }

// 1 - (t_C f + c_C) / (t_R f + c_R): the net as doc/design.md ("Compute saved") defines it, in any
// one unit.
double Net(double t_arm, double t_baseline, double f, double c_arm, double c_baseline) {
  return 1 - (t_arm * f + c_arm) / (t_baseline * f + c_baseline);
}

TEST(NetDollars, TheReceiptsNetIsTheHandComputationFromItsOwnNumbers) {
  const std::string dir = ScratchDir("net_dollars_hand");
  preflight::testing::WritePlantedTrial(dir, 51);
  const CliResult r = Trial(dir, "run", " --price 2.5 --cpu-price 0.05");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json res = LastReceiptResult(dir);
  const nlohmann::json& trainer = res["trainer"];
  ASSERT_EQ(trainer["net_unit"], "USD");
  EXPECT_EQ(trainer["prices"]["device_hour"]["usd"], 2.5);
  EXPECT_EQ(trainer["prices"]["device_hour"]["source"], "--price");
  EXPECT_EQ(trainer["prices"]["core_hour"]["usd"], 0.05);
  EXPECT_EQ(trainer["prices"]["core_hour"]["source"], "--cpu-price");

  // The prices applied to the receipt's seconds: a step's charged seconds at the device-hour's
  // price, each arm's selection (and forecast) core-seconds at the core-hour's.
  const double step_usd = Num(trainer["step_usd"]);
  EXPECT_NEAR(step_usd, Num(trainer["step_seconds"]) * 2.5 / 3600, 1e-15);
  const nlohmann::json& cost = res["comparisons"][0]["cost"];
  const double arm_usd = Num(cost["arm_usd"]), baseline_usd = Num(cost["baseline_usd"]);
  EXPECT_NEAR(arm_usd, Num(cost["arm_core_seconds"]) * 0.05 / 3600, 1e-15);
  EXPECT_NEAR(baseline_usd, Num(cost["baseline_core_seconds"]) * 0.05 / 3600, 1e-15);
  ASSERT_GT(arm_usd, 0) << "the selection's measured cost must enter the net";

  // The headline net and every seed pair's, by hand from the receipt's own numbers.
  ASSERT_TRUE(res["caught_up"].get<bool>());
  const double t_c = Num(res["t_curated"]), t_r = Num(res["t_random"]);
  const double net = Num(res["compute_saved"]["net"]);
  EXPECT_NEAR(net, Net(t_c, t_r, step_usd, arm_usd, baseline_usd), 1e-12);
  for (const nlohmann::json& p : res["compute_saved"]["per_seed"]) {
    EXPECT_NEAR(Num(p["net"]),
                Net(Num(p["t_arm"]), Num(p["t_baseline"]), step_usd, arm_usd, baseline_usd), 1e-12)
        << "seed " << p["seed"];
  }
  // Not the old rule (selection core-seconds 1:1 against the run's seconds): at a device-hour
  // 50 times a core-hour the selection weighs 50 times less.
  const double seconds_net = Net(t_c, t_r, Num(trainer["step_seconds"]),
                                 Num(cost["arm_core_seconds"]), Num(cost["baseline_core_seconds"]));
  EXPECT_GT(net, seconds_net + 1e-6);

  // The same in --json, result.json, trial.json (the prices kept with the run) and the report.
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["compute_saved"]["net"], res["compute_saved"]["net"]);
  EXPECT_EQ(doc["trainer"]["step_usd"], trainer["step_usd"]);
  const nlohmann::json manifest = nlohmann::json::parse(ReadText(dir + "/run/trial.json"));
  EXPECT_EQ(manifest["prices"], trainer["prices"]);
  EXPECT_NE(ReadText(dir + "/run/report.html").find("net is in dollars"), std::string::npos);
  EXPECT_NE(res["lab_record"]["finding"].get<std::string>().find("per device-hour"),
            std::string::npos);
}

TEST(NetDollars, ANewPriceReusesEveryRunAndMovesOnlyTheNet) {
  const std::string dir = ScratchDir("net_dollars_reprice");
  preflight::testing::WritePlantedTrial(dir, 52);
  ASSERT_EQ(Trial(dir, "run", " --price 2.5").exit_code, 0);
  const nlohmann::json before = LastReceiptResult(dir);
  const CliResult again = Trial(dir, "run", " --price 0.5");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["reused_runs"], 4);
  const nlohmann::json after = LastReceiptResult(dir);
  EXPECT_EQ(after["trainer"]["prices"]["device_hour"]["usd"], 0.5);
  EXPECT_EQ(after["compute_saved"]["gross"], before["compute_saved"]["gross"]);
  // A cheaper device-hour makes the same selection a larger share: the net falls.
  EXPECT_LT(Num(after["compute_saved"]["net"]), Num(before["compute_saved"]["net"]));
}

TEST(NetDollars, WithoutPriceFlagsEachPriceSaysWhereItCameFrom) {
  const std::string dir = ScratchDir("net_dollars_defaults");
  preflight::testing::WritePlantedTrial(dir, 53);
  ASSERT_EQ(Trial(dir, "cpu", "").exit_code, 0);
  const nlohmann::json cpu = LastReceiptResult(dir)["trainer"]["prices"];
  // --device cpu: the run's threads (1) at the CPU core-hour price, whose source is stated.
  EXPECT_EQ(cpu["device_hour"]["usd"], cpu["core_hour"]["usd"]);
  EXPECT_NE(cpu["device_hour"]["source"].get<std::string>().find("--device cpu: 1 threads"),
            std::string::npos);
  EXPECT_NE(cpu["core_hour"]["source"].get<std::string>().find("AWS"), std::string::npos);
  // --device cuda: the catalogue's default GPU; --gpu: the GPU named.
  ASSERT_EQ(Trial(dir, "cuda", " --device cuda").exit_code, 0);
  const nlohmann::json cuda = LastReceiptResult(dir)["trainer"]["prices"];
  EXPECT_NE(cuda["device_hour"]["source"].get<std::string>().find("the catalogue's H100-SXM"),
            std::string::npos);
  ASSERT_EQ(Trial(dir, "h200", " --gpu h200").exit_code, 0);
  const nlohmann::json h200 = LastReceiptResult(dir)["trainer"]["prices"];
  EXPECT_EQ(h200["device_hour"]["source"].get<std::string>().rfind("--gpu H200 (", 0), 0u);
  EXPECT_NE(h200["device_hour"]["usd"], cuda["device_hour"]["usd"]);
}

TEST(NetDollars, PriceFlagsThatCannotBeUsedExitTwo) {
  const std::string dir = ScratchDir("net_dollars_usage");
  preflight::testing::WritePlantedTrial(dir, 54);
  const CliResult zero = Trial(dir, "zero", " --price 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--price must be a price in dollars > 0"), std::string::npos) << zero.err;
  const CliResult unknown = Trial(dir, "unknown", " --gpu Z80");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("H100-SXM"), std::string::npos) << unknown.err;  // what it knows
  // The builtin engine's net is in core-seconds: a price means nothing to it.
  const CliResult builtin =
      RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl" +
             " --target-eval " + dir + "/eval.jsonl --out " + dir + "/builtin --gpu H200 --quiet" +
             " --ledger " + dir + "/ledger.jsonl");
  EXPECT_EQ(builtin.exit_code, 2);
  EXPECT_NE(builtin.err.find("builtin engine's net is in core-seconds"), std::string::npos)
      << builtin.err;
}

}  // namespace
}  // namespace preflight::trainer::net_dollars_test
