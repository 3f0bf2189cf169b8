// The report's regime section, and that the page carries it only when the trial has one.

#include "report/regime_section.h"

#include <gtest/gtest.h>

#include "report/trial_report.h"
#include "sample_trial.h"

namespace preflight::report {
namespace {

trial::Regime SampleRegime(double l_star) {
  const trial::NgramScores random{4.6123, 3.6, 3.24, 4}, curated{4.5, 3.5, 3.1, 4};
  trial::Regime r = trial::MakeRegime(random, {{"curated", curated}, {"random", random}}, l_star);
  r.baseline_arm = "random";
  return r;
}

TEST(RegimeSection, ShowsEveryArmsScoresAndTheVerdict) {
  const std::string s = RegimeSection(SampleRegime(3.5));
  EXPECT_NE(s.find("<section id=\"regime\""), std::string::npos);
  EXPECT_NE(s.find("<span class=\"bad\"><strong>Not informative</strong>"), std::string::npos);
  EXPECT_NE(s.find("This pilot learned no more than byte n-gram statistics; its saving says "
                   "little about a larger model"),
            std::string::npos);
  EXPECT_NE(s.find("<th scope=\"row\">random <span class=\"sym\">(sets L*)</span></th>"
                   "<td class=\"num\">4.6123</td><td class=\"num\">3.6000</td>"
                   "<td class=\"num\">3.2400</td>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("<th scope=\"row\">curated</th><td class=\"num\">4.5000</td>"),
            std::string::npos);
  EXPECT_NE(s.find("margin (best n-gram &minus; L*) = -0.2600 bits"), std::string::npos) << s;
  EXPECT_NE(RegimeSection(SampleRegime(3.0)).find("<span class=\"good\"><strong>Informative"),
            std::string::npos);
  EXPECT_EQ(RegimeSection(SampleRegime(3.0)), RegimeSection(SampleRegime(3.0)));
}

TEST(RegimeSection, ThePageHasItOnlyWhenTheTrialHasARegime) {
  ReportData data = testing::SampleReport();
  EXPECT_EQ(RenderTrialReport(data).find("id=\"regime\""), std::string::npos);
  data.regime = SampleRegime(3.5);
  const std::string page = RenderTrialReport(data);
  EXPECT_NE(page.find("<section id=\"regime\""), std::string::npos);
  EXPECT_NE(page.find("id=\"regime-table\""), std::string::npos);
}

}  // namespace
}  // namespace preflight::report
