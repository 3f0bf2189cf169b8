// `preflight ledger report` through the binary, on a ledger a real trial wrote: the site's pages,
// the receipts they name, the link to the trial's report.html; a missing or damaged ledger and a
// foreign --out folder are refused. And the receipts → rows step on receipts made by hand
// (ladders, older forecasts), which no job here writes yet.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/ledger_site_job.h"
#include "base/number_format.h"
#include "ledger/ledger.h"
#include "ledger/receipt.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::ledger_site_cli_test {
namespace {

using nlohmann::json;
using testing::Exists;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;

const char* kModel = "--layers 1 --d-model 32 --heads 2 --context 32 --batch 8 --threads 1";

// One ledger with a forecast and a trial, made once for the tests that read it.
class LedgerSiteCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(ScratchDir("ledger_site_cli"));
    testing::WritePlantedPool(*dir_, 300, 0.3, 16, 11);
    testing::TestRng rng(5);
    std::string eval;
    for (int i = 0; i < 10; ++i)
      eval += json{{"text", testing::MakeDoc(rng, "tg", 150)}}.dump() + "\n";
    testing::WriteText(*dir_ + "/eval.jsonl", eval);
    auto r =
        RunCli("trial --pool " + *dir_ + "/pool.jsonl --target-select " + *dir_ +
               "/target.jsonl --target-eval " + *dir_ + "/eval.jsonl --steps 40 --seeds 2 " +
               kModel + " --quiet --out " + *dir_ + "/trial --ledger " + *dir_ + "/ledger.jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::vector<json> Receipts() {
    auto all = ledger::ReadAll(*dir_ + "/ledger.jsonl");
    EXPECT_TRUE(all.ok()) << all.status().message();
    return all.ok() ? *all : std::vector<json>{};
  }

  static std::string* dir_;
};
std::string* LedgerSiteCli::dir_ = nullptr;

TEST_F(LedgerSiteCli, BuildsTheIndexAndAPagePerTrial) {
  const std::vector<json> receipts = Receipts();
  ASSERT_EQ(receipts.size(), 2u);
  const json& forecast = receipts[0];
  const json& trial = receipts[1];
  const std::string site = *dir_ + "/site";
  auto r = RunCli("ledger report --json --ledger " + *dir_ + "/ledger.jsonl --out " + site);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["receipts"], 2);
  EXPECT_EQ(out["trials"], 1);
  EXPECT_EQ(out["ladders"], 0);
  EXPECT_EQ(out["index"], site + "/index.html");

  const std::string index = ReadText(site + "/index.html");
  const std::string hash16 = trial["hash"].get<std::string>().substr(0, 16);
  EXPECT_NE(index.find("<tr class=\"trial\" data-hash=\"" + trial["hash"].get<std::string>()),
            std::string::npos);
  EXPECT_NE(index.find("title=\"receipt " + hash16 + "\""), std::string::npos);
  EXPECT_NE(index.find(forecast["hash"].get<std::string>().substr(0, 16)), std::string::npos);
  EXPECT_NE(index.find(".html\">target</a></td>"), std::string::npos)
      << "the target's name: its stem";
  EXPECT_NE(index.find("tiny · 40 steps"), std::string::npos);
  EXPECT_NE(index.find("<svg id=\"calibration-plot\""), std::string::npos);
  EXPECT_NE(index.find("No ladders yet."), std::string::npos);
  EXPECT_EQ(index.find("<script"), std::string::npos);
  EXPECT_EQ(index.find("http://"), index.find("http://www.w3.org/2000/svg")) << "nothing fetched";

  const std::string page_path = site + "/trials/" + hash16 + ".html";
  ASSERT_TRUE(Exists(page_path));
  const std::string page = ReadText(page_path);
  for (const json& in : trial["inputs"]) {
    EXPECT_NE(page.find(in["sha256"].get<std::string>()), std::string::npos) << in.dump();
  }
  // The receipt records its folder; report.html is still there, so the page links it.
  const std::string report = trial["result"]["out_dir"].get<std::string>() + "/report.html";
  EXPECT_EQ(trial["result"]["out_dir"], std::filesystem::absolute(*dir_ + "/trial").string());
  EXPECT_NE(page.find("href=\"file://" + report + "\""), std::string::npos);
  EXPECT_NE(page.find("&quot;kind&quot;: &quot;trial&quot;"), std::string::npos);

  // Built again over itself: replaced whole, no temporaries left beside it.
  std::filesystem::remove(report);
  r = RunCli("ledger report --ledger " + *dir_ + "/ledger.jsonl --out " + site);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 trials"), std::string::npos) << r.out;
  EXPECT_EQ(ReadText(page_path).find("id=\"report\""), std::string::npos) << "report.html is gone";
  for (const auto& entry : std::filesystem::directory_iterator(*dir_)) {
    EXPECT_EQ(entry.path().filename().string().find("site."), std::string::npos) << entry.path();
  }
}

