// Silent nonsense, refused or said (issue 31), through `preflight trial`:
//   - arms that are the same documents (a pool too small for two different selections) are
//     refused, exit 2, before the forecast and any training step;
//   - held-out documents in the arms, and a --target-select that is the --pool file, are each
//     a warning on stderr and in the receipt's and result.json's "warnings".

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/planted.h"
#include "testing/testing.h"
#include "trainer/fake_trainer.h"

namespace preflight::trial {
namespace {

using preflight::testing::CliResult;
using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

CliResult Trial(const std::string& dir, const std::string& pool, const std::string& target,
                const std::string& extra = "") {
  const std::string selector =
      extra.find("--selector") == std::string::npos ? " --selector dsir" : "";
  return RunCli("trial --pool " + pool + " --target-select " + target + " --target-eval " + dir +
                "/eval.jsonl" + selector + " --seeds 2 --steps 40 --eval-every 4 " +
                "--eval-windows 16 --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 " +
                "--threads 1 --ledger " + dir + "/ledger.jsonl --out " + dir + "/out" +
                " --trainer cmd --trainer-cmd '/usr/bin/python3 " +
                preflight::testing::WriteFakeTrainer(dir) + "' " + extra);
}

std::vector<nlohmann::json> Receipts(const std::string& ledger, const std::string& kind) {
  std::vector<nlohmann::json> out;
  std::istringstream in(ReadText(ledger));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json r = nlohmann::json::parse(line);
    if (r["kind"] == kind) out.push_back(r);
  }
  return out;
}

TEST(TrialRefuses, ArmsThatAreTheSameDocuments) {
  const std::string dir = ScratchDir("trial_same_arms");
  preflight::testing::WritePlantedTrial(dir, 61);
  // One document: both quarters are it. The whole pool (--keep 1): both arms are the pool.
  std::istringstream pool(ReadText(dir + "/pool.jsonl"));
  std::string first;
  std::getline(pool, first);
  WriteText(dir + "/one.jsonl", first + "\n");
  for (const auto& [pool_file, extra] :
       {std::pair<std::string, std::string>{dir + "/one.jsonl", ""},
        {dir + "/pool.jsonl", "--keep 1"}}) {
    const CliResult r = Trial(dir, pool_file, dir + "/target.jsonl", extra);
    EXPECT_EQ(r.exit_code, 2) << pool_file << " " << extra << ": " << r.err;
    EXPECT_NE(r.err.find("the random and curated arms hold the same"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a trial cannot compare an arm with itself"), std::string::npos) << r.err;
    EXPECT_TRUE(Receipts(dir + "/ledger.jsonl", "forecast").empty());  // refused before it
    EXPECT_FALSE(Exists(dir + "/out/runs/random-s1"));                 // and before training
    std::filesystem::remove_all(dir + "/out");
  }
}

TEST(TrialWarns, HeldOutDocumentsInTheArms) {
  const std::string dir = ScratchDir("trial_warn_held_out");
  preflight::testing::WritePlantedPool(dir, 60, 0.3, 10, 62);
  const std::string eval = preflight::testing::PlantedEval(162);
  WriteText(dir + "/eval.jsonl", eval);
  WriteText(dir + "/leaky.jsonl", ReadText(dir + "/pool.jsonl") + eval);  // held out, and not
  const CliResult r = Trial(dir, dir + "/leaky.jsonl", dir + "/target.jsonl", "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string held_out = "the arms hold copies of --target-eval documents (";
  EXPECT_NE(r.err.find("warning: " + held_out), std::string::npos) << r.err;
  const nlohmann::json trial = Receipts(dir + "/ledger.jsonl", "trial").at(0);
  const nlohmann::json result = nlohmann::json::parse(ReadText(dir + "/out/result.json"));
  for (const nlohmann::json& warnings : {trial["result"]["warnings"], result["warnings"],
                                         nlohmann::json::parse(r.out)["warnings"]}) {
    ASSERT_EQ(warnings.size(), 1u) << warnings.dump();
    EXPECT_EQ(warnings[0].get<std::string>().rfind(held_out, 0), 0u) << warnings[0];
  }
  // A clean trial records none.
  std::filesystem::remove_all(dir + "/out");
  const CliResult clean = Trial(dir, dir + "/pool.jsonl", dir + "/target.jsonl", "--json");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(nlohmann::json::parse(clean.out)["warnings"], nlohmann::json::array());
  EXPECT_EQ(clean.err.find("warning:"), std::string::npos) << clean.err;
}

TEST(TrialWarns, ATargetThatIsThePool) {
  const std::string dir = ScratchDir("trial_warn_target_pool");
  preflight::testing::WritePlantedTrial(dir, 63);
  const std::string pool = dir + "/pool.jsonl";
  // dsir weighs every document alike: its quarter is the random quarter, refused.
  const CliResult dsir = Trial(dir, pool, pool);
  EXPECT_EQ(dsir.exit_code, 2) << dsir.err;
  EXPECT_NE(dsir.err.find("arms hold the same"), std::string::npos) << dsir.err;
  // The classifier's quarter differs by chance: a trial, with the warning recorded.
  std::filesystem::remove_all(dir + "/out");
  const CliResult classifier = Trial(dir, pool, pool, "--json --selector classifier");
  ASSERT_EQ(classifier.exit_code, 0) << classifier.err;
  const std::string same = "--target-select " + pool + " is byte for byte the --pool file";
  EXPECT_NE(classifier.err.find("warning: " + same), std::string::npos) << classifier.err;
  const nlohmann::json warnings = nlohmann::json::parse(classifier.out)["warnings"];
  ASSERT_EQ(warnings.size(), 1u) << warnings.dump();
  EXPECT_EQ(warnings[0].get<std::string>().rfind(same, 0), 0u) << warnings[0];
  EXPECT_EQ(Receipts(dir + "/ledger.jsonl", "trial").at(0)["result"]["warnings"], warnings);
}

}  // namespace
}  // namespace preflight::trial
