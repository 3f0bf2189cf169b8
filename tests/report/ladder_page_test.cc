// A ladder's page: its content from hand-made rungs, and that headless Chromium renders it with
// the plot, the table and the trend (skipped, saying so, when no chromium is installed).

#include "report/ladder_page.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/file.h"
#include "testing/chromium.h"
#include "testing/testing.h"

namespace preflight::report {
namespace {

LadderPageData SampleLadder(bool with_projection) {
  LadderPageData d;
  d.title = "dsir on <cj>";
  const double inf = std::numeric_limits<double>::infinity();
  // Rung 1 never caught up (at most -12.5%), rungs 2 and 3 did.
  d.rungs = {{"tiny", 150, 1e12, -inf, -0.125, -inf, -inf, false, false, std::string(64, 'a')},
             {"tiny", 300, 2e12, 0.2, 0.18, 0.1, 0.25, true, false, std::string(64, 'b')},
             {"small", 600, 2e13, 0.42, 0.4, 0.33, 0.45, true, true, std::string(64, 'c')}};
  std::vector<trial::LadderPoint> points;
  for (const LadderPageRung& r : d.rungs)
    points.push_back({r.flops, r.net, r.ci_lo, r.ci_hi, r.caught_up});
  d.trend = trial::FitLadderTrend(points);
  if (with_projection) d.projection = trial::ProjectSaving(d.trend, 1e15, 0);
  return d;
}

TEST(LadderPage, PlotsEveryRungWithItsIntervalTheTrendAndTheProjection) {
  const LadderPageData d = SampleLadder(true);
  const std::string page = RenderLadderPage(d);
  EXPECT_NE(page.find("<svg id=\"ladder-plot\""), std::string::npos);
  EXPECT_NE(page.find("<table id=\"rungs\">"), std::string::npos);
  EXPECT_NE(page.find("<p id=\"trend\">"), std::string::npos);
  EXPECT_NE(page.find("id=\"trend-line\""), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "<circle class=\"rung"), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "<circle class=\"rung bound\" data-rung=\"1\""),
            1u);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "class=\"ci-bar\""), 3u);
  // The never-caught-up rung's open interval is drawn dashed to the edge.
  EXPECT_EQ(::preflight::testing::Occurrences(page, "stroke-dasharray=\"4 3\""), 1u);
  EXPECT_NE(page.find("<td>never caught up</td><td>&le; -12.5%</td><td>never to never</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>40.0%</td><td>33.0% to 45.0%</td><td>informative</td>"),
            std::string::npos);
  EXPECT_NE(page.find("Trend: <strong>" + d.trend.direction + "</strong>"), std::string::npos);
  EXPECT_NE(page.find("rung 1 never caught up: entered at its bound"), std::string::npos);
  EXPECT_NE(page.find("<p id=\"projection\"><strong>PROJECTION</strong>"), std::string::npos);
  EXPECT_NE(page.find(">PROJECTION</text>"), std::string::npos);
  // Escaped, self-contained, deterministic.
  EXPECT_NE(page.find("dsir on &lt;cj&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);
  EXPECT_EQ(page, RenderLadderPage(SampleLadder(true)));
  const std::string bare = RenderLadderPage(SampleLadder(false));
  EXPECT_EQ(bare.find("id=\"projection\""), std::string::npos);
  EXPECT_EQ(bare.find("PROJECTION"), std::string::npos);
}

TEST(LadderPage, AnUnfittedTrendSaysUnclearAndDrawsNoLine) {
  LadderPageData d = SampleLadder(false);
  d.rungs.resize(1);
  d.trend = trial::FitLadderTrend({{1e12, 0.1, 0.05, 0.15, true}});
  const std::string page = RenderLadderPage(d);
  EXPECT_NE(page.find("Trend: <strong>unclear</strong>"), std::string::npos);
  EXPECT_EQ(page.find("id=\"trend-line\""), std::string::npos);
}

// SampleLadder with three fractions per rung (the baseline first): 0.05 best at rung 1, 0.25
// at rung 2, the whole pool at rung 3; recommended at 1e13.
LadderPageData SampleKeepLadder() {
  LadderPageData d = SampleLadder(false);
  const double nan = std::nan("");
  d.keeps = {{{{1, 4.0, 0.02, 0.5, nan, true},
               {0.05, 3.8, 0.01, 10, 0.3, true},
               {0.25, 3.9, 0.03, 2, 0.2, true}},
              0.05,
              1.0},
             {{{1, 3.0, 0.02, 1, nan, true},
               {0.05, 3.1, 0.01, 20, -0.1, false},
               {0.25, 2.9, 0.02, 4, 0.1, true}},
              0.25,
              0.8},
             {{{1, 2.0, 0.02, 10, nan, true},
               {0.05, 2.6, 0.05, 200, -0.5, false},
               {0.25, 2.1, 0.02, 40, -0.05, false}},
              1,
              0.95}};
  std::vector<trial::KeepRungPoint> points;
  for (size_t i = 0; i < d.rungs.size(); ++i) {
    points.push_back({d.rungs[i].flops, d.keeps[i].best_keep, 0, true});
  }
  d.keep_trend = trial::FitKeepTrend(points, {0.05, 0.25, 1});
  d.recommendation = trial::RecommendKeep(*d.keep_trend, 1e13);
  return d;
}

TEST(LadderPage, AKeepLadderDrawsEachFractionAcrossRungsAndTheRecommendation) {
  const LadderPageData d = SampleKeepLadder();
  const std::string page = RenderLadderPage(d);
  EXPECT_NE(page.find("<svg id=\"keep-plot\""), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "<path class=\"keep-line\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "<circle class=\"keep-point\""), 9u);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "<circle class=\"best\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(page, "stroke-dasharray=\"6 4\""),
            1u);  // the whole pool's line
  EXPECT_NE(page.find("class=\"keep-line\" data-keep=\"0.05\""), std::string::npos);
  EXPECT_NE(page.find("<table id=\"keeps\">"), std::string::npos);
  EXPECT_NE(page.find("<td>never caught up (&le; -50.0%)</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td>best (80.0% of resamples)</td>"), std::string::npos);
  ASSERT_TRUE(d.recommendation->keep.has_value()) << d.recommendation->reason;
  EXPECT_NE(page.find("<p id=\"recommendation\">Trend of the best fraction: <strong>grows"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("Keep "), std::string::npos);
  EXPECT_EQ(page, RenderLadderPage(SampleKeepLadder()));
  // A refusal is said plainly.
  LadderPageData refused = SampleKeepLadder();
  refused.recommendation->keep.reset();
  refused.recommendation->reason = "the trend is unclear";
  EXPECT_NE(RenderLadderPage(refused).find("No fraction to keep for a run of"), std::string::npos);
  // A ladder of one --keep has none of it.
  const std::string plain = RenderLadderPage(SampleLadder(false));
  EXPECT_EQ(plain.find("keep-plot"), std::string::npos);
  EXPECT_EQ(plain.find("id=\"recommendation\""), std::string::npos);
}

