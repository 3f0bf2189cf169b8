// A trial on a pool far smaller than anything its calibration saw (issue 42, item 2): it runs
// and exits 0, and its forecast says, in words and in its JSON, that the case is far smaller
// than the calibration's, and is never `clear`.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

// Three pool documents (arms of one document each at the default --keep), a target and an eval
// set in the planted style.
std::string WriteThreeDocumentTrial(const std::string& dir) {
  testing::TestRng rng(17);
  std::string pool, target;
  // Two short documents (either fits a quarter of the pool's bytes), the first like the target,
  // and a long one.
  for (int i = 0; i < 3; ++i) {
    pool += nlohmann::json{{"id", "d" + std::to_string(i)},
                           {"text", testing::MakeDoc(rng, i == 0 ? "tg" : "bg", i < 2 ? 60 : 240)}}
                .dump() +
            "\n";
  }
  for (int i = 0; i < 4; ++i) {
    target += nlohmann::json{{"text", testing::MakeDoc(rng, "tg", 150)}}.dump() + "\n";
  }
  WriteText(dir + "/pool.jsonl", pool);
  WriteText(dir + "/target.jsonl", target);
  WriteText(dir + "/eval.jsonl", testing::PlantedEval(18));
  return "trial --pool " + dir + "/pool.jsonl --target-select " + dir +
         "/target.jsonl --target-eval " + dir +
         "/eval.jsonl --selector dsir --layers 1 "
         "--d-model 32 --heads 2 --context 32 --batch 8 --threads 1 --eval-windows 16 --seeds 2 "
         "--steps 12 --eval-every 4 --quiet --ledger " +
         dir + "/ledger.jsonl";
}

TEST(TinyPool, AThreeDocumentTrialSaysItIsFarSmallerAndIsNotClear) {
  const std::string dir = ScratchDir("tiny_pool");
  std::string trial = WriteThreeDocumentTrial(dir);
  // A selection seed whose random arm is not the curated arm's one document (a trial refuses to
  // compare an arm with itself).
  CliResult json;
  for (int seed = 1; seed <= 8; ++seed) {
    const std::string seeded = trial + " --selection-seed " + std::to_string(seed);
    json = RunCli(seeded + " --json --out " + dir + "/trial-" + std::to_string(seed));
    if (json.exit_code == 0) {
      trial = seeded + " --out " + dir + "/trial-" + std::to_string(seed);
      break;
    }
    ASSERT_NE(json.err.find("a trial cannot compare an arm with itself"), std::string::npos)
        << json.err;
  }
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json& forecast = doc.at("forecast");
  EXPECT_NE(forecast.at("strength"), "clear") << forecast.dump();
  ASSERT_EQ(forecast.at("far_smaller").size(), 4u) << forecast.dump();
  for (const nlohmann::json& s : forecast.at("far_smaller")) {
    EXPECT_LT(s.at("value").get<double>(), s.at("smallest_seen").get<double>()) << s.dump();
  }
  EXPECT_NE(forecast.at("caution").get<std::string>().find("far smaller than anything"),
            std::string::npos);
  // The forecast's own receipt says so in its reason and coverage.
  nlohmann::json made;
  for (const nlohmann::json& r : testing::JsonLines(testing::ReadText(dir + "/ledger.jsonl"))) {
    if (r.at("hash") == forecast.at("receipt")) made = r.at("result");
  }
  ASSERT_TRUE(made.is_object()) << "no receipt " << forecast.at("receipt");
  EXPECT_NE(made.at("strength"), "clear");
  EXPECT_EQ(made.at("coverage").at("inside"), false);
  EXPECT_EQ(made.at("coverage").at("far_smaller"), forecast.at("far_smaller"));
  EXPECT_NE(made.at("reason").get<std::string>().find("3 documents in the pool"),
            std::string::npos);
  // The same trial again, in words: the reason is printed with the forecast.
  const CliResult text = RunCli(trial);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("far smaller than anything the calibration's"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("3 documents in the pool"), std::string::npos) << text.out;
}

// The tests' ordinary planted pool (60 documents) is not far smaller than what the default
// calibration saw: its trial's forecast carries no caution.
TEST(TinyPool, AnOrdinaryTestPoolHasNoCaution) {
  const std::string dir = ScratchDir("ordinary_pool");
  testing::WritePlantedTrial(dir, 19);
  const CliResult r = RunCli(
      "trial --pool " + dir + "/pool.jsonl --target-select " + dir +
      "/target.jsonl --target-eval " + dir +
      "/eval.jsonl --selector dsir --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 "
      "--threads 1 --eval-windows 16 --seeds 2 --steps 12 --eval-every 4 --quiet --json --ledger " +
      dir + "/ledger.jsonl --out " + dir + "/trial");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json forecast = nlohmann::json::parse(r.out).at("forecast");
  EXPECT_FALSE(forecast.contains("caution")) << forecast.dump();
  EXPECT_FALSE(forecast.contains("far_smaller"));
  for (const nlohmann::json& rec : testing::JsonLines(testing::ReadText(dir + "/ledger.jsonl"))) {
    if (rec.at("hash") != forecast.at("receipt")) continue;
    EXPECT_EQ(rec["result"]["coverage"]["far_smaller"], nlohmann::json::array());
    EXPECT_EQ(rec["result"]["coverage"]["sizes_checked"], 4);
    EXPECT_EQ(rec["result"]["reason"].get<std::string>().find("far smaller"), std::string::npos);
  }
}

}  // namespace
}  // namespace preflight
