#include "report/ledger_site.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "report/ledger_site_plot.h"
#include "sample_site.h"
#include "testing/testing.h"

namespace preflight::report {
namespace {

using ::preflight::report::testing::Hash;
using ::preflight::report::testing::SampleSite;

TEST(LedgerSite, EveryTrialHasARowLinkingItsPage) {
  const SiteData d = SampleSite();
  const std::string html = RenderSiteIndex(d);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "<tr class=\"trial\""), d.trials.size());
  for (const SiteTrial& t : d.trials) {
    EXPECT_NE(html.find("data-hash=\"" + t.hash + "\""), std::string::npos) << t.target;
    EXPECT_NE(html.find("href=\"trials/" + t.hash.substr(0, 16) + ".html\""), std::string::npos);
    EXPECT_EQ(TrialPagePath(t), "trials/" + t.hash.substr(0, 16) + ".html");
  }
  EXPECT_NE(html.find("<table id=\"trials\">"), std::string::npos);
  // The facts of the first row: pilot, regime, gross and net with intervals, forecast, mark.
  EXPECT_NE(html.find("tiny · 300 steps"), std::string::npos);
  EXPECT_NE(html.find("27.4% <span class=\"ci\">(19.1% to 35.2%)</span>"), std::string::npos);
  EXPECT_NE(html.find("informative</span> <span class=\"ci\">(margin +0.412 bits)"),
            std::string::npos);
  EXPECT_NE(html.find("curate <span class=\"prob\">(p 83%)</span> <span class=\"ci\"><code>" +
                      Hash('f').substr(0, 16) + "</code></span>"),
            std::string::npos);
  EXPECT_NE(html.find("never caught up"), std::string::npos);
  EXPECT_NE(html.find(">abstained<"), std::string::npos);
  EXPECT_NE(html.find("not checked"), std::string::npos);  // before the regime check
}

TEST(LedgerSite, EveryNumberNamesTheReceiptItCameFrom) {
  const SiteData d = SampleSite();
  const std::string html = RenderSiteIndex(d);
  // Every numeric cell carries a title naming a receipt, and each one is a receipt on the page.
  std::regex cell(
      "<td class=\"(num|pilot|regime|verdict|correct)\" title=\"receipt ([0-9a-f]{16})\"");
  size_t cells = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator();
       ++it) {
    ++cells;
    EXPECT_NE(html.find("<code>" + (*it)[2].str() + "</code>"), std::string::npos) << (*it)[2];
  }
  EXPECT_EQ(::preflight::testing::Occurrences(html, "<td class=\"num\">"), 0u)
      << "a number without its receipt";
  // 6 per trial, 7 per battery, 4 per training run.
  EXPECT_EQ(cells, 6 * d.trials.size() + 7 + 4);
  // The verdict cell names the forecast's receipt, not the trial's.
  EXPECT_NE(html.find("<td class=\"verdict\" title=\"receipt " + Hash('f').substr(0, 16)),
            std::string::npos);
  // Points of the plots name their receipts too.
  EXPECT_NE(html.find("trial " + Hash('a').substr(0, 16) + ", forecast " + Hash('f').substr(0, 16)),
            std::string::npos);
  EXPECT_NE(html.find("(receipt " + Hash('9').substr(0, 16) + ")"), std::string::npos);
}

TEST(LedgerSite, EscapesAHostileTargetName) {
  SiteData d = SampleSite();
  d.trials[0].target = "<script>alert(\"x\")</script>&'";
  d.trials[0].receipt_json = "{\"target_name\": \"</pre><script>\"}";
  const std::string index = RenderSiteIndex(d);
  const std::string page = RenderSiteTrialPage(d.trials[0]);
  for (const std::string& html : {index, page}) {
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"),
              std::string::npos);
  }
  EXPECT_EQ(::preflight::testing::Occurrences(page, "</pre>"), 1u);
}

TEST(LedgerSite, CalibrationPlotsAPointPerForecastAndTheIdentity) {
  const SiteData d = SampleSite();
  const std::string html = RenderSiteIndex(d);
  EXPECT_NE(html.find("<svg id=\"calibration-plot\""), std::string::npos);
  EXPECT_NE(html.find("<line id=\"identity\""), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "<circle class=\"point\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"x-bar\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"y-bar\""),
            2u);  // the one that never caught up has none
  // Accuracy in ledger order: right (100%), then wrong (50%); the abstention adds no point.
  EXPECT_NE(html.find("<svg id=\"accuracy-plot\""), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"accuracy-point\""), 2u);
  EXPECT_NE(html.find("): 100.0% right"), std::string::npos);
  EXPECT_NE(html.find("): 50.0% right"), std::string::npos);
  EXPECT_NE(html.find("Decisions right: 1 of 2 (50.0%); 1 abstained"), std::string::npos);
}

