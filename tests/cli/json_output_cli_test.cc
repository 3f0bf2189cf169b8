// `--json` prints exactly one JSON document on stdout (issue 42, item 4): every subcommand that
// `preflight --help` lists and has a --json flag (demo has none), and the flag combinations that
// change what is printed, on tiny inputs. The whole of stdout is parsed: nothing before or after
// the document but whitespace. Where a command fails on bad input its stdout stays empty, except
// where it promises a JSON answer for that case too (`ledger verify` of a damaged ledger).

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

// The smallest model the runs here train; a trial's budget (a ladder's rungs name their steps).
const std::string kTiny = " --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1 ";
const std::string kRungs = kTiny + " --eval-windows 16 --seeds 2 --eval-every 4 --quiet ";
const std::string kTrial = kRungs + " --steps 12 ";

// Runs `preflight <args>` and expects exit code `code` and one JSON document on stdout.
nlohmann::json ExpectOneDocument(const std::string& args, int code = 0) {
  const CliResult r = RunCli(args);
  EXPECT_EQ(r.exit_code, code) << "preflight " << args << "\nstderr: " << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out))
      << "preflight " << args << "\nstdout is not one JSON document:\n"
      << r.out << "\nstderr: " << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// A bad-input run under --json: exit 2 and nothing at all on stdout (the error is on stderr).
void ExpectNothingOnStdout(const std::string& args) {
  const CliResult r = RunCli(args);
  EXPECT_EQ(r.exit_code, 2) << "preflight " << args << "\nstderr: " << r.err;
  EXPECT_EQ(r.out, "") << "preflight " << args;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
}

// The inputs of a small trial in `dir` (planted.h) and the flags that name them.
std::string TrialInputs(const std::string& dir, uint64_t seed) {
  testing::WritePlantedTrial(dir, seed);
  return " --pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
         dir + "/eval.jsonl --selector dsir --ledger " + dir + "/ledger.jsonl ";
}

TEST(JsonOutput, CostPlanFitMemory) {
  const std::string dir = ScratchDir("json_cost");
  ExpectOneDocument("cost --gpus 8 --days 2 --json");
  ExpectOneDocument("cost --gpus 8 --params 1e9 --tokens 2e10 --saving 0.2 --json");
  ExpectOneDocument("cost --gpus 8 --from-flops 1e21 --owned --json");
  ExpectOneDocument("cost --gpus 8 --days 1 --record --ledger " + dir + "/ledger.jsonl --json");
  ExpectOneDocument("plan --flops 1e21 --json");
  ExpectOneDocument("plan --budget-usd 100000 --gpus 64 --json");
  ExpectOneDocument("plan --params 1e9 --tokens 2e10 --inference-tokens 1e12 --json");
  ExpectOneDocument(
      "plan --flops 1e21 --requests 1e9 --prefill-tokens 500 --decode-tokens 200 "
      "--json");
  ExpectOneDocument("memory --layers 2 --hidden 64 --heads 4 --json");
  ExpectOneDocument(
      "memory --layers 24 --hidden 2048 --heads 16 --zero 3 --gpus 8 --gpu "
      "H100-SXM --json");
  std::string csv = "N,D,loss\n";
  for (double n : {1e8, 3e8, 1e9, 3e9}) {
    for (double tokens_per_param : {10, 20, 40}) {
      const double d = n * tokens_per_param;
      csv += std::to_string(n) + "," + std::to_string(d) + "," +
             std::to_string(1.8 + 480 / std::pow(n, 0.35) + 2000 / std::pow(d, 0.37)) + "\n";
    }
  }
  WriteText(dir + "/runs.csv", csv);
  ExpectOneDocument("fit --csv " + dir + "/runs.csv --bootstrap 5 --out " + dir +
                    "/law.json --json");
  ExpectOneDocument("plan --flops 1e21 --law-json " + dir + "/law.json --json");
  ExpectNothingOnStdout("cost --gpus -1 --days 2 --json");
  ExpectNothingOnStdout("fit --csv " + dir + "/missing.csv --json");
  ExpectNothingOnStdout("memory --layers 0 --hidden 64 --heads 4 --json");
}