TEST(LadderPage, RendersInHeadlessChromium) {
  const std::string chromium = ::preflight::testing::FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "no chromium binary on PATH (install Debian's `chromium`, as "
                    "scripts/install-deps.sh does, or set PREFLIGHT_CHROMIUM): the ladder page "
                    "rendering test did not run";
  }
  const std::string dir = ::preflight::testing::ScratchDir("ladder-render");
  const std::string html = dir + "/ladder.html";
  ASSERT_TRUE(WriteFileAtomically(html, RenderLadderPage(SampleLadder(true))).ok());
  const std::string png = dir + "/ladder.png";
  int rc = ::preflight::testing::RunChromium(
      chromium, dir, "--screenshot=" + png + " --window-size=1000,1000 --hide-scrollbars",
      "file://" + html, dir + "/screenshot.out");
  ASSERT_EQ(rc, 0) << "chromium --screenshot failed (exit " << rc << "); see " << dir
                   << "/screenshot.out.log";
  auto bytes = ReadFileToString(png);
  ASSERT_TRUE(bytes.ok()) << "no screenshot at " << png;
  ASSERT_GT(bytes->size(), 8u);
  EXPECT_EQ(bytes->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(bytes->size(), 20'000u) << "the screenshot looks blank: " << png;
  rc = ::preflight::testing::RunChromium(chromium, dir, "--dump-dom", "file://" + html,
                                         dir + "/dom.html");
  ASSERT_EQ(rc, 0) << "chromium --dump-dom failed (exit " << rc << ")";
  const std::string dom = ::preflight::testing::ReadText(dir + "/dom.html");
  for (const char* id : {"id=\"ladder-plot\"", "id=\"rungs\"", "id=\"trend\"", "id=\"trend-line\"",
                         "id=\"projection\""}) {
    EXPECT_NE(dom.find(id), std::string::npos) << id;
  }
  EXPECT_EQ(::preflight::testing::Occurrences(dom, "class=\"ci-bar\""), 3u);
}

}  // namespace
}  // namespace preflight::report
