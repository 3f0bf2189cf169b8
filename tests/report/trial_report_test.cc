#include "report/trial_report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>

#include "narrate/schedule_record.h"
#include "sample_trial.h"
#include "testing/testing.h"
#include "trial/schedule_runs.h"

namespace preflight::report {
namespace {

TEST(NiceTicks, RoundNumbers) {
  EXPECT_EQ(NiceTicks(0, 2000, 6), (std::vector<double>{0, 500, 1000, 1500, 2000}));
  EXPECT_EQ(NiceTicks(0, 1000, 5), (std::vector<double>{0, 200, 400, 600, 800, 1000}));
  std::vector<double> y = NiceTicks(1.93, 2.52, 6);
  ASSERT_EQ(y.size(), 6u);
  EXPECT_NEAR(y.front(), 2.0, 1e-12);
  EXPECT_NEAR(y[1] - y[0], 0.1, 1e-12);
  EXPECT_NEAR(y.back(), 2.5, 1e-12);
}

TEST(EscapeHtml, EscapesEveryMetacharacter) {
  EXPECT_EQ(EscapeHtml("<a href=\"x\">Tom & 'Jerry'</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
}

TEST(RenderTrialReport, HasThePlotTheNumbersAndTheLabRecord) {
  ReportData data = testing::SampleReport();
  const trial::Comparison& c = data.result.comparisons[0];
  ASSERT_TRUE(c.saving.caught_up);
  ASSERT_FALSE(data.result.comparisons[1].saving.caught_up);
  std::string html = RenderTrialReport(data);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id : {"id=\"headline\"", "id=\"curve-plot\"", "id=\"numbers\"",
                         "id=\"per-seed\"", "id=\"lab-record\"", "id=\"facts\"", "id=\"l-star\""}) {
    EXPECT_EQ(::preflight::testing::Occurrences(html, id), 1u) << id;
  }
  // One mean path and one band per arm; markers for t_R and the one arm that caught up.
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"mean-curve\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"seed-band\""), 3u);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"t-marker\""), 2u);
  EXPECT_NE(html.find("class=\"mean-curve\" data-arm=\"first\""), std::string::npos);
  // Each mean path has one vertex per eval point (21 of them).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("class=\"mean-curve\"[^>]* d=\"([^\"]*)\"")));
  EXPECT_EQ(::preflight::testing::Occurrences(m[1].str(), "L"), 20u);
  EXPECT_EQ(m[1].str()[0], 'M');
  // The numbers, formatted as the table shows them.
  EXPECT_NE(html.find(fmt::format("{:.4f} bpb", c.saving.l_star)), std::string::npos);
  EXPECT_NE(html.find(FormatSteps(c.saving.t_arm)), std::string::npos);
  EXPECT_NE(html.find(FormatPercent(c.saving.gross)), std::string::npos);
  EXPECT_NE(html.find(FormatPercent(c.saving.net)), std::string::npos);
  EXPECT_NE(html.find(FormatPercent(c.ci.net.lo) + " to " + FormatPercent(c.ci.net.hi)),
            std::string::npos);
  EXPECT_NE(html.find("41.5 core-s"), std::string::npos);
  EXPECT_NE(html.find("340 GFLOP"), std::string::npos);
  EXPECT_NE(html.find("never caught up"), std::string::npos);
  // The plain summary comes first in the lab record.
  size_t lab = html.find("id=\"lab-record\"");
  size_t summary = html.find("class=\"summary\"", lab);
  EXPECT_LT(summary, html.find("<dt>Question</dt>", lab));
  // Self-contained: nothing to fetch, no scripts.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "http"),
            ::preflight::testing::Occurrences(html, "http://www.w3.org/2000/svg"));
  // Pure: same data, same bytes.
  EXPECT_EQ(RenderTrialReport(data), html);
}