TEST(JsonOutput, CorpusStatsAndSelect) {
  const std::string dir = ScratchDir("json_select");
  testing::WritePlantedPool(dir, 40, 0.3, 5, 3);
  const std::string inputs = " --pool " + dir + "/pool.jsonl --target " + dir +
                             "/target.jsonl --quiet --ledger " + dir + "/ledger.jsonl --json";
  ExpectOneDocument("corpus stats " + dir + "/pool.jsonl --json");
  ExpectOneDocument("select" + inputs + " --selector dsir --out " + dir + "/kept.jsonl");
  ExpectOneDocument("select" + inputs + " --selector dsir --out " + dir + "/kept/");
  ExpectOneDocument("select" + inputs + " --selector random --out " + dir + "/random.jsonl.zst");
  WriteText(dir + "/bad.jsonl", "{\"text\": \"cut off\n");
  ExpectNothingOnStdout("corpus stats " + dir + "/missing.jsonl --json");
  ExpectNothingOnStdout("select --pool " + dir + "/bad.jsonl --target " + dir +
                        "/target.jsonl --selector dsir --quiet --json --out " + dir +
                        "/never.jsonl --ledger " + dir + "/ledger.jsonl");
}

TEST(JsonOutput, TrainAndScore) {
  const std::string dir = ScratchDir("json_train");
  const std::string inputs = TrialInputs(dir, 5);
  ExpectOneDocument("train --data " + dir + "/pool.jsonl --eval " + dir + "/eval.jsonl" + kTiny +
                    "--steps 8 --quiet --json --ledger " + dir + "/ledger.jsonl --out " + dir +
                    "/train");
  ExpectNothingOnStdout("train --data " + dir + "/missing.jsonl --eval " + dir + "/eval.jsonl" +
                        kTiny + "--steps 8 --quiet --json --ledger " + dir +
                        "/ledger.jsonl --out " + dir + "/train2");
  // score reads curves made elsewhere: here a trial's own.
  const std::string trial = dir + "/trial";
  ExpectOneDocument("trial" + inputs + kTrial + "--json --out " + trial);
  auto curves = [&](const std::string& arm) {
    return trial + "/runs/" + arm + "-s1/curve.jsonl " + trial + "/runs/" + arm + "-s2/curve.jsonl";
  };
  ExpectOneDocument("score --curated " + curves("curated") + " --random " + curves("random") +
                    " --json --ledger " + dir + "/ledger.jsonl --out " + dir + "/scored");
  ExpectNothingOnStdout("score --curated " + dir + "/missing.jsonl --random " + curves("random") +
                        " --json --ledger " + dir + "/ledger.jsonl --out " + dir + "/scored2");
}

TEST(JsonOutput, ForecastAndCalibrate) {
  const std::string dir = ScratchDir("json_forecast");
  const std::string inputs = TrialInputs(dir, 7);
  const std::string forecast = "forecast --pool " + dir + "/pool.jsonl --target-select " + dir +
                               "/target.jsonl --selector dsir" + kTiny +
                               "--steps 12 --quiet --json";
  ExpectOneDocument(forecast + " --ledger " + dir + "/ledger.jsonl");
  std::string loud = forecast;  // with its progress on stderr
  loud.erase(loud.find("--quiet"), 7);
  ExpectOneDocument(loud + " --ledger " + dir + "/ledger.jsonl");
  ExpectNothingOnStdout("forecast --pool " + dir + "/missing.jsonl --target-select " + dir +
                        "/target.jsonl --quiet --json --ledger " + dir + "/ledger.jsonl");
  // --calibrate on the committed calibration ledger, alone and then forecasting.
  const std::string cal = dir + "/cal";
  std::filesystem::create_directories(cal);
  ASSERT_EQ(testing::RunProgram({"sh", "-c",
                                 "zstd -q -d -c " + std::string(PREFLIGHT_SOURCE_DIR) +
                                     "/bench/calibration/ledger-tiny-300-2026-12-05.jsonl.zst > " +
                                     cal + "/ledger.jsonl"})
                .exit_code,
            0);
  const nlohmann::json alone =
      ExpectOneDocument("forecast --calibrate --no-save --json --ledger " + cal + "/ledger.jsonl");
  const nlohmann::json both =
      ExpectOneDocument(forecast + " --calibrate --no-save --ledger " + cal + "/ledger.jsonl");
  EXPECT_TRUE(both.contains("verdict")) << both.dump();
  EXPECT_EQ(both["calibrated"], alone) << "the calibration's figures, as --calibrate alone prints";
  // Without --json the calibration's text and then the forecast's are on stdout, as before.
  const CliResult text = RunCli(forecast.substr(0, forecast.size() - 7) +
                                " --calibrate --no-save --ledger " + cal + "/ledger.jsonl");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_FALSE(nlohmann::json::accept(text.out));
  EXPECT_NE(text.out.find("because:"), std::string::npos) << text.out;
}

