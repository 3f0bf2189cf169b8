// `preflight score` on the curves of a builtin trial gives that trial's numbers (gross, net with
// the trial's own costs stated, the interval, L*, the regime), says that preflight did not make
// the arms, and appends a "score" receipt; without a stated cost the net is not reported.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::trainer {
namespace {

using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

std::string Curves(const std::string& trial, const std::string& arm) {
  return trial + "/runs/" + arm + "-s1/curve.jsonl " + trial + "/runs/" + arm + "-s2/curve.jsonl";
}

TEST(ScoreCli, TheCurvesOfATrialGiveTheTrialsNumbers) {
  const std::string dir = ScratchDir("score_trial");
  preflight::testing::WritePlantedTrial(dir, 41);
  const std::string trial = dir + "/trial";
  auto t = RunCli("trial --pool " + dir + "/pool.jsonl --target-select " + dir +
                  "/target.jsonl --target-eval " + dir +
                  "/eval.jsonl --selector dsir --seeds 2 --steps 40 --eval-every 4 "
                  "--eval-windows 16 --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 "
                  "--threads 1 --quiet --json --ledger " +
                  dir + "/ledger.jsonl --out " + trial);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const nlohmann::json want = nlohmann::json::parse(ReadText(trial + "/result.json"));
  const nlohmann::json& cost = want["comparisons"][0]["cost"];
  const std::string stated = fmt::format(
      " --selection-core-seconds {:.17g} --random-core-seconds {:.17g} --step-seconds {:.17g}",
      cost["arm_core_seconds"].get<double>(), cost["baseline_core_seconds"].get<double>(),
      want["compute"]["core_seconds_per_step"].get<double>());
  const std::string regime = " --curated-data " + trial + "/arms/curated.jsonl --random-data " +
                             trial + "/arms/random.jsonl --eval-data " + dir +
                             "/eval.jsonl --context 32 --eval-windows 16";
  auto s = RunCli("score --curated " + Curves(trial, "curated") + " --random " +
                  Curves(trial, "random") + stated + regime + " --json --ledger " + dir +
                  "/ledger.jsonl --out " + dir + "/scored");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const nlohmann::json got = nlohmann::json::parse(s.out);
  for (const char* key : {"gross", "net", "ci95", "ci95_gross", "per_seed"}) {
    EXPECT_EQ(got["compute_saved"][key], want["compute_saved"][key]) << key;
  }
  for (const char* key : {"l_star", "t_random", "t_curated", "caught_up"}) {
    EXPECT_EQ(got[key], want[key]) << key;
  }
  for (const char* key : {"ngram_bpb", "bigram_bpb", "margin", "informative"}) {
    EXPECT_EQ(got["regime"][key], want["regime"][key]) << key;
  }
  EXPECT_EQ(got["made_by"], "elsewhere");
  EXPECT_NE(got["note"].get<std::string>().find("preflight did not make the arms"),
            std::string::npos);
  EXPECT_EQ(got["unit"], "bits per byte");
  const std::string page = ReadText(dir + "/scored/report.html");
  EXPECT_NE(page.find("preflight did not make the arms"), std::string::npos);
  EXPECT_NE(page.find(got["receipt"].get<std::string>()), std::string::npos);
  auto show = RunCli("ledger show --kind score --ledger " + dir + "/ledger.jsonl");
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("score"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("made elsewhere: gross"), std::string::npos) << show.out;
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/ledger.jsonl").exit_code, 0);

  // No cost stated: the gross alone; the net is not reported.
  auto gross_only = RunCli("score --curated " + Curves(trial, "curated") + " --random " +
                           Curves(trial, "random") + " --json --ledger " + dir +
                           "/ledger.jsonl --out " + dir + "/gross");
  ASSERT_EQ(gross_only.exit_code, 0) << gross_only.err;
  const nlohmann::json g = nlohmann::json::parse(gross_only.out);
  EXPECT_EQ(g["compute_saved"]["gross"], want["compute_saved"]["gross"]);
  EXPECT_TRUE(g["compute_saved"]["net"].is_null());
  EXPECT_FALSE(g["net_stated"].get<bool>());
  EXPECT_TRUE(g["regime"].is_null());
  auto text =
      RunCli("score --curated " + Curves(trial, "curated") + " --random " +
             Curves(trial, "random") + " --ledger " + dir + "/ledger.jsonl --out " + dir + "/text");
  EXPECT_NE(text.out.find("net         not stated"), std::string::npos) << text.out;
}

// Issue 31: the help said "paired by order" while the interval is the unpaired bootstrap.
TEST(ScoreCli, HelpSaysWhichBootstrapTheIntervalIs) {
  auto help = RunCli("score --help");
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("resamples each arm's seeds independently (unpaired"), std::string::npos)
      << help.out;
  EXPECT_EQ(help.out.find("paired by order"), std::string::npos) << help.out;
}

TEST(ScoreCli, BadInputExitsTwo) {
  const std::string dir = ScratchDir("score_bad");
  WriteText(dir + "/a.jsonl", "{\"step\": 0, \"eval_bpb\": 5}\n{\"step\": 10, \"eval_bpb\": 3}\n");
  WriteText(dir + "/b.jsonl", "{\"step\": 0, \"eval_bpb\": 5}\n{\"step\": 10, \"eval_bpb\": 4}\n");
  WriteText(dir + "/short.jsonl", "{\"step\": 0, \"eval_bpb\": 5}\n");
  WriteText(dir + "/bad.jsonl", "{\"step\": 0, \"eval_bpb\": 5}\nnot json\n");
  const std::string tail = " --ledger " + dir + "/ledger.jsonl --out " + dir + "/out";
  auto unpaired = RunCli("score --curated " + dir + "/a.jsonl " + dir + "/a.jsonl --random " + dir +
                         "/b.jsonl" + tail);
  EXPECT_EQ(unpaired.exit_code, 2);
  EXPECT_NE(unpaired.err.find("2 --curated curves but 1 --random"), std::string::npos);
  auto short_curve =
      RunCli("score --curated " + dir + "/a.jsonl --random " + dir + "/short.jsonl" + tail);
  EXPECT_EQ(short_curve.exit_code, 2);
  EXPECT_NE(short_curve.err.find("short.jsonl: the curve is short"), std::string::npos)
      << short_curve.err;
  auto bad = RunCli("score --curated " + dir + "/a.jsonl --random " + dir + "/bad.jsonl" + tail);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.jsonl:2:"), std::string::npos) << bad.err;
  auto half_cost = RunCli("score --curated " + dir + "/a.jsonl --random " + dir +
                          "/b.jsonl --selection-core-seconds 3" + tail);
  EXPECT_EQ(half_cost.exit_code, 2);
  EXPECT_NE(half_cost.err.find("--step-seconds"), std::string::npos);
  // Issue 31: an --out that cannot be a folder exited 1 (select and trial: 2), after the work.
  WriteText(dir + "/file", "");
  auto unwritable = RunCli("score --curated " + dir + "/a.jsonl --random " + dir +
                           "/b.jsonl --ledger " + dir + "/ledger.jsonl --out " + dir + "/file");
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.err;
  EXPECT_NE(unwritable.err.find(dir + "/file: " + dir + "/file is not a folder"), std::string::npos)
      << unwritable.err;
  EXPECT_FALSE(Exists(dir + "/ledger.jsonl"));  // refused before any receipt
  auto ok =
      RunCli("score --curated " + dir + "/a.jsonl --random " + dir + "/b.jsonl --json" + tail);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["unit"], "bits per token");
}

}  // namespace
}  // namespace preflight::trainer