// Regression: the right-most FLOPs label was centred on the last tick, 30 units from the svg's
// edge, and rendered clipped ("245 GFLOF"). It now ends at its tick; the others stay centred.
TEST(RenderTrialReport, LastFlopsLabelEndsAtItsTick) {
  const std::string html = RenderTrialReport(testing::SampleReport());
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(html, m,
                        std::regex("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" text-anchor=\"end\" "
                                   "fill=\"#59636e\">680 TFLOP</text>")))
      << html.substr(html.find("flops-ticks"), 1200);
  EXPECT_EQ(m[1].str(), "930.0");  // the last tick, at the plot's right edge
  EXPECT_NE(html.find("fill=\"#59636e\">340 TFLOP</text>"), std::string::npos);
  EXPECT_EQ(html.find("text-anchor=\"end\" fill=\"#59636e\">340 TFLOP"), std::string::npos);
}

TEST(RenderTrialReport, EscapesNames) {
  ReportData data = testing::SampleReport("<b>dsir & \"co\"</b>");
  data.title = "<script>alert(1)</script>";
  data.facts.push_back({"pool", "a<b"});
  std::string html = RenderTrialReport(data);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>dsir"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;dsir &amp; &quot;co&quot;&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a&lt;b"), std::string::npos);
}

TEST(RenderTrialReport, NeverCaughtUpHeadline) {
  ReportData data = testing::SampleReport();
  // Only random and first: the primary comparison never catches up.
  data.arms.erase(data.arms.begin() + 1);
  trial::TrialInputs in;
  in.arms = data.arms;
  in.core_seconds_per_step = 1;
  data.result = trial::ComputeTrial(in).value();
  std::string html = RenderTrialReport(data);
  EXPECT_NE(html.find("Never caught up"), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"t-marker\""), 1u);  // t_R only
}

// A schedule trial's page: the FLOPs-axis table, the fixed-against-adaptive section and the
// schedule wording of the headline and the lab record.
TEST(RenderTrialReport, ScheduleTrialHasTheScheduleSections) {
  auto run = [](uint64_t seed, std::vector<double> bpb, double frozen_cost, int64_t frozen_at) {
    return trial::testing::MakeRun(seed, std::move(bpb), 100, frozen_cost, frozen_at);
  };
  trial::ScheduleTrialInputs in;
  in.budget_steps = 40;
  in.bootstrap.resamples = 50;
  in.arms = {{{"baseline", "random", ""}, {run(1, {5, 4, 3, 2.5, 2.2}, 100, -1)}},
             {{"fixed", "random", "freeze:blocks=0@0.5"}, {run(1, {5, 4, 3, 2.5, 2.2}, 60, 20)}},
             {{"adaptive", "random", "freeze:blocks=0@adaptive:threshold=0.01"},
              {run(1, {5, 4, 3, 2.6, 2.3}, 60, 20)}}};
  auto r = trial::ComputeScheduleTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ReportData data;
  data.title = "schedules on <cj>";
  data.schedule = *r;
  data.lab_record = narrate::BuildScheduleLabRecord({"cj", "data", "tiny", 10, 40, 1, 5}, *r);
  const std::string html = RenderTrialReport(data);
  for (const char* id : {"id=\"headline\"", "id=\"curve-plot\"", "id=\"numbers\"",
                         "id=\"per-seed\"", "id=\"schedules\"", "id=\"lab-record\""}) {
    EXPECT_EQ(::preflight::testing::Occurrences(html, id), 1u) << id;
  }
  EXPECT_NE(html.find("Training FLOPs saved to L*"), std::string::npos);
  EXPECT_NE(html.find("The fixed step won"), std::string::npos);
  EXPECT_NE(html.find("proved the schedule wrong"), std::string::npos);
  EXPECT_NE(html.find("schedules on &lt;cj&gt;"), std::string::npos);
  EXPECT_EQ(::preflight::testing::Occurrences(html, "class=\"mean-curve\""), 3u);
}

}  // namespace
}  // namespace preflight::report
