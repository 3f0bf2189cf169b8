// `preflight ladder --keep LIST` through the binary, on a pool built so that the answer is known:
// documents run from pure target text (phrases of the target's own) down to pure background
// (upper-case noise), so the smaller the fraction the purer it is; the pool is small, so at the
// top rung the smallest fraction (about one document) is read over a hundred times and covers
// few of the target's phrases. The smallest fraction must win at the bottom rung and lose at the
// top: the best fraction grows with compute. Also: the keys, the epochs, one baseline per rung,
// compute-matched runs, receipts, the page; one --keep value as before; bad lists refused.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ledger/ledger.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::ladder_keep_cli_test {
namespace {

using nlohmann::json;
using testing::RunCli;

const char* kShape = "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1";

std::string RandomWord(testing::TestRng& rng, int lo, int hi, char first) {
  std::string w;
  for (int i = lo + rng.Below(hi - lo); i > 0; --i) w += static_cast<char>(first + rng.Below(26));
  return w;
}

// 40 slots, each one of the target's phrases with probability `purity`, else upper-case noise.
std::string KeepPoolDoc(testing::TestRng& rng, const std::vector<std::string>& phrases,
                        double purity) {
  std::string text;
  for (int slot = 0; slot < 40; ++slot) {
    if (slot) text += ", ";
    text += rng.Below(1000) < purity * 1000 ? phrases[rng.Below(static_cast<int>(phrases.size()))]
                                            : RandomWord(rng, 8, 20, 'A');
  }
  return text + ".";
}

// pool.jsonl (60 documents, purity (1 - i/59)^3 in a shuffled order), target.jsonl and
// eval.jsonl (pure target text).
void WriteKeepPool(const std::string& dir) {
  testing::TestRng rng(2024);
  std::vector<std::string> phrases;
  for (int p = 0; p < 300; ++p) {
    phrases.push_back(RandomWord(rng, 3, 7, 'a') + " " + RandomWord(rng, 3, 7, 'a') + " " +
                      RandomWord(rng, 3, 7, 'a'));
  }
  const int n = 60;
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  for (int i = n - 1; i > 0; --i) std::swap(order[i], order[rng.Below(i + 1)]);
  std::string pool, target, eval;
  for (int i : order) {
    const double purity = std::pow(1 - i / double(n - 1), 3);
    pool +=
        json{{"id", "d" + std::to_string(i)}, {"text", KeepPoolDoc(rng, phrases, purity)}}.dump() +
        "\n";
  }
  for (int i = 0; i < 16; ++i) target += json{{"text", KeepPoolDoc(rng, phrases, 1)}}.dump() + "\n";
  for (int i = 0; i < 10; ++i) eval += json{{"text", KeepPoolDoc(rng, phrases, 1)}}.dump() + "\n";
  testing::WriteText(dir + "/pool.jsonl", pool);
  testing::WriteText(dir + "/target.jsonl", target);
  testing::WriteText(dir + "/eval.jsonl", eval);
}

std::string Inputs(const std::string& dir) {
  return "--pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl --target-eval " +
         dir + "/eval.jsonl --seeds 2 --eval-windows 32 --lr 3e-3 " + kShape +
         " --quiet --ledger " + dir + "/ledger.jsonl";
}

json ReadJson(const std::string& path) { return json::parse(testing::ReadText(path)); }

TEST(LadderKeepCli, TheBestFractionGrowsWhenTheSmallestIsRepeatedAtTheTopRung) {
  const std::string dir = testing::ScratchDir("ladder_keep_cli");
  WriteKeepPool(dir);
  auto r =
      RunCli("ladder " + Inputs(dir) +
             " --rungs tiny:40,tiny:160,tiny:1280 --keep 0.3,0.02 --json --out " + dir + "/ladder");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  ASSERT_EQ(out["rungs"].size(), 3u);
  const std::vector<double> keeps = {0.02, 0.3};  // given out of order: sorted
  for (size_t i = 0; i < 3; ++i) {
    const json& rung = out["rungs"][i];
    ASSERT_EQ(rung["keeps"].size(), 2u);
    const int64_t tokens = rung["steps"].get<int64_t>() * 8 * 32;  // steps x batch x context
    // One baseline per rung (the whole pool), an arm per fraction, two seeds each, all alike.
    const std::string folder = rung["out_dir"];
    const json trial = ReadJson(folder + "/trial.json");
    EXPECT_EQ(trial["config"]["keeps"], json(keeps));
    EXPECT_EQ(trial["runs"].size(), 6u);
    const json result = ReadJson(folder + "/result.json");
    for (const json& run : result["compute"]["runs"]) {
      EXPECT_EQ(run["tokens_per_step"], 8 * 32) << run;
      EXPECT_EQ(run["flops_per_step"], result["compute"]["runs"][0]["flops_per_step"]) << run;
    }
    const json& pool_arm = trial["arms"]["random"];
    EXPECT_EQ(pool_arm["kept_bytes"], pool_arm["pool_bytes"]);
    EXPECT_DOUBLE_EQ(rung["baseline"]["keep"].get<double>(), 1.0);
    for (size_t k = 0; k < keeps.size(); ++k) {
      const json& arm = rung["keeps"][k];
      EXPECT_DOUBLE_EQ(arm["keep"].get<double>(), keeps[k]);
      for (const char* key : {"gross", "net", "net_ci95", "end_loss", "epochs", "caught_up"}) {
        EXPECT_TRUE(arm.contains(key)) << key;
      }
      EXPECT_EQ(arm["net_ci95"].size(), 2u);
      // Epochs: one run's tokens over the arm's tokens (its bytes and a boundary per document).
      const json& record = trial["arms"]["keep-" + arm["keep"].dump()];
      const double data = record["kept_bytes"].get<double>() + record["kept_docs"].get<double>();
      EXPECT_DOUBLE_EQ(arm["epochs"].get<double>(), tokens / data) << arm;
      EXPECT_NEAR(record["kept_bytes"].get<double>() / record["pool_bytes"].get<double>(), keeps[k],
                  0.05);
    }
    EXPECT_TRUE(rung.contains("best_keep"));
  }
  // By construction: the smallest fraction is read over a hundred times at the top rung.
  EXPECT_GT(out["rungs"][2]["keeps"][0]["epochs"].get<double>(), 100);
  EXPECT_LT(out["rungs"][0]["keeps"][0]["epochs"].get<double>(), 10);
  // The known answer: the purest fraction wins while little is repeated, and loses in every
  // seed once it is read over a hundred times.
  EXPECT_DOUBLE_EQ(out["rungs"][0]["best_keep"].get<double>(), 0.02) << out["rungs"][0];
  EXPECT_GE(out["rungs"][0]["best"]["share"].get<double>(), 0.9) << out["rungs"][0];
  const json& top = out["rungs"][2];
  EXPECT_GT(top["best_keep"].get<double>(), 0.02) << top;
  for (size_t s = 0; s < 2; ++s) {
    const double smallest = top["keeps"][0]["end_loss_per_seed"][s];
    const double other = std::min(top["keeps"][1]["end_loss_per_seed"][s].get<double>(),
                                  top["baseline"]["end_loss_per_seed"][s].get<double>());
    EXPECT_GT(smallest, other) << "seed " << s + 1 << ": " << top;
  }
  ASSERT_TRUE(out["keep_trend"]["slope_per_decade"].is_number()) << out["keep_trend"];
  EXPECT_GT(out["keep_trend"]["slope_per_decade"].get<double>(), 0);

  // The recommendation, at the largest rung by default: made, or refused with its reason.
  const json& rec = out["recommendation"];
  for (const char* key : {"flops", "keep", "interval", "extrapolated", "reason"}) {
    EXPECT_TRUE(rec.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(rec["flops"].get<double>(), top["flops"].get<double>());
  EXPECT_EQ(rec["extrapolated"], false);
  EXPECT_FALSE(rec["reason"].get<std::string>().empty());
  bool any_informative = false;
  for (const json& rung : out["rungs"]) any_informative |= rung["regime"]["informative"] == true;
  if (!any_informative) {
    EXPECT_TRUE(rec["keep"].is_null()) << rec;
    EXPECT_NE(rec["reason"].get<std::string>().find("n-gram"), std::string::npos) << rec;
  } else if (!rec["keep"].is_null()) {
    EXPECT_GT(rec["keep"].get<double>(), 0);
    EXPECT_LE(rec["keep"].get<double>(), 1);
  }

  // A trial receipt per rung, then the ladder's, whose result is the document less "receipt".
  auto receipts = ledger::ReadAll(dir + "/ledger.jsonl");
  ASSERT_TRUE(receipts.ok());
  ASSERT_EQ(receipts->size(), 4u);
  const json& ladder = (*receipts)[3];
  EXPECT_EQ(ladder["kind"], "ladder");
  json result = out;
  result.erase("receipt");
  EXPECT_EQ(ladder["result"], result);
  EXPECT_EQ(ladder["config"]["keeps"], json(keeps));
  EXPECT_DOUBLE_EQ(ladder["config"]["keep"].get<double>(), 1.0);
  const std::string page = testing::ReadText(dir + "/ladder/ladder.html");
  for (const char* id : {"id=\"keep-plot\"", "id=\"keeps\"", "id=\"recommendation\"",
                         "class=\"keep-line\" data-keep=\"0.02\""}) {
    EXPECT_NE(page.find(id), std::string::npos) << id;
  }

  // Beyond the rungs, by a model and step count: marked an extrapolation.
  auto far = RunCli("ladder " + Inputs(dir) +
                    " --rungs tiny:40,tiny:160,tiny:1280 --keep 0.02,0.3 --at tiny:12800 "
                    "--json --out " +
                    dir + "/ladder");
  ASSERT_EQ(far.exit_code, 0) << far.err;
  const json again = json::parse(far.out);
  EXPECT_EQ(again["recommendation"]["extrapolated"], true);
  EXPECT_DOUBLE_EQ(again["recommendation"]["flops"].get<double>(), 10 * top["flops"].get<double>());
  EXPECT_EQ(again["rungs"][2]["keeps"], top["keeps"]);  // read back, not trained again
}

TEST(LadderKeepCli, OneKeepValueIsTheLadderAsBefore) {
  const std::string dir = testing::ScratchDir("ladder_one_keep");
  testing::WritePlantedPool(dir, 200, 0.3, 12, 9);
  testing::WriteText(dir + "/eval.jsonl", testing::PlantedEval(5));
  const std::string rungs = " --rungs tiny:10,tiny:20,tiny:40 --json --out " + dir;
  auto plain = RunCli("ladder " + Inputs(dir) + rungs + "/plain");
  auto one = RunCli("ladder " + Inputs(dir) + " --keep 0.25" + rungs + "/one");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const json a = json::parse(plain.out), b = json::parse(one.out);
  EXPECT_FALSE(b.contains("recommendation"));
  EXPECT_FALSE(b.contains("keep_trend"));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(b["rungs"][i].contains("keeps"));
    EXPECT_EQ(a["rungs"][i]["compute_saved"]["gross"], b["rungs"][i]["compute_saved"]["gross"]);
    EXPECT_EQ(a["rungs"][i]["regime"], b["rungs"][i]["regime"]);
    const json ca = ReadJson(a["rungs"][i]["out_dir"].get<std::string>() + "/trial.json");
    const json cb = ReadJson(b["rungs"][i]["out_dir"].get<std::string>() + "/trial.json");
    EXPECT_EQ(ca["config"], cb["config"]);  // the same fingerprint
    EXPECT_FALSE(cb["config"].contains("keeps"));
  }
}

TEST(LadderKeepCli, BadListsAreRefusedWithExit2BeforeAnythingIsWritten) {
  const std::string dir = testing::ScratchDir("ladder_bad_keeps");
  testing::WritePlantedPool(dir, 60, 0.3, 8, 9);
  testing::WriteText(dir + "/eval.jsonl", testing::PlantedEval(5));
  for (const char* flags : {"--keep 0.1,0.1", "--keep 0.1,1", "--keep 0,0.5", "--keep 0.1,x",
                            "--keep 0.1,", "--keep 1.5", "--at-flops 1e12",
                            "--keep 0.1,0.2 --at-flops -1", "--keep 0.1,0.2 --at huge:10"}) {
    auto r = RunCli("ladder " + Inputs(dir) + " --rungs tiny:10,tiny:20,tiny:40 " + flags +
                    " --out " + dir + "/ladder");
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(testing::Exists(dir + "/ladder"));
  EXPECT_FALSE(testing::Exists(dir + "/ledger.jsonl"));
}

}  // namespace
}  // namespace preflight::ladder_keep_cli_test