TEST_F(LedgerSiteCli, HelpTeachesTheCommand) {
  auto r = RunCli("ledger report --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--out"), std::string::npos);
  EXPECT_NE(r.out.find("calibration"), std::string::npos);
  EXPECT_NE(r.out.find("preflight ledger report --ledger"), std::string::npos);
}

TEST_F(LedgerSiteCli, RefusesAMissingLedgerNamingIt) {
  const std::string dir = ScratchDir("ledger_site_missing");
  auto r = RunCli("ledger report --ledger " + dir + "/nope.jsonl --out " + dir + "/site");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/nope.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dir + "/site"));
}

TEST_F(LedgerSiteCli, RefusesALedgerThatFailsVerification) {
  const std::string dir = ScratchDir("ledger_site_damaged");
  std::string text = ReadText(*dir_ + "/ledger.jsonl");
  const size_t at = text.find("\"selector\":\"dsir\"");
  ASSERT_NE(at, std::string::npos);
  text = text.substr(0, at) + "\"selector\":\"xxxx\"" + text.substr(at + 17);
  testing::WriteText(dir + "/ledger.jsonl", text);
  auto r = RunCli("ledger report --ledger " + dir + "/ledger.jsonl --out " + dir + "/site");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/ledger.jsonl: line 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fails verification"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dir + "/site"));
}

TEST_F(LedgerSiteCli, LeavesAFolderThatIsNotASiteAlone) {
  const std::string dir = ScratchDir("ledger_site_foreign");
  testing::WriteText(dir + "/notes.txt", "mine");
  auto r = RunCli("ledger report --ledger " + *dir_ + "/ledger.jsonl --out " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a site"), std::string::npos) << r.err;
  EXPECT_EQ(ReadText(dir + "/notes.txt"), "mine");
  EXPECT_FALSE(Exists(dir + "/index.html"));
}

// Issue 31: the site is renamed into place, which replaced a --out that was a symbolic link.
TEST_F(LedgerSiteCli, RefusesASymbolicLinkAndLeavesIt) {
  const std::string dir = ScratchDir("ledger_site_link");
  std::filesystem::create_directories(dir + "/real");
  std::filesystem::create_directory_symlink(dir + "/real", dir + "/site");
  auto r = RunCli("ledger report --ledger " + *dir_ + "/ledger.jsonl --out " + dir + "/site");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir + "/site: --out names a symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/site"));
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/real"));
}

