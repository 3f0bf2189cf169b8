// Renders a report in headless Chromium (Debian's `chromium`): a screenshot that must be a real
// PNG of the requested size and not blank, and the rendered DOM, which must hold the plot and
// the numbers. Skipped only when no chromium binary is installed.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "base/file.h"
#include "report/trial_report.h"
#include "sample_trial.h"
#include "testing/chromium.h"
#include "testing/testing.h"

namespace preflight::report {
namespace {

uint32_t BigEndian32(const std::string& b, size_t at) {
  return (uint32_t{static_cast<unsigned char>(b[at])} << 24) |
         (uint32_t{static_cast<unsigned char>(b[at + 1])} << 16) |
         (uint32_t{static_cast<unsigned char>(b[at + 2])} << 8) |
         uint32_t{static_cast<unsigned char>(b[at + 3])};
}

class ChromiumRender : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = preflight::testing::FindChromium();
    if (chromium_.empty()) {
      GTEST_SKIP() << "no chromium binary on PATH (install Debian's `chromium`, as "
                      "scripts/install-deps.sh does, or set PREFLIGHT_CHROMIUM): the report "
                      "rendering test did not run";
    }
    dir_ = std::string(PREFLIGHT_TEST_TMP) + "/report-render";
    ASSERT_TRUE(MakeDirectories(dir_).ok());
  }

  // Headless chromium on `url` (testing/chromium.h): stdout to `out`, stderr beside it.
  int Chromium(const std::string& flags, const std::string& url, const std::string& out) {
    return preflight::testing::RunChromium(chromium_, dir_, flags, url, out);
  }

  std::string chromium_;
  std::string dir_;
};

TEST_F(ChromiumRender, ScreenshotAndDomShowThePlotAndTheNumbers) {
  ReportData data = testing::SampleReport();
  data.forecast =
      ForecastTested{std::string(64, 'f'), "curate", 0.12, std::pair{0.02, 0.25}, 0.2, true};
  data.provenance = Provenance{std::string(64, 'e'),
                               {{"pool", "/x/pool.jsonl", std::string(64, 'a'), 460, 1'000'000}}};
  data.selection = Selection{"curated",
                             "dsir",
                             {{"cj01", 12.5, "The proton <spin> & its moment"}},
                             {{"ca44", -40.5, "Sports page"}},
                             "Lowest-scored documents in the pool",
                             "genre",
                             {{"learned", 90}, {"press", 10}},
                             100,
                             false};
  const std::string html_path = dir_ + "/report.html";
  ASSERT_TRUE(WriteFileAtomically(html_path, RenderTrialReport(data)).ok());
  const std::string url = "file://" + html_path;

  const std::string png = dir_ + "/report.png";
  std::remove(png.c_str());
  int rc = Chromium("--screenshot='" + png + "' --window-size=1200,1600 --hide-scrollbars", url,
                    dir_ + "/screenshot.out");
  ASSERT_EQ(rc, 0) << "chromium --screenshot failed (exit " << rc << "; 124 = timed out); see "
                   << dir_ << "/screenshot.out.log";
  auto bytes = ReadFileToString(png);
  ASSERT_TRUE(bytes.ok()) << "no screenshot at " << png;
  // PNG signature, then the IHDR chunk: length, "IHDR", width, height (big-endian).
  ASSERT_GT(bytes->size(), 33u);
  EXPECT_EQ(bytes->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(bytes->substr(12, 4), "IHDR");
  EXPECT_EQ(BigEndian32(*bytes, 16), 1200u);
  EXPECT_EQ(BigEndian32(*bytes, 20), 1600u);
  // A blank 1200x1600 page compresses to a few kB; text, curves and tables take far more.
  EXPECT_GT(bytes->size(), 60'000u) << "the screenshot looks blank: " << png;

  const std::string dom_path = dir_ + "/dom.html";
  rc = Chromium("--dump-dom", url, dom_path);
  ASSERT_EQ(rc, 0) << "chromium --dump-dom failed (exit " << rc << ")";
  auto dom = ReadFileToString(dom_path);
  ASSERT_TRUE(dom.ok());
  EXPECT_NE(dom->find("<svg id=\"curve-plot\""), std::string::npos) << *dom;
  EXPECT_EQ(::preflight::testing::Occurrences(*dom, "class=\"mean-curve\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(*dom, "class=\"seed-band\""), 3u);
  EXPECT_NE(dom->find("id=\"l-star\""), std::string::npos);
  EXPECT_NE(dom->find("id=\"numbers\""), std::string::npos);
  EXPECT_NE(dom->find("id=\"lab-record\""), std::string::npos);
  for (const char* id : {"forecast-tested", "provenance", "selected", "selected-shares"}) {
    EXPECT_NE(dom->find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(dom->find("The proton &lt;spin&gt; &amp; its moment"), std::string::npos);
  const trial::Comparison& c = data.result.comparisons[0];
  EXPECT_NE(dom->find(FormatPercent(c.saving.gross)), std::string::npos);
  EXPECT_NE(dom->find(FormatPercent(c.saving.net)), std::string::npos);
  EXPECT_NE(dom->find(FormatSteps(c.saving.t_arm)), std::string::npos);
}

}  // namespace
}  // namespace preflight::report
