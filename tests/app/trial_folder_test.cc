// A trial's run folder through the CLI: `preflight report` re-renders a finished trial's page
// from trial.json alone; a damaged or foreign trial.json is refused with exit 2 naming the file
// and the JSON path; a train's receipt feeds `fit --ledger`.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::trial_folder_test {
namespace {

using testing::Exists;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

const char* kModel = "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1";

// A finished micro trial (1 seed, 30 steps) in dir/trial.
std::string FinishedTrial(const std::string& name) {
  const std::string dir = ScratchDir(name);
  testing::WritePlantedPool(dir, 120, 0.3, 12, 21);
  auto r = RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --target-eval " + dir + "/target.jsonl --steps 30 --seeds 1 " +
                  kModel + " --quiet --out " + dir + "/trial --ledger " + dir + "/ledger.jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

TEST(ReportCli, RegeneratesTheTrialsPageFromItsFolder) {
  const std::string dir = FinishedTrial("report_regenerate");
  const std::string page = dir + "/trial/report.html";
  const std::string before = ReadText(page);
  ASSERT_FALSE(before.empty());
  // The target by its file's stem (no --target-name), the forecast it tested, the receipt and
  // input hashes, and what dsir kept.
  EXPECT_NE(before.find("dsir on target"), std::string::npos);
  EXPECT_EQ(before.find("dsir on " + dir), std::string::npos);
  EXPECT_NE(before.find("Lowest-scored kept documents"), std::string::npos);
  for (const char* id : {"forecast-tested", "provenance", "selected", "selected-highest",
                         "selected-lowest"}) {
    EXPECT_NE(before.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  const auto recorded = nlohmann::json::parse(ReadText(dir + "/trial/result.json"));
  EXPECT_NE(before.find(recorded["receipt"].get<std::string>()), std::string::npos);
  EXPECT_NE(before.find(recorded["forecast"]["receipt"].get<std::string>()), std::string::npos);
  const auto folder = nlohmann::json::parse(ReadText(dir + "/trial/trial.json"));
  ASSERT_FALSE(folder["arms"]["curated"]["inputs"].empty());
  for (const auto& in : folder["arms"]["curated"]["inputs"]) {
    EXPECT_NE(before.find(in["sha256"].get<std::string>()), std::string::npos) << in.dump();
  }
  std::remove(page.c_str());
  auto r = RunCli("report " + dir + "/trial --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["report"], page);
  const auto result = nlohmann::json::parse(ReadText(dir + "/trial/result.json"));
  EXPECT_EQ(doc["receipt"], result["receipt"]);
  // The numbers are recomputed from the recorded curves: the same page, byte for byte.
  EXPECT_EQ(ReadText(page), before);
}

TEST(ReportCli, ADamagedRunFileExitsTwoNamingTheFileAndPath) {
  const std::string dir = FinishedTrial("report_damaged");
  const std::string manifest = dir + "/trial/trial.json";
  auto m = nlohmann::json::parse(ReadText(manifest));
  m["runs"]["curated-s1"]["curve"][2]["eval_bpb"] = "low";
  WriteText(manifest, m.dump(2));
  auto r = RunCli("report " + dir + "/trial");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(manifest + ": $.runs.curated-s1.curve[2].eval_bpb: expected a number, "
                                  "found a string"),
            std::string::npos)
      << r.err;
  // Truncated: not JSON, at a byte offset.
  WriteText(manifest, m.dump(2).substr(0, 100));
  r = RunCli("report " + dir + "/trial");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(manifest + ": not valid JSON at byte"), std::string::npos) << r.err;
  // Another format version: refused, saying what to do.
  m["version"] = 1;
  m["runs"]["curated-s1"]["curve"][2]["eval_bpb"] = 2.0;
  WriteText(manifest, m.dump(2));
  r = RunCli("report " + dir + "/trial");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run folder format version 1"), std::string::npos) << r.err;
  // Not a trial folder at all.
  r = RunCli("report " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no trial here"), std::string::npos) << r.err;
}

TEST(TrialCli, AResumeWithOtherFlagsIsRefusedBeforeAnyWrite) {
  const std::string dir = FinishedTrial("trial_refused_resume");
  const std::string ledger_before = ReadText(dir + "/ledger.jsonl");
  auto r = RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --target-eval " + dir + "/target.jsonl --steps 40 --seeds 1 " +
                  kModel + " --quiet --out " + dir + "/trial --ledger " + dir + "/ledger.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("this folder holds a different trial (steps differ)"), std::string::npos)
      << r.err;
  EXPECT_EQ(ReadText(dir + "/ledger.jsonl"), ledger_before);  // no forecast receipt either
}

TEST(TrainCli, EveryTrainLeavesAReceiptThatFitCanUse) {
  const std::string dir = ScratchDir("train_receipts");
  testing::WritePlantedPool(dir, 120, 0.3, 12, 22);
  // Five shapes, two data sizes each: enough (N, D, loss) points for a fit.
  int runs = 0;
  for (int d : {16, 24, 32, 48, 64}) {
    for (int steps : {10, 20}) {
      auto r = RunCli("train --data " + dir + "/pool.jsonl --eval " + dir +
                      "/target.jsonl --layers 1 --heads 2 --context 32 --batch 8 --threads 1 "
                      "--d-model " +
                      std::to_string(d) + " --steps " + std::to_string(steps) +
                      " --quiet --json --out " + dir + "/run" + std::to_string(runs++) +
                      " --ledger " + dir + "/ledger.jsonl");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["receipt"].get<std::string>().size(), 64u);
    }
  }
  auto fit = RunCli("fit --ledger " + dir + "/ledger.jsonl --json");
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  const auto doc = nlohmann::json::parse(fit.out);
  EXPECT_EQ(doc["points"], runs) << fit.out;
}

}  // namespace
}  // namespace preflight::trial_folder_test

namespace preflight::trial_folder_test {
namespace {

// Rewrites a JSONL file's "text" field as "content" (what some pipelines call it).
void RenameTextField(const std::string& in, const std::string& out) {
  std::istringstream lines(testing::ReadText(in));
  std::string line, text;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);
    j["content"] = j["text"];
    j.erase("text");
    text += j.dump() + "\n";
  }
  testing::WriteText(out, text);
}

TEST(TextField, ContentThroughForecastTrialAndTrain) {
  const std::string dir = ScratchDir("text_field_content");
  testing::WritePlantedPool(dir, 120, 0.3, 12, 23);
  RenameTextField(dir + "/pool.jsonl", dir + "/pool.c.jsonl");
  RenameTextField(dir + "/target.jsonl", dir + "/target.c.jsonl");
  const std::string inputs =
      " --pool " + dir + "/pool.c.jsonl --target-select " + dir + "/target.c.jsonl ";
  const std::string ledger = " --ledger " + dir + "/ledger.jsonl --quiet ";
  auto forecast =
      RunCli("forecast" + inputs + "--text-field content --steps 20 " + kModel + ledger);
  EXPECT_EQ(forecast.exit_code, 0) << forecast.err;
  auto trial = RunCli("trial" + inputs + "--target-eval " + dir +
                      "/target.c.jsonl --text-field content --steps 20 --seeds 1 " + kModel +
                      ledger + "--json --out " + dir + "/trial");
  ASSERT_EQ(trial.exit_code, 0) << trial.err;
  EXPECT_TRUE(nlohmann::json::parse(trial.out)["compute_saved"].contains("gross"));
  auto train = RunCli("train --data " + dir + "/pool.c.jsonl --eval " + dir +
                      "/target.c.jsonl --text-field content --steps 5 " + kModel + ledger +
                      "--out " + dir + "/train");
  EXPECT_EQ(train.exit_code, 0) << train.err;
  // Without the flag the documents have no "text": exit 2, naming the file and line.
  auto wrong = RunCli("trial" + inputs + "--target-eval " + dir + "/target.c.jsonl --steps 20 " +
                      kModel + ledger + "--out " + dir + "/trial2");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("pool.c.jsonl:1"), std::string::npos) << wrong.err;
  EXPECT_FALSE(Exists(dir + "/trial2"));
}

}  // namespace
}  // namespace preflight::trial_folder_test
