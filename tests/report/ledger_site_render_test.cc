// The ledger site in headless Chromium (Debian's `chromium`): index.html and a trial page load,
// and the rendered DOM holds the trials table, the calibration and accuracy plots and the ladder
// plot; a screenshot is a real, non-blank PNG. Skipped, saying so, when no chromium is installed.

#include <gtest/gtest.h>

#include <string>

#include "base/file.h"
#include "report/ledger_site.h"
#include "sample_site.h"
#include "testing/chromium.h"
#include "testing/testing.h"

namespace preflight::report {
namespace {

TEST(LedgerSiteRender, IndexAndTrialPageRenderWithTheirTablesAndPlots) {
  const std::string chromium = preflight::testing::FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "no chromium binary on PATH (install Debian's `chromium`, as "
                    "scripts/install-deps.sh does, or set PREFLIGHT_CHROMIUM): the ledger site "
                    "rendering test did not run";
  }
  const std::string dir = preflight::testing::ScratchDir("ledger-site-render");
  const SiteData d = ::preflight::report::testing::SampleSite();
  ASSERT_TRUE(MakeDirectories(dir + "/trials").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/index.html", RenderSiteIndex(d)).ok());
  for (const SiteTrial& t : d.trials) {
    ASSERT_TRUE(WriteFileAtomically(dir + "/" + TrialPagePath(t), RenderSiteTrialPage(t)).ok());
  }

  const std::string dom_path = dir + "/dom.html";
  int rc = preflight::testing::RunChromium(chromium, dir, "--dump-dom",
                                           "file://" + dir + "/index.html", dom_path);
  ASSERT_EQ(rc, 0) << "chromium --dump-dom failed (exit " << rc << "; 124 = timed out); see "
                   << dom_path << ".log";
  auto dom = ReadFileToString(dom_path);
  ASSERT_TRUE(dom.ok());
  EXPECT_NE(dom->find("<table id=\"trials\">"), std::string::npos) << *dom;
  EXPECT_EQ(::preflight::testing::Occurrences(*dom, "<tr class=\"trial\""), d.trials.size());
  EXPECT_NE(dom->find("<svg id=\"calibration-plot\""), std::string::npos);
  EXPECT_NE(dom->find("id=\"identity\""), std::string::npos);
  EXPECT_NE(dom->find("<svg id=\"accuracy-plot\""), std::string::npos);
  EXPECT_NE(dom->find("<svg id=\"reliability-plot\""), std::string::npos);
  EXPECT_NE(dom->find("id=\"ladder-" + d.ladders[0].hash.substr(0, 16) + "\""), std::string::npos);
  EXPECT_NE(dom->find("<table id=\"batteries\">"), std::string::npos);
  EXPECT_NE(dom->find("<table id=\"trains\">"), std::string::npos);
  EXPECT_EQ(dom->find("<script"), std::string::npos);

  const std::string page_dom = dir + "/page-dom.html";
  rc = preflight::testing::RunChromium(
      chromium, dir, "--dump-dom", "file://" + dir + "/" + TrialPagePath(d.trials[0]), page_dom);
  ASSERT_EQ(rc, 0) << "chromium --dump-dom of the trial page failed (exit " << rc << ")";
  auto page = ReadFileToString(page_dom);
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("id=\"numbers\""), std::string::npos) << *page;
  EXPECT_NE(page->find("id=\"inputs\""), std::string::npos);
  EXPECT_NE(page->find("<pre id=\"receipt\">"), std::string::npos);

  const std::string png = dir + "/index.png";
  rc = preflight::testing::RunChromium(
      chromium, dir, "--screenshot='" + png + "' --window-size=1200,1600 --hide-scrollbars",
      "file://" + dir + "/index.html", dir + "/screenshot.out");
  ASSERT_EQ(rc, 0) << "chromium --screenshot failed (exit " << rc << ")";
  auto bytes = ReadFileToString(png);
  ASSERT_TRUE(bytes.ok()) << "no screenshot at " << png;
  EXPECT_EQ(bytes->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // A blank page compresses to a few kB; tables and plots take far more.
  EXPECT_GT(bytes->size(), 40'000u) << "the screenshot looks blank: " << png;
}

}  // namespace
}  // namespace preflight::report