TEST(LedgerSite, ReliabilityPlotBinsTheForecastsProbabilitiesWithTheirCounts) {
  const SiteData d = SampleSite();
  // a: 83%, paid; b: 61%, did not pay; c: no probability recorded (left out).
  const std::vector<ReliabilityBin> bins = ReliabilityBins(d.trials);
  ASSERT_EQ(bins.size(), 5u);
  EXPECT_EQ(bins[4].trials, 1);
  EXPECT_EQ(bins[4].paid, 1);
  EXPECT_DOUBLE_EQ(bins[4].mean_predicted, 0.83);
  EXPECT_EQ(bins[3].trials, 1);
  EXPECT_EQ(bins[3].paid, 0);
  EXPECT_EQ(bins[0].trials + bins[1].trials + bins[2].trials, 0);
  const std::string html = RenderSiteIndex(d);
  EXPECT_NE(html.find("<svg id=\"reliability-plot\""), std::string::npos);
  EXPECT_NE(html.find("<line id=\"reliability-identity\""), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "<g class=\"reliability-bin\""), 2u);
  EXPECT_NE(html.find("data-trials=\"1\" data-predicted=\"0.8300\" data-observed=\"1.0000\""),
            std::string::npos);
  EXPECT_NE(html.find("data-trials=\"1\" data-predicted=\"0.6100\" data-observed=\"0.0000\""),
            std::string::npos);
  EXPECT_NE(html.find(">n=1</text>"), std::string::npos);
  // A trial that never caught up did not pay, whatever its forecast said.
  SiteData never = d;
  never.trials[0].caught_up = false;
  EXPECT_EQ(ReliabilityBins(never.trials)[4].paid, 0);
  // No probability anywhere: said so, no plot.
  SiteData old = d;
  for (SiteTrial& t : old.trials) t.forecast.probability.reset();
  const std::string none = RenderSiteIndex(old);
  EXPECT_NE(none.find("id=\"no-reliability\""), std::string::npos);
  EXPECT_EQ(none.find("reliability-plot"), std::string::npos);
}

TEST(LedgerSite, LaddersPlotEveryRungAndTheTrend) {
  const SiteData d = SampleSite();
  const std::string html = RenderSiteIndex(d);
  EXPECT_NE(html.find("<svg class=\"ladder-plot\" id=\"ladder-" + Hash('9').substr(0, 16) + "\""),
            std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "<g class=\"rung\">"), 3u);
  EXPECT_NE(html.find("Trend: -5.8 points of net saving per tenfold compute (interval -12.0 to "
                      "+0.4): the saving shrinks."),
            std::string::npos);
  EXPECT_EQ(html.find("id=\"no-ladders\""), std::string::npos);
  EXPECT_EQ(html.find("Projection"), std::string::npos) << "none in the receipt: none shown";
  SiteData projected = d;
  projected.ladders[0].projection = "net saving 5.0% at 1 EFLOP; <the trend holds>";
  EXPECT_NE(RenderSiteIndex(projected).find(
                "<strong>Projection</strong>: net saving 5.0% at 1 EFLOP; &lt;the trend "
                "holds&gt;"),
            std::string::npos);
}

TEST(LedgerSite, SaysWhenThereIsNothingOfAKind) {
  SiteData d;
  d.ledger_path = "empty.jsonl";
  const std::string html = RenderSiteIndex(d);
  EXPECT_NE(html.find("<p id=\"no-ladders\">No ladders yet.</p>"), std::string::npos);
  EXPECT_NE(html.find("id=\"no-trials\""), std::string::npos);
  EXPECT_NE(html.find("id=\"no-forecasts\""), std::string::npos);
  EXPECT_NE(html.find("id=\"no-batteries\""), std::string::npos);
  EXPECT_NE(html.find("id=\"no-trains\""), std::string::npos);
  EXPECT_NE(html.find("id=\"no-scores\""), std::string::npos);
}