TEST(SiteDataFromReceipts, JoinsForecastsAndReadsLaddersBatteriesTrainsAndScores) {
  const std::string f(64, 'f');
  std::vector<json> receipts = {
      // An older forecast: no probability.
      {{"kind", "forecast"},
       {"hash", f},
       {"result", {{"verdict", "curate"}, {"predicted_saving", 0.2}, {"interval", {0.1, 0.3}}}}},
      {{"kind", "trial"},
       {"hash", std::string(64, 't')},
       {"config",
        {{"forecast", f},
         {"target_select", "/d/brown-news.jsonl.zst"},
         {"target_name", ""},
         {"selector", "dsir"},
         {"steps", 300},
         {"model", {{"name", "tiny"}}}}},
       {"result",
        {{"caught_up", true},
         {"compute_saved", {{"gross", 0.3}, {"net", 0.25}, {"ci95", {0.2, 0.3}}}},
         {"forecast", {{"receipt", f}, {"verdict", "curate"}, {"correct", true}}},
         {"out_dir", "/nonexistent/run"}}}},
      {{"kind", "ladder"},
       {"hash", std::string(64, 'l')},
       {"result",
        {{"rungs",
          {{{"model", "tiny"},
            {"steps", 300},
            {"flops", 1e10},
            {"compute_saved", {{"gross", 0.3}, {"net", 0.2}, {"ci95", {0.1, 0.3}}}},
            {"caught_up", true}},
           {{"model", "small"}, {"steps", 600}, {"flops", 1e11}, {"caught_up", false}}}},
         {"trend", {{"slope_per_decade", -0.1}, {"interval", {-0.2, 0}}, {"direction", "shrinks"}}},
         {"projection",
          {{"flops", 1e21},
           {"saving", 0.05},
           {"interval", {-0.2, 0.3}},
           {"assumption", "the trend holds"}}}}}},
      {{"kind", "battery"},
       {"hash", std::string(64, 'b')},
       {"config", {{"selector", "dsir"}, {"model", "tiny"}}},
       {"result",
        {{"rows", json::array({1, 2, 3})},
         {"evaluation",
          {{"forecast",
            {{"all", {{"right", 2}, {"wrong", 1}, {"abstained", 0}, {"accuracy", 2.0 / 3}}}}}}}}}},
      {{"kind", "train"},
       {"hash", std::string(64, 'r')},
       {"result",
        {{"model", {{"name", "small"}}},
         {"params", 1e6},
         {"tokens", 2e6},
         {"final_eval_bpb", 1.9}}}},
      {{"kind", "selection"}, {"hash", std::string(64, 's')}},
      // Runs made elsewhere: one with the cost stated, one without (its net is nulled).
      {{"kind", "score"},
       {"hash", std::string(64, 'c')},
       {"config", {{"name", "nanogpt-ablation"}}},
       {"result",
        {{"caught_up", true},
         {"net_stated", true},
         {"compute_saved",
          {{"gross", 0.4},
           {"ci95_gross", {0.3, 0.5}},
           {"net", 0.35},
           {"ci95", {0.2, 0.45}},
           {"per_seed", json::array({1, 2, 3})}}}}}},
      {{"kind", "score"},
       {"hash", std::string(64, 'd')},
       {"result",
        {{"caught_up", true},
         {"net_stated", false},
         {"compute_saved", {{"gross", 0.1}, {"net", nullptr}, {"ci95", {nullptr, nullptr}}}}}}}};
  const report::SiteData d = app::SiteDataFromReceipts(receipts, "L");
  EXPECT_EQ(d.receipts, 8);
  ASSERT_EQ(d.trials.size(), 1u);
  const report::SiteTrial& t = d.trials[0];
  EXPECT_EQ(t.target, "brown-news");
  EXPECT_EQ(t.forecast.hash, f);
  EXPECT_FALSE(t.forecast.probability.has_value());
  EXPECT_DOUBLE_EQ(*t.forecast.predicted_saving, 0.2);
  EXPECT_EQ(t.forecast.interval, (report::Bounds{0.1, 0.3}));
  EXPECT_EQ(t.forecast.correct, true);
  EXPECT_FALSE(t.informative.has_value());
  EXPECT_EQ(t.report_path, "") << "no report.html there: no link";
  ASSERT_EQ(d.ladders.size(), 1u);
  ASSERT_EQ(d.ladders[0].rungs.size(), 2u);
  EXPECT_DOUBLE_EQ(*d.ladders[0].rungs[0].net, 0.2);
  EXPECT_FALSE(d.ladders[0].rungs[1].caught_up);
  EXPECT_EQ(d.ladders[0].direction, "shrinks");
  EXPECT_EQ(d.ladders[0].projection,
            "net saving 5.0% (-20.0% to 30.0%) at " + FormatFlops(1e21) + "; the trend holds");
  ASSERT_EQ(d.batteries.size(), 1u);
  EXPECT_EQ(d.batteries[0].targets, 3);
  EXPECT_EQ(d.batteries[0].right, 2);
  ASSERT_EQ(d.trains.size(), 1u);
  EXPECT_DOUBLE_EQ(*d.trains[0].final_eval_bpb, 1.9);
  ASSERT_EQ(d.scores.size(), 2u);
  EXPECT_EQ(d.scores[0].name, "nanogpt-ablation");
  EXPECT_EQ(d.scores[0].runs_per_arm, 3);
  EXPECT_DOUBLE_EQ(*d.scores[0].net, 0.35);
  EXPECT_EQ(d.scores[0].ci95_gross, (report::Bounds{0.3, 0.5}));
  EXPECT_FALSE(d.scores[1].net_stated);
  EXPECT_FALSE(d.scores[1].net.has_value());
  EXPECT_DOUBLE_EQ(*d.scores[1].gross, 0.1);
}

}  // namespace
}  // namespace preflight::ledger_site_cli_test
