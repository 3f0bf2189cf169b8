// Per-input fields through the binary: a pool whose text is in "content" and target files in
// "text" (as HF and datatrove exports and hand-made targets often are) work together on every
// command that reads text, with --text-field for the pool and --target-text-field for the target
// (train and score: --eval-text-field); a wrong field still fails naming file and line, before
// anything is written; manifests, run folders and receipts record both fields.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "testing/planted.h"
#include "testing/testing.h"
#include "trainer/fake_trainer.h"

namespace preflight::input_fields_test {
namespace {

using testing::DocumentIds;
using testing::Exists;
using testing::JsonLines;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

// The model and budget every command here takes, then a trial's evaluation and seeds.
const std::string kModel =
    " --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1 --steps 12 ";
const std::string kTrial = kModel + " --eval-every 4 --eval-windows 8 --seeds 1 ";

// dir/shards/ (the pool in "content", two files), dir/pool.jsonl (the same pool in "content"),
// dir/text.jsonl (the pool in "text"), dir/t.jsonl (T_sel) and dir/e.jsonl (T_eval) in "text".
std::string WriteInputs(const std::string& name) {
  const std::string dir = ScratchDir(name);
  testing::WritePlantedPool(dir, 100, 0.3, 24, 61);
  std::filesystem::rename(dir + "/pool.jsonl", dir + "/text.jsonl");
  const std::string content =
      testing::RenameField(ReadText(dir + "/text.jsonl"), "text", "content");
  WriteText(dir + "/pool.jsonl", content);
  std::filesystem::create_directories(dir + "/shards");
  const size_t half = content.find('\n', content.size() / 2) + 1;
  WriteText(dir + "/shards/a.jsonl", content.substr(0, half));
  WriteText(dir + "/shards/b.jsonl", content.substr(half));
  std::string select, eval;
  int i = 0;
  for (const nlohmann::json& j : JsonLines(ReadText(dir + "/target.jsonl"))) {
    (i++ % 2 ? eval : select) += j.dump() + "\n";
  }
  WriteText(dir + "/t.jsonl", select);
  WriteText(dir + "/e.jsonl", eval);
  return dir;
}

// The failing case, and the same selection as on the pool written with "text".
TEST(InputFields, SelectTakesThePoolsAndTheTargetsFields) {
  const std::string dir = WriteInputs("fields_select");
  const std::string common =
      " --target " + dir + "/t.jsonl --selector dsir --quiet --ledger " + dir + "/ledger.jsonl";
  auto one = RunCli("select --pool " + dir + "/shards/ --text-field content --out " + dir +
                    "/one.jsonl" + common);
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find(dir + "/t.jsonl:1: no \"content\" field"), std::string::npos) << one.err;
  EXPECT_FALSE(Exists(dir + "/one.jsonl") || Exists(dir + "/ledger.jsonl"));
  auto apart = RunCli("select --pool " + dir +
                      "/shards/ --text-field content "
                      "--target-text-field text --out " +
                      dir + "/apart.jsonl" + common);
  ASSERT_EQ(apart.exit_code, 0) << apart.err;
  auto same = RunCli("select --pool " + dir + "/text.jsonl --out " + dir + "/same.jsonl" + common);
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(DocumentIds(dir + "/apart.jsonl"), DocumentIds(dir + "/same.jsonl"));
  const auto manifest = nlohmann::json::parse(ReadText(dir + "/apart.jsonl.manifest.json"));
  EXPECT_EQ(manifest["text_field"], "content");
  EXPECT_EQ(manifest["target_text_field"], "text");
  const auto receipt = JsonLines(ReadText(dir + "/ledger.jsonl")).front();
  EXPECT_EQ(receipt["config"]["text_field"], "content");
  EXPECT_EQ(receipt["config"]["target_text_field"], "text");
  EXPECT_EQ(receipt["config"]["target_id_field"], "id");
}

// trial and forecast: the pool's field for the pool and the arms, the target's for T_sel and
// T_eval; trial.json and the receipt record both; a wrong field fails before anything is written.
TEST(InputFields, TrialAndForecastTakeThePoolsAndTheTargetsFields) {
  const std::string dir = WriteInputs("fields_trial");
  const std::string ledger = " --quiet --ledger " + dir + "/ledger.jsonl";
  const std::string inputs = " --pool " + dir + "/pool.jsonl --target-select " + dir + "/t.jsonl";
  auto wrong = RunCli("trial" + inputs + " --target-eval " + dir + "/e.jsonl --text-field content" +
                      kTrial + ledger + " --out " + dir + "/wrong");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find(dir + "/t.jsonl:1: no \"content\" field"), std::string::npos)
      << wrong.err;
  EXPECT_FALSE(Exists(dir + "/wrong") || Exists(dir + "/ledger.jsonl"));
  const std::string fields = " --text-field content --target-text-field text";
  auto forecast = RunCli("forecast" + inputs + fields + kModel + ledger + " --json");
  ASSERT_EQ(forecast.exit_code, 0) << forecast.err;
  auto trial = RunCli("trial" + inputs + " --target-eval " + dir + "/e.jsonl" + fields + kTrial +
                      ledger + " --json --out " + dir + "/trial");
  ASSERT_EQ(trial.exit_code, 0) << trial.err;
  EXPECT_TRUE(nlohmann::json::parse(trial.out)["regime"].contains("ngram_bpb"));
  const auto config = nlohmann::json::parse(ReadText(dir + "/trial/trial.json"))["config"];
  EXPECT_EQ(config["text_field"], "content");
  EXPECT_EQ(config["target_text_field"], "text");
  const auto receipts = JsonLines(ReadText(dir + "/ledger.jsonl"));
  EXPECT_EQ(receipts.back()["kind"], "trial");
  EXPECT_EQ(receipts.back()["config"]["target_text_field"], "text");
  EXPECT_EQ(receipts.front()["config"]["target_text_field"], "text");  // the forecast's
  // A bad line in T_eval, with the fields right: named, and nothing written.
  WriteText(dir + "/bad.jsonl", ReadText(dir + "/e.jsonl") + "{\"content\": \"x\"}\n");
  auto bad = RunCli("trial" + inputs + " --target-eval " + dir + "/bad.jsonl" + fields + kTrial +
                    ledger + " --out " + dir + "/bad");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.jsonl:13: no \"text\" field"), std::string::npos) << bad.err;
  EXPECT_FALSE(Exists(dir + "/bad"));
}