TEST(JsonOutput, TrialReportAndLedger) {
  const std::string dir = ScratchDir("json_trial");
  const std::string inputs = TrialInputs(dir, 9);
  const std::string ledger = dir + "/ledger.jsonl";
  ExpectOneDocument("trial" + inputs + kTrial + "--json --out " + dir + "/trial");
  // The same command again, with its progress (on stderr), reuses the finished runs: one
  // document still.
  std::string loud = kTrial;
  loud.erase(loud.find("--quiet"), 7);
  ExpectOneDocument("trial" + inputs + loud + "--json --out " + dir + "/trial");
  ExpectNothingOnStdout("trial" + inputs + kTrial + "--keep 2 --json --out " + dir + "/bad");
  ExpectOneDocument("report " + dir + "/trial --json");
  ExpectOneDocument("cost --gpus 8 --days 1 --saving-from " + dir + "/trial/result.json --json");
  ExpectNothingOnStdout("report " + dir + "/missing --json");
  ExpectOneDocument("ledger verify --ledger " + ledger + " --json");
  ExpectOneDocument("ledger show --ledger " + ledger + " --json");
  ExpectOneDocument("ledger show --ledger " + ledger + " --kind trial --last 1 --json");
  ExpectOneDocument("ledger report --ledger " + ledger + " --out " + dir + "/site --json");
  ExpectNothingOnStdout("ledger show --ledger " + dir + "/missing.jsonl --json");
  // A damaged ledger: verify promises its answer as JSON too, and exits 1.
  std::string text = ReadText(ledger);
  const size_t at = text.find("\"kind\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "\"KIND\"");
  WriteText(dir + "/damaged.jsonl", text);
  const nlohmann::json bad =
      ExpectOneDocument("ledger verify --ledger " + dir + "/damaged.jsonl --json", 1);
  EXPECT_EQ(bad["ok"], false) << bad.dump();
}

TEST(JsonOutput, LadderAndWhatReadsIt) {
  const std::string dir = ScratchDir("json_ladder");
  const std::string inputs = TrialInputs(dir, 11);
  ExpectOneDocument("ladder" + inputs + kRungs + "--rungs tiny:8,tiny:12,tiny:16 --json --out " +
                    dir + "/ladder");
  ExpectOneDocument("ladder" + inputs + kRungs +
                    "--keep 0.25,0.5 --rungs tiny:8,tiny:12,tiny:16 --at tiny:64 --json --out " +
                    dir + "/keep");
  // A pilot this small recommends no fraction: plan and cost refuse it (exit 2, stdout empty).
  ExpectNothingOnStdout("plan --from-ladder " + dir + "/keep/ladder.json --json");
  ExpectNothingOnStdout("cost --gpus 8 --from-ladder " + dir + "/keep/ladder.json --json");
  // A ladder document that recommends one (doc/ladder.md's fields).
  WriteText(dir + "/recommends.json",
            nlohmann::json{{"rungs", nlohmann::json::array()},
                           {"recommendation",
                            {{"flops", 1e21},
                             {"keep", 0.1},
                             {"interval", {0.05, 0.2}},
                             {"extrapolated", true},
                             {"reason", "the trend of the best fraction over 3 rungs"}}},
                           {"receipt", "abc123"}}
                .dump());
  ExpectOneDocument("plan --from-ladder " + dir + "/recommends.json --pool-tokens 1e11 --json");
  ExpectOneDocument("cost --gpus 8 --from-ladder " + dir + "/recommends.json --json");
  ExpectNothingOnStdout("ladder" + inputs + kRungs + "--rungs tiny:8 --json --out " + dir +
                        "/one-rung");
}

TEST(JsonOutput, Battery) {
  const std::string dir = ScratchDir("json_battery");
  testing::WritePlantedTrial(dir, 13);
  WriteText(dir + "/battery.json", nlohmann::json{{"name", "t"},
                                                  {"targets",
                                                   {{{"name", "planted"},
                                                     {"pool", "pool.jsonl"},
                                                     {"target_select", "target.jsonl"},
                                                     {"target_eval", "eval.jsonl"}}}}}
                                       .dump());
  const std::string args = "battery --spec " + dir + "/battery.json --out " + dir + "/battery" +
                           kTrial + "--json --ledger " + dir + "/ledger.jsonl";
  ExpectOneDocument(args);
  ExpectOneDocument(args);  // finished trials reused
  WriteText(dir + "/bad.json", "{\"name\": \"t\", \"targets\": [");
  ExpectNothingOnStdout("battery --spec " + dir + "/bad.json --out " + dir + "/bad" + kTrial +
                        "--json --ledger " + dir + "/ledger.jsonl");
}

}  // namespace
}  // namespace preflight