TEST(LedgerSite, BatteriesAndTrainingRunsInShortTables) {
  const std::string html = RenderSiteIndex(SampleSite());
  EXPECT_NE(html.find("<table id=\"batteries\">"), std::string::npos);
  EXPECT_NE(html.find(">72.1%<"), std::string::npos);  // 31 of 43 decided
  EXPECT_NE(html.find("<table id=\"trains\">"), std::string::npos);
  EXPECT_NE(html.find(">1.8731<"), std::string::npos);
  EXPECT_NE(html.find(">1.20M<"), std::string::npos);
}

TEST(LedgerSite, RunsScoredFromElsewhereSayPreflightDidNotMakeThem) {
  SiteData d;
  d.ledger_path = "l.jsonl";
  SiteScore stated;
  stated.hash = std::string(64, 'c');
  stated.name = "litgpt <ablation>";
  stated.runs_per_arm = 3;
  stated.net_stated = true;
  stated.gross = 0.4;
  stated.ci95_gross = Bounds{0.3, 0.5};
  stated.net = 0.35;
  SiteScore unstated = stated;
  unstated.hash = std::string(64, 'd');
  unstated.net_stated = false;
  unstated.net.reset();
  SiteScore never = unstated;
  never.hash = std::string(64, 'e');
  never.caught_up = false;
  d.scores = {stated, unstated, never};
  const std::string html = RenderSiteIndex(d);
  EXPECT_NE(html.find("<table id=\"scores\">"), std::string::npos);
  EXPECT_NE(html.find("did not make these arms"), std::string::npos);
  EXPECT_NE(html.find("litgpt &lt;ablation&gt;"), std::string::npos);
  EXPECT_EQ(html.find("litgpt <ablation>"), std::string::npos) << "names are escaped";
  EXPECT_NE(html.find(">40.0% <span class=\"ci\">(30.0% to 50.0%)</span><"), std::string::npos);
  EXPECT_NE(html.find(">35.0%<"), std::string::npos);
  EXPECT_NE(html.find(">not stated<"), std::string::npos);
  EXPECT_NE(html.find(">never caught up<"), std::string::npos);
  size_t rows = 0;
  for (size_t at = 0; (at = html.find("<tr class=\"score\">", at)) != std::string::npos; ++at) {
    ++rows;
  }
  EXPECT_EQ(rows, 3u);
  EXPECT_NE(html.find("3 scored from elsewhere"), std::string::npos);
}

TEST(LedgerSite, TrialPageShowsNumbersForecastRegimeInputsAndTheReceipt) {
  SiteData d = SampleSite();
  SiteTrial& t = d.trials[0];
  std::string page = RenderSiteTrialPage(t);
  for (const char* id : {"id=\"numbers\"", "id=\"forecast\"", "id=\"regime\"", "id=\"inputs\"",
                         "<pre id=\"receipt\">"}) {
    EXPECT_NE(page.find(id), std::string::npos) << id;
  }
  EXPECT_NE(page.find(Hash('1')), std::string::npos);  // inputs' SHA-256
  EXPECT_NE(page.find(Hash('2')), std::string::npos);
  EXPECT_NE(page.find("<code>" + Hash('f') + "</code>"), std::string::npos);
  EXPECT_NE(page.find("83.0%"), std::string::npos);
  EXPECT_NE(page.find("(80% interval 5.0% to 40.0%)"), std::string::npos);
  EXPECT_NE(page.find("{\n  &quot;kind&quot;: &quot;trial&quot;\n}"), std::string::npos);
  EXPECT_NE(page.find("href=\"../index.html\""), std::string::npos);
  // report.html is linked only when the job found it.
  EXPECT_EQ(page.find("id=\"report\""), std::string::npos);
  t.report_path = "/runs/a b/report.html";
  page = RenderSiteTrialPage(t);
  EXPECT_NE(page.find("<a id=\"report\" href=\"file:///runs/a%20b/report.html\">"),
            std::string::npos);
  // An older forecast without a probability says so.
  EXPECT_NE(RenderSiteTrialPage(d.trials[2]).find("not recorded (older receipt)"),
            std::string::npos);
}

TEST(LedgerSite, SameDataSameBytes) {
  EXPECT_EQ(RenderSiteIndex(SampleSite()), RenderSiteIndex(SampleSite()));
}

}  // namespace
}  // namespace preflight::report