// A battery spec's targets name their files' fields; the launched trainers' T_eval export is
// read with the target's field, the arms' with the pool's.
TEST(InputFields, BatterySpecFieldsAndTheTrainersExports) {
  const std::string dir = WriteInputs("fields_battery");
  WriteText(dir + "/battery.json", nlohmann::json{{"name", "b"},
                                                  {"targets",
                                                   {{{"name", "c"},
                                                     {"pool", "pool.jsonl"},
                                                     {"target_select", "t.jsonl"},
                                                     {"target_eval", "e.jsonl"},
                                                     {"text_field", "content"},
                                                     {"target_text_field", "text"}}}}}
                                       .dump());
  const std::string trainer =
      " --trainer cmd --trainer-cmd '/usr/bin/python3 " + testing::WriteFakeTrainer(dir) + "'";
  auto battery = RunCli("battery --spec " + dir + "/battery.json --out " + dir + "/battery" +
                        kTrial + trainer + " --quiet --ledger " + dir + "/ledger.jsonl");
  ASSERT_EQ(battery.exit_code, 0) << battery.err;
  const std::string trial = dir + "/battery/c";
  std::vector<std::string> eval;
  for (const nlohmann::json& j : JsonLines(ReadText(dir + "/e.jsonl"))) eval.push_back(j["text"]);
  std::vector<std::string> exported;
  for (const nlohmann::json& j : JsonLines(ReadText(trial + "/exports/eval/text.jsonl"))) {
    exported.push_back(j["text"]);
  }
  EXPECT_EQ(exported, eval);
  std::vector<std::string> arm, arm_exported;
  for (const nlohmann::json& j : JsonLines(ReadText(trial + "/arms/curated.jsonl")))
    arm.push_back(j["content"]);
  for (const nlohmann::json& j : JsonLines(ReadText(trial + "/exports/curated/text.jsonl"))) {
    arm_exported.push_back(j["text"]);
  }
  EXPECT_EQ(arm_exported, arm);
  const auto manifest = nlohmann::json::parse(ReadText(trial + "/exports/eval/manifest.json"));
  EXPECT_EQ(manifest["source"]["text_field"], "text");
}

// train (and score) have no target: --eval-text-field names the eval file's field.
TEST(InputFields, TrainAndScoreTakeTheEvalFilesField) {
  const std::string dir = WriteInputs("fields_train");
  const std::string ledger = " --quiet --ledger " + dir + "/ledger.jsonl";
  auto one = RunCli("train --data " + dir + "/pool.jsonl --eval " + dir +
                    "/e.jsonl --text-field content" + kModel + ledger + " --out " + dir + "/one");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find(dir + "/e.jsonl:1: no \"content\" field"), std::string::npos) << one.err;
  auto train = RunCli("train --data " + dir + "/pool.jsonl --eval " + dir +
                      "/e.jsonl --text-field content --eval-text-field text" + kModel + ledger +
                      " --json --out " + dir + "/train");
  ASSERT_EQ(train.exit_code, 0) << train.err;
  const auto receipt = JsonLines(ReadText(dir + "/ledger.jsonl")).back();
  EXPECT_EQ(receipt["config"]["eval_text_field"], "text");
  EXPECT_EQ(receipt["inputs"][1]["docs"], 12);
  const std::string curve = dir + "/train/curve.jsonl";
  auto score =
      RunCli("score --curated " + curve + " --random " + curve + " --curated-data " + dir +
             "/pool.jsonl --random-data " + dir + "/pool.jsonl --eval-data " + dir +
             "/e.jsonl --text-field content --eval-text-field text --context 32 --ledger " + dir +
             "/ledger.jsonl --json --out " + dir + "/scored");
  ASSERT_EQ(score.exit_code, 0) << score.err;
  EXPECT_TRUE(nlohmann::json::parse(score.out)["regime"].contains("ngram_bpb"));
}

}  // namespace
}  // namespace preflight::input_fields_test
