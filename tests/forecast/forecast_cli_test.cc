// The forecast through the binary: its verdicts on planted and unlike targets, its receipt, its
// cost, its place before the trial's first step, and calibration from the ledger.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "forecast/calibration.h"
#include "ledger/ledger.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using testing::RunCli;
using testing::ScratchDir;

// A very small model, so that the tests stay fast.
const char* kModel = "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1";

std::vector<nlohmann::json> Receipts(const std::string& ledger) {
  auto all = ledger::ReadAll(ledger);
  EXPECT_TRUE(all.ok()) << all.status().message();
  return all.ok() ? *all : std::vector<nlohmann::json>{};
}

// The held-out target of a planted pool: more planted-style documents, written apart from the
// selectable part, in dir/eval.jsonl.
void WritePlantedEval(const std::string& dir, uint64_t seed) {
  testing::TestRng rng(seed);
  std::string eval;
  for (int i = 0; i < 10; ++i)
    eval += nlohmann::json{{"text", testing::MakeDoc(rng, "tg", 150)}}.dump() + "\n";
  testing::WriteText(dir + "/eval.jsonl", eval);
}

TEST(ForecastCli, PlantedDomainSaysCurateAndRecordsItsMeasuredCost) {
  const std::string dir = ScratchDir("forecast_planted");
  testing::WritePlantedPool(dir, 400, 0.3, 20, 7);
  auto r = RunCli("forecast --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --selector dsir --steps 200 --seeds 4 " + kModel +
                  " --json --quiet --ledger " + dir + "/ledger.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["verdict"], "curate");
  EXPECT_GT(out["predicted_saving"].get<double>(), 0);
  EXPECT_LE(out["predicted_saving"].get<double>(), 1);
  EXPECT_GT(out["probability"].get<double>(), 0.5);
  EXPECT_LE(out["probability"].get<double>(), 1);
  EXPECT_GE(out["interval"][0].get<double>(), -1);
  EXPECT_LE(out["interval"][1].get<double>(), 1);
  EXPECT_LE(out["interval"][0].get<double>(), out["interval"][1].get<double>());
  EXPECT_GT(out["signals"]["byte_bigram_gain"]["value"].get<double>(), 0);
  EXPECT_TRUE(out["signals"]["ngram4_coverage_gain"]["value"].is_number());
  EXPECT_GT(out["signals"]["classifier_gap"]["value"].get<double>(), 0);
  // A third of the pool is planted like the target: the curated quarter is mostly like it.
  EXPECT_GT(out["signals"]["target_like_gain"]["value"].get<double>(), 0.2);
  EXPECT_LT(out["probability"].get<double>(), 1);
  // The calibration names its pilot scale; this forecast is for another (a custom model).
  EXPECT_FALSE(out["calibration"]["scale"]["model"].get<std::string>().empty());
  EXPECT_EQ(out["scale"]["matches"], false);
  EXPECT_NE(out["reason"].get<std::string>().find("widened"), std::string::npos);

  auto receipts = Receipts(dir + "/ledger.jsonl");
  ASSERT_EQ(receipts.size(), 1u);
  const auto& f = receipts[0];
  EXPECT_EQ(f["kind"], "forecast");
  EXPECT_EQ(f["hash"], out["receipt"]);
  // The cost fraction is the measured core-seconds over the trial's estimated training compute.
  const auto& cost = f["result"]["cost"];
  EXPECT_GT(cost["core_seconds"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(f["cost"]["core_seconds"].get<double>(), cost["core_seconds"].get<double>());
  EXPECT_GT(cost["trial_core_seconds_estimate"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(
      cost["fraction_of_trial"].get<double>(),
      cost["core_seconds"].get<double>() / cost["trial_core_seconds_estimate"].get<double>());
  EXPECT_DOUBLE_EQ(out["cost"]["fraction_of_trial"].get<double>(),
                   cost["fraction_of_trial"].get<double>());
  // Its inputs are the pool and the selectable target only.
  for (const auto& in : f["inputs"]) EXPECT_NE(in["role"], "target_eval");
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/ledger.jsonl").exit_code, 0);
}

TEST(ForecastCli, TargetAbsentFromThePoolAndUnlikeItIsRandom) {
  const std::string dir = ScratchDir("forecast_unlike");
  testing::WritePlantedPool(dir, 300, 0.0, 1, 11);  // background documents only
  std::string target;
  testing::TestRng rng(5);
  for (int d = 0; d < 12; ++d) {
    std::string text;
    for (int w = 0; w < 120; ++w) {
      // Greek words: bytes the pool never holds.
      static const char* kWords[] = {"αλφα", "βητα", "γαμμα", "δελτα", "ψυχη", "λογος", "κοσμος"};
      text += std::string(w ? " " : "") + kWords[rng.Below(7)];
    }
    target += nlohmann::json{{"text", text}}.dump() + "\n";
  }
  testing::WriteText(dir + "/unlike.jsonl", target);
  auto r = RunCli("forecast --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/unlike.jsonl --steps 200 " + kModel + " --json --quiet --ledger " + dir +
                  "/ledger.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["verdict"], "random") << out.dump();
  EXPECT_LT(out["probability"].get<double>(), 0.5);
  EXPECT_LT(out["signals"]["byte_pair_coverage"]["value"].get<double>(), 0.5);
  // A classifier tells the Greek target from any arm of the pool perfectly, and neither arm
  // covers its 4-grams: no signal sees a curated arm closer to it than a random one.
  EXPECT_GT(out["signals"]["classifier_auc"]["value"].get<double>(), 0.95);
  EXPECT_NEAR(out["signals"]["ngram4_coverage_gain"]["value"].get<double>(), 0, 0.01);
  EXPECT_GT(out["probability"].get<double>(), 0);
}

// The forecast's receipt names the fraction it was made for (config.keep), and its words too.
TEST(ForecastCli, ItsReceiptNamesTheFractionItWasMadeFor) {
  const std::string dir = ScratchDir("forecast_keep");
  testing::WritePlantedPool(dir, 200, 0.3, 12, 3);
  const std::string ledger = dir + "/ledger.jsonl";
  auto r = RunCli("forecast --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --keep 0.1 --steps 100 " + kModel + " --quiet --ledger " + ledger);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the curated 10% against the random 10%"), std::string::npos) << r.out;
  const std::vector<nlohmann::json> receipts = Receipts(ledger);
  ASSERT_EQ(receipts.size(), 1u);
  EXPECT_EQ(receipts[0]["kind"], "forecast");
  EXPECT_DOUBLE_EQ(receipts[0]["config"]["keep"].get<double>(), 0.1);
}

// Every input of a trial is checked before anything is written: a missing held-out file fails
// the trial with exit 2 naming it, and leaves no receipt (not even the forecast's) and no folder.
TEST(ForecastCli, ATrialChecksItsInputsBeforeTheForecastOrAnyWrite) {
  const std::string dir = ScratchDir("forecast_before_trial");
  testing::WritePlantedPool(dir, 300, 0.3, 12, 3);
  auto r =
      RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
             "/target.jsonl --target-eval " + dir + "/no-such-eval.jsonl --steps 40 --seeds 2 " +
             kModel + " --quiet --out " + dir + "/trial --ledger " + dir + "/ledger.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-eval.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(testing::Exists(dir + "/ledger.jsonl"));
  EXPECT_FALSE(testing::Exists(dir + "/trial"));
  // The forecast command has no flag for the held-out file at all.
  EXPECT_EQ(RunCli("forecast --pool " + dir + "/pool.jsonl --target-select " + dir +
                   "/target.jsonl --target-eval " + dir + "/target.jsonl --quiet")
                .exit_code,
            2);
}

TEST(ForecastCli, TheTrialMarksItsForecastRightOrWrong) {
  const std::string dir = ScratchDir("forecast_marked");
  testing::WritePlantedPool(dir, 300, 0.3, 16, 9);
  WritePlantedEval(dir, 77);
  auto r = RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --target-eval " + dir + "/eval.jsonl --steps 60 --seeds 2 " +
                  "--eval-every 10 --eval-windows 32 " + kModel + " --json --quiet --out " + dir +
                  "/trial --ledger " + dir + "/ledger.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  auto receipts = Receipts(dir + "/ledger.jsonl");
  ASSERT_EQ(receipts.size(), 2u);
  EXPECT_EQ(receipts[0]["kind"], "forecast");
  EXPECT_EQ(receipts[1]["kind"], "trial");
  EXPECT_EQ(receipts[1]["config"]["forecast"], receipts[0]["hash"]);
  const auto& marked = receipts[1]["result"]["forecast"];
  EXPECT_EQ(marked["receipt"], receipts[0]["hash"]);
  EXPECT_EQ(marked["verdict"], receipts[0]["result"]["verdict"]);
  const auto& net = receipts[1]["result"]["compute_saved"]["net"];
  auto want = forecast::Correct(
      marked["verdict"], net.is_number() ? std::optional<double>(net.get<double>()) : std::nullopt);
  if (want) {
    EXPECT_EQ(marked["correct"], *want);
  } else {
    EXPECT_TRUE(marked["correct"].is_null());
  }
  EXPECT_EQ(out["forecast"]["verdict"], marked["verdict"]);
  EXPECT_EQ(out["forecast"]["correct"], marked["correct"]);
}

// `battery --json` rows and the battery's table carry the forecast's probability.
TEST(ForecastCli, BatteryRowsCarryTheProbability) {
  const std::string dir = ScratchDir("forecast_battery_probability");
  testing::WritePlantedPool(dir, 300, 0.3, 16, 21);
  WritePlantedEval(dir, 78);
  testing::WriteText(dir + "/spec.json", nlohmann::json{{"name", "t"},
                                                        {"targets",
                                                         {{{"name", "planted"},
                                                           {"corpus", "p"},
                                                           {"pool", "pool.jsonl"},
                                                           {"target_select", "target.jsonl"},
                                                           {"target_eval", "eval.jsonl"}}}}}
                                             .dump());
  const std::string flags = std::string("--steps 40 --seeds 2 --eval-every 10 --eval-windows 32 ") +
                            kModel + " --quiet --out " + dir + "/runs --ledger " + dir +
                            "/ledger.jsonl --spec " + dir + "/spec.json";
  auto r = RunCli("battery --json " + flags);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  ASSERT_EQ(out["rows"].size(), 1u);
  const auto& row = out["rows"][0];
  ASSERT_TRUE(row["probability"].is_number()) << row.dump();
  EXPECT_GT(row["probability"].get<double>(), 0);
  EXPECT_LT(row["probability"].get<double>(), 1);
  EXPECT_EQ(row["forecast"]["probability"], row["probability"]);
  // The forecast's receipt says the same.
  auto receipts = Receipts(dir + "/ledger.jsonl");
  ASSERT_FALSE(receipts.empty());
  EXPECT_EQ(receipts[0]["kind"], "forecast");
  EXPECT_EQ(receipts[0]["result"]["probability"], row["probability"]);
  // The table: a p(pays) column with the same number (finished trials are reused).
  auto text = RunCli("battery " + flags);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("p(pays)"), std::string::npos) << text.out;
  const std::string pct =
      std::to_string(static_cast<int>(std::lround(100 * row["probability"].get<double>()))) + "%";
  EXPECT_NE(text.out.find(" " + pct + " "), std::string::npos) << text.out;
}

// A forecast whose signals lie outside what its calibration covered says so, in its reason, its
// JSON and its receipt, and is never clear (issue 33).
TEST(ForecastCli, OutsideWhatTheCalibrationCoveredItSaysSoAndIsNotClear) {
  const std::string dir = ScratchDir("forecast_outside");
  testing::WritePlantedPool(dir, 300, 0.3, 16, 31);
  nlohmann::json cal = forecast::DefaultCalibration().ToJson();
  // A calibration that saw only targets whose byte pairs the pool hardly held.
  cal["covered"] = {{"byte_pair_coverage", {0.0, 0.5}}};
  testing::WriteText(dir + "/calibration.json", cal.dump());
  auto r = RunCli("forecast --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --steps 200 " + kModel + " --json --quiet --ledger " + dir +
                  "/ledger.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["strength"], "weak") << out.dump();
  EXPECT_EQ(out["coverage"]["inside"], false);
  ASSERT_EQ(out["coverage"]["outside"].size(), 1u);
  EXPECT_EQ(out["coverage"]["outside"][0]["signal"], "byte_pair_coverage");
  EXPECT_GT(out["coverage"]["outside"][0]["value"].get<double>(), 0.5);
  EXPECT_NE(out["reason"].get<std::string>().find("outside what the calibration"),
            std::string::npos);
  const auto receipts = Receipts(dir + "/ledger.jsonl");
  ASSERT_EQ(receipts.size(), 1u);
  EXPECT_EQ(receipts[0]["result"]["coverage"], out["coverage"]);
  EXPECT_EQ(receipts[0]["result"]["strength"], "weak");
}

// `--remeasures HASH` measures a finished trial's signals again, only on the trial's own inputs
// and settings; its receipt names the trial.
TEST(ForecastCli, RemeasuresAFinishedTrialOnItsOwnInputsOnly) {
  const std::string dir = ScratchDir("forecast_remeasure");
  const std::string ledger = dir + "/ledger.jsonl";
  testing::WritePlantedPool(dir, 300, 0.3, 16, 41);
  WritePlantedEval(dir, 79);
  const std::string common = " --steps 40 --seeds 2 " + std::string(kModel) + " --quiet";
  ASSERT_EQ(RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                   "/target.jsonl --target-eval " + dir + "/eval.jsonl --eval-every 10 " +
                   "--eval-windows 32 --out " + dir + "/trial --ledger " + ledger + common)
                .exit_code,
            0);
  const std::string trial = Receipts(ledger).back()["hash"];
  const std::string forecast = "forecast --pool " + dir + "/pool.jsonl --json --ledger " + ledger;
  auto r =
      RunCli(forecast + " --target-select " + dir + "/target.jsonl --remeasures " + trial + common);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto receipts = Receipts(ledger);
  ASSERT_EQ(receipts.size(), 3u);
  EXPECT_EQ(receipts[2]["config"]["remeasures"], trial);
  EXPECT_TRUE(receipts[2]["result"]["signals"].contains("xfit_bigram_gain"));
  // Another target file, other settings, or a hash that is no trial: refused, nothing appended.
  testing::WriteText(dir + "/other.jsonl", testing::ReadText(dir + "/target.jsonl") +
                                               nlohmann::json{{"text", "one more"}}.dump() + "\n");
  r = RunCli(forecast + " --target-select " + dir + "/other.jsonl --remeasures " + trial + common);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("other.jsonl"), std::string::npos) << r.err;
  r = RunCli(forecast + " --target-select " + dir + "/target.jsonl --remeasures " + trial +
             " --steps 40 --seeds 3 " + kModel + " --quiet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("seeds"), std::string::npos) << r.err;
  r = RunCli(forecast + " --target-select " + dir + "/target.jsonl --remeasures " +
             receipts[0]["hash"].get<std::string>() + common);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Receipts(ledger).size(), 3u);
}

TEST(ForecastCli, CalibratesFromTheLedgersLabelledTrials) {
  const std::string dir = ScratchDir("forecast_calibrate");
  const std::string ledger = dir + "/ledger.jsonl";
  // No history: the default, said so.
  auto none = RunCli("forecast --calibrate --json --ledger " + ledger);
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out)["examples"], 0);
  EXPECT_TRUE(nlohmann::json::parse(none.out)["saved"].is_null());

  // Six forecast + trial pairs from three corpora, made by hand.
  const double gains[] = {0.02, 0.04, -0.01, 0.03, 0.005, 0.01};
  const nlohmann::json nets[] = {0.15, 0.35, nullptr, 0.2, 0.02, 0.05};
  std::vector<forecast::Example> want;
  for (int i = 0; i < 6; ++i) {
    nlohmann::json input = {{"role", "pool"},
                            {"path", "p"},
                            {"sha256", std::string(64, 'a')},
                            {"docs", 1},
                            {"bytes", 1}};
    const std::string group = "corpus" + std::to_string(i % 3);
    nlohmann::json f = {
        {"kind", "forecast"},
        {"inputs", {input}},
        {"config", {{"group", group}}},
        {"result",
         {{"signals",
           {{"byte_bigram_gain", {{"value", gains[i]}, {"interval", {gains[i], gains[i]}}}},
            {"byte_unigram_gain", {{"value", gains[i]}, {"interval", {gains[i], gains[i]}}}}}},
          {"cost", {{"fraction_of_trial", 0.01}}}}},
        {"cost", {{"core_seconds", 0.1}, {"flops", 0}}}};
    auto appended = ledger::Append(ledger, f);
    ASSERT_TRUE(appended.ok()) << appended.status().message();
    nlohmann::json t = {
        {"kind", "trial"},
        {"inputs", {input}},
        {"config",
         {{"forecast", (*appended)["hash"]},
          {"target_name", "t" + std::to_string(i)},
          {"steps", 300},
          {"model", {{"name", "tiny"}, {"batch", 16}, {"context", 64}}}}},
        {"result", {{"compute_saved", {{"net", nets[i]}}}, {"caught_up", nets[i].is_number()}}},
        {"cost", {{"core_seconds", 1}, {"flops", 0}}}};
    ASSERT_TRUE(ledger::Append(ledger, t).ok());
    forecast::Example e;
    e.name = "t" + std::to_string(i);
    e.group = group;
    e.signals["byte_bigram_gain"] = {gains[i], gains[i], gains[i]};
    if (nets[i].is_number()) e.net = nets[i].get<double>();
    want.push_back(e);
  }
  auto r = RunCli("forecast --calibrate --json --ledger " + ledger);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["examples"], 6);
  auto fit = forecast::Fit(want, "byte_bigram_gain", "x");
  ASSERT_TRUE(fit.ok());
  EXPECT_EQ(out["calibration"]["curve"], fit->ToJson()["curve"]);
  EXPECT_EQ(out["calibration"]["form"], "anchored_monotone");
  EXPECT_EQ(out["calibration"]["groups"], 3);
  EXPECT_EQ(out["calibration"]["scale"]["model"], "tiny");
  EXPECT_EQ(out["calibration"]["scale"]["steps"], 300);
  // Leave-one-corpus-out figures, and each signal alone.
  const auto& held = out["held_out"];
  ASSERT_TRUE(held.is_object()) << out.dump();
  EXPECT_EQ(held["targets"], 6);
  EXPECT_EQ(held["groups"], 3);
  EXPECT_EQ(held["rows"].size(), 6u);
  EXPECT_TRUE(held["by_signal"].contains("byte_bigram_gain"));
  EXPECT_GE(held["coverage"].get<double>(), 0);
  EXPECT_LE(held["coverage"].get<double>(), 1);
  const std::string saved = dir + "/calibration.json";
  EXPECT_EQ(out["saved"], saved);
  // Later forecasts beside this ledger use it.
  auto c = nlohmann::json::parse(testing::ReadText(saved));
  EXPECT_EQ(c["curve"], fit->ToJson()["curve"]);
  EXPECT_EQ(c["residuals"].size(), 6u);
  EXPECT_EQ(c["examples"], 6);
  // --no-save reports and leaves the saved fit alone.
  testing::WriteText(saved, "{}");
  auto report = RunCli("forecast --calibrate --no-save --ledger " + ledger);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("leave-one-corpus-out"), std::string::npos) << report.out;
  EXPECT_EQ(testing::ReadText(saved), "{}");
}

}  // namespace
}  // namespace preflight
