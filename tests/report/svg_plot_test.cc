// Every label of the curve plot lies inside the svg's viewBox (a label past its edge is cut off:
// "245 GFLOF" at the last FLOPs tick), over a sweep of budgets and FLOPs per step.

#include "report/svg_plot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "sample_trial.h"
#include "trial/trial_inputs.h"

namespace preflight::report {
namespace {

std::string Attribute(const std::string& tag, const std::string& name) {
  std::smatch m;
  if (std::regex_search(tag, m, std::regex("[ \\n]" + name + "=\"([^\"]*)\""))) return m[1];
  return "";
}

// The characters a <text> shows: its content without tags, an entity counted as one.
std::string Shown(const std::string& inner) {
  std::string text = std::regex_replace(inner, std::regex("<[^>]*>"), "");
  return std::regex_replace(text, std::regex("&[a-z#0-9]+;"), "x");
}

struct Extent {
  std::string label;
  double left, right, top, bottom;
};

// Each <text>'s box from its x, y, anchor and font size (its own, else its <g>'s), with
// EstimateTextWidth; a text turned by rotate(-90) about translate(x,y) stands on its centre.
std::vector<Extent> TextExtents(const std::string& svg) {
  std::vector<Extent> out;
  std::vector<std::string> groups;  // the open <g> tags
  std::regex token("<g[ >][^>]*>|</g>|<text([^>]*)>(.*?)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), token); it != std::sregex_iterator();
       ++it) {
    const std::string whole = (*it)[0];
    if (whole.rfind("<g", 0) == 0) {
      groups.push_back(whole);
      continue;
    }
    if (whole == "</g>") {
      if (!groups.empty()) groups.pop_back();
      continue;
    }
    const std::string tag = " " + (*it)[1].str();
    auto inherited = [&](const std::string& name, const std::string& fallback) {
      std::string v = Attribute(tag, name);
      for (size_t g = groups.size(); v.empty() && g-- > 0;) v = Attribute(groups[g], name);
      return v.empty() ? fallback : v;
    };
    const double size = std::stod(inherited("font-size", "16"));
    const std::string anchor = inherited("text-anchor", "start");
    const std::string shown = Shown((*it)[2]);
    const double width = EstimateTextWidth(shown, size);
    const double lead = anchor == "middle" ? width / 2 : (anchor == "end" ? width : 0);
    std::smatch m;
    const std::string transform = Attribute(tag, "transform");
    if (std::regex_search(transform, m,
                          std::regex("translate\\(([-0-9.]+),([-0-9.]+)\\) rotate\\(-90\\)"))) {
      const double x = std::stod(m[1]), y = std::stod(m[2]);
      out.push_back({shown, x - size, x + 0.3 * size, y - width + lead, y + lead});
      continue;
    }
    const double x = std::stod(Attribute(tag, "x")), y = std::stod(Attribute(tag, "y"));
    out.push_back({shown, x - lead, x - lead + width, y - size, y + 0.3 * size});
  }
  return out;
}

void ExpectInsideViewBox(const std::string& svg, const std::string& what) {
  ASSERT_NE(svg.find(fmt::format("viewBox=\"0 0 {} {}\"", kPlotWidth, kPlotHeight)),
            std::string::npos);
  const std::vector<Extent> texts = TextExtents(svg);
  EXPECT_GT(texts.size(), 10u) << what;
  for (const Extent& e : texts) {
    EXPECT_GE(e.left, 0) << what << ": \"" << e.label << "\" starts left of the viewBox";
    EXPECT_LE(e.right, kPlotWidth) << what << ": \"" << e.label << "\" runs past the right edge";
    EXPECT_GE(e.top, 0) << what << ": \"" << e.label << "\" rises above the viewBox";
    EXPECT_LE(e.bottom, kPlotHeight) << what << ": \"" << e.label << "\" falls below it";
  }
}

TEST(EstimateTextWidth, CoversTheWidestTickLabel) {
  // "245 GFLOP" in DejaVu Sans at 12px is about 66 units wide (5.52 em).
  EXPECT_GE(EstimateTextWidth("245 GFLOP", 12), 66.3);
  EXPECT_DOUBLE_EQ(EstimateTextWidth("\u00d7", 10), EstimateTextWidth("x", 10));
}

TEST(PlotSvg, EveryLabelLiesInsideTheViewBox) {
  for (int64_t last : {300, 2000, 4500}) {
    trial::TrialInputs in =
        trial::testing::TwoArms({trial::testing::SmoothCurve(2.1, 1.0, 0.0, last),
                                 trial::testing::SmoothCurve(2.11, 1.0, 0.004, last)},
                                {trial::testing::SmoothCurve(1.98, 1.15, 0.0, last),
                                 trial::testing::SmoothCurve(1.99, 1.15, 0.004, last)});
    for (double flops : {0.0, 8.17e8, 1.0e9, 2.45e8, 3.4e11, 9.99e11, 1.234e14}) {
      in.flops_per_step = flops;
      auto result = trial::ComputeTrial(in);
      ASSERT_TRUE(result.ok());
      ExpectInsideViewBox(PlotSvg(*result, in.arms).svg,
                          fmt::format("{} steps, {:g} FLOPs a step", last, flops));
    }
  }
}

TEST(PlotSvg, TheLastFlopsLabelEndsAtItsTick) {
  // 300 steps at 816.7 MFLOP: the last tick (step 300, the plot's right edge) reads 245 GFLOP.
  trial::TrialInputs in =
      trial::testing::TwoArms({trial::testing::SmoothCurve(2.1, 1.0, 0.0, 300)},
                              {trial::testing::SmoothCurve(1.98, 1.15, 0.0, 300)});
  in.flops_per_step = 245e9 / 300;
  auto result = trial::ComputeTrial(in);
  ASSERT_TRUE(result.ok());
  const std::string svg = PlotSvg(*result, in.arms).svg;
  EXPECT_NE(svg.find("text-anchor=\"end\" fill=\"#59636e\">245 GFLOP</text>"), std::string::npos)
      << svg;
  ExpectInsideViewBox(svg, "245 GFLOP");
  ExpectInsideViewBox(PlotSvg(testing::SampleReport().result, testing::SampleReport().arms).svg,
                      "the sample report");
}

}  // namespace
}  // namespace preflight::report
