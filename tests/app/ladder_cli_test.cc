// `preflight ladder` through the binary with a very small model: three rungs, the --json keys,
// one receipt per rung plus the ladder's, shared arms, the page, a rerun that trains nothing,
// and bad --rungs refused with exit 2 before anything is written.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ledger/ledger.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::ladder_cli_test {
namespace {

using testing::RunCli;

const char* kModel = "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1";

std::vector<nlohmann::json> Receipts(const std::string& ledger) {
  auto all = ledger::ReadAll(ledger);
  EXPECT_TRUE(all.ok()) << all.status().message();
  return all.ok() ? *all : std::vector<nlohmann::json>{};
}

std::string Inputs(const std::string& dir, const std::string& eval = "eval.jsonl") {
  return "--pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
         dir + "/" + eval + " --seeds 2 --eval-windows 32 " + kModel + " --quiet --ledger " + dir +
         "/ledger.jsonl";
}

void WriteInputs(const std::string& dir) {
  testing::WritePlantedPool(dir, 300, 0.3, 16, 9);
  testing::TestRng rng(77);
  std::string eval;
  for (int i = 0; i < 10; ++i)
    eval += nlohmann::json{{"text", testing::MakeDoc(rng, "tg", 150)}}.dump() + "\n";
  testing::WriteText(dir + "/eval.jsonl", eval);
}

TEST(LadderCli, ThreeRungsTheirReceiptsThePageAndARerunThatTrainsNothing) {
  const std::string dir = testing::ScratchDir("ladder_cli");
  WriteInputs(dir);
  const std::string cmd = "ladder " + Inputs(dir) +
                          " --rungs tiny:20,tiny:40,tiny:80 --project-to 1e12 --json --out " + dir +
                          "/ladder";
  auto r = RunCli(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  ASSERT_EQ(out["rungs"].size(), 3u);
  double last_flops = 0;
  for (const auto& rung : out["rungs"]) {
    for (const char* key : {"model", "steps", "flops", "compute_saved", "caught_up", "regime",
                            "trial_receipt", "out_dir"}) {
      EXPECT_TRUE(rung.contains(key)) << key;
    }
    for (const char* key : {"gross", "net", "ci95"})
      EXPECT_TRUE(rung["compute_saved"].contains(key));
    EXPECT_TRUE(rung["regime"].contains("informative"));
    EXPECT_GT(rung["flops"].get<double>(), last_flops);
    last_flops = rung["flops"].get<double>();
    EXPECT_EQ(rung["reused"], false);
  }
  EXPECT_EQ(out["rungs"][1]["steps"], 40);
  EXPECT_EQ(out["rungs"][1]["out_dir"], dir + "/ladder/rung-2-tiny-40");
  for (const char* key : {"slope_per_decade", "interval", "direction", "rungs_fitted"}) {
    EXPECT_TRUE(out["trend"].contains(key)) << key;
  }
  const std::string direction = out["trend"]["direction"];
  EXPECT_TRUE(direction == "grows" || direction == "shrinks" || direction == "holds" ||
              direction == "unclear")
      << direction;
  ASSERT_TRUE(out["projection"].is_object());
  EXPECT_EQ(out["projection"]["label"], "projection");
  EXPECT_DOUBLE_EQ(out["projection"]["flops"].get<double>(), 1e12);
  EXPECT_GE(out["projection"]["saving"].get<double>(), -1);
  EXPECT_LE(out["projection"]["saving"].get<double>(), 1);
  EXPECT_NE(out["projection"]["assumption"].get<std::string>().find("linearly in log compute"),
            std::string::npos);

  // A trial receipt per rung, then the ladder's, whose result is the document less "receipt".
  auto receipts = Receipts(dir + "/ledger.jsonl");
  ASSERT_EQ(receipts.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(receipts[i]["kind"], "trial");
    EXPECT_EQ(receipts[i]["hash"], out["rungs"][i]["trial_receipt"]);
  }
  EXPECT_EQ(receipts[3]["kind"], "ladder");
  EXPECT_EQ(receipts[3]["hash"], out["receipt"]);
  nlohmann::json result = out;
  result.erase("receipt");
  EXPECT_EQ(receipts[3]["result"], result);
  EXPECT_EQ(receipts[3]["config"]["rungs"].size(), 3u);
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/ledger.jsonl").exit_code, 0);

  // The arms were selected once: later rungs train on rung 1's files.
  for (const char* arm : {"curated", "random"}) {
    const std::string first = dir + "/ladder/rung-1-tiny-20/arms/" + std::string(arm) + ".jsonl";
    const std::string third = dir + "/ladder/rung-3-tiny-80/arms/" + std::string(arm) + ".jsonl";
    EXPECT_EQ(testing::ReadText(first), testing::ReadText(third)) << arm;
  }
  const std::string page = testing::ReadText(dir + "/ladder/ladder.html");
  for (const char* id : {"id=\"ladder-plot\"", "id=\"rungs\"", "id=\"trend\"", "PROJECTION"}) {
    EXPECT_NE(page.find(id), std::string::npos) << id;
  }

  // The rerun reads every rung back: no training, no new trial receipt, one new ladder receipt.
  auto again = RunCli(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto out2 = nlohmann::json::parse(again.out);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out2["rungs"][i]["reused"], true);
    EXPECT_EQ(out2["rungs"][i]["trial_receipt"], out["rungs"][i]["trial_receipt"]);
    EXPECT_EQ(out2["rungs"][i]["compute_saved"], out["rungs"][i]["compute_saved"]);
  }
  EXPECT_EQ(out2["trend"], out["trend"]);
  receipts = Receipts(dir + "/ledger.jsonl");
  ASSERT_EQ(receipts.size(), 5u);
  EXPECT_EQ(receipts[4]["kind"], "ladder");

  // Text output: the table, the trend, the projection in capitals.
  auto text = RunCli("ladder " + Inputs(dir) +
                     " --rungs tiny:20,tiny:40,tiny:80 --project-to 1e12 --out " + dir + "/ladder");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("trend:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("PROJECTION"), std::string::npos) << text.out;
}

TEST(LadderCli, BadRungsAreRefusedWithExit2BeforeAnythingIsWritten) {
  const std::string dir = testing::ScratchDir("ladder_bad_rungs");
  WriteInputs(dir);
  for (const char* rungs :
       {"tiny:20,tiny:40", "tiny:40,tiny:20,tiny:80", "tiny:20,tiny:x,tiny:80", "tiny:20,,tiny:80",
        "huge:20,huge:40,huge:80", "tiny:0,tiny:1,tiny:2"}) {
    auto r = RunCli("ladder " + Inputs(dir) + " --rungs " + rungs + " --out " + dir + "/ladder");
    EXPECT_EQ(r.exit_code, 2) << rungs << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  }
  // A missing held-out file is named, and nothing is written either.
  auto r = RunCli("ladder " + Inputs(dir, "no-such-eval.jsonl") +
                  " --rungs tiny:20,tiny:40,tiny:80 --out " + dir + "/ladder");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-eval.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(testing::Exists(dir + "/ladder"));
  EXPECT_FALSE(testing::Exists(dir + "/ledger.jsonl"));
}

}  // namespace
}  // namespace preflight::ladder_cli_test
