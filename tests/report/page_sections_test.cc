// The forecast-tested, provenance and selected sections: shown with their data, escaped, and
// left out without it.

#include "report/page_sections.h"

#include <gtest/gtest.h>

#include <string>

#include "sample_trial.h"

namespace preflight::report {
namespace {

bool Has(const std::string& html, const std::string& part) {
  return html.find(part) != std::string::npos;
}

ForecastTested Curate(double predicted, std::optional<double> measured,
                      std::optional<bool> correct) {
  ForecastTested f;
  f.receipt = std::string(64, 'a');
  f.verdict = "curate";
  f.predicted_saving = predicted;
  f.interval = std::pair{0.05, 0.31};
  f.measured_net = measured;
  f.correct = correct;
  return f;
}

TEST(ForecastTestedSection, VerdictPredictionAndRightOrWrong) {
  const std::string right = ForecastTestedSection(Curate(0.18, 0.215, true));
  EXPECT_TRUE(Has(right, "<section id=\"forecast-tested\""));
  EXPECT_TRUE(Has(right, "<strong>curate</strong>"));
  EXPECT_TRUE(Has(right, "+18.0%"));
  EXPECT_TRUE(Has(right, "5.0% to 31.0%"));
  EXPECT_TRUE(Has(right, "+21.5%"));
  EXPECT_TRUE(Has(right, "<span class=\"good\"><strong>right</strong>"));
  EXPECT_TRUE(Has(right, std::string(64, 'a')));
  const std::string wrong = ForecastTestedSection(Curate(0.18, std::nullopt, false));
  EXPECT_TRUE(Has(wrong, "never caught up"));
  EXPECT_TRUE(Has(wrong, "<span class=\"bad\"><strong>wrong</strong>"));
  ForecastTested abstained = Curate(0.01, -0.02, std::nullopt);
  abstained.verdict = "uncertain";
  EXPECT_TRUE(Has(ForecastTestedSection(abstained), "<span class=\"flat\"><strong>abstained"));
}

TEST(ForecastTestedSection, OnlyTheReceiptWhenNoVerdictIsKnown) {
  ForecastTested f;
  f.receipt = "<b>";
  const std::string html = ForecastTestedSection(f);
  EXPECT_TRUE(Has(html, "not recorded"));
  EXPECT_TRUE(Has(html, "&lt;b&gt;"));
  EXPECT_FALSE(Has(html, "<b>"));
}

TEST(ProvenanceSection, ReceiptAndEveryInputHash) {
  Provenance p{"f00d",
               {{"pool", "/x/pool <1>.jsonl", std::string(64, '1'), 460, 1'234'567},
                {"target_eval", "/x/targets/cj.eval.jsonl", std::string(64, '2'), 20, 9}}};
  const std::string html = ProvenanceSection(p);
  EXPECT_TRUE(Has(html, "<code id=\"trial-receipt\">f00d</code>"));
  EXPECT_TRUE(Has(html, "<table id=\"inputs\">"));
  EXPECT_TRUE(Has(html, std::string(64, '1')));
  EXPECT_TRUE(Has(html, std::string(64, '2')));
  EXPECT_TRUE(Has(html, "/x/pool &lt;1&gt;.jsonl"));
  EXPECT_TRUE(Has(html, "1,234,567"));
  EXPECT_FALSE(Has(ProvenanceSection({"", {}}), "trial-receipt"));
}

TEST(SelectionSection, DocumentsExcerptsAndShares) {
  Selection s;
  s.arm = "curated";
  s.selector = "dsir";
  s.highest = {{"cj01", 12.5, "The <proton> & its spin"}, {"cj02", 11.25, ""}};
  s.lowest = {{"ca44", -40.5, "Sports \"page\""}};
  s.lowest_label = "Lowest-scored documents in the pool";
  s.share_field = "genre";
  s.shares = {{"learned", 30}, {"press'", 10}};
  s.share_docs = 40;
  const std::string html = SelectionSection(s);
  EXPECT_TRUE(Has(html, "<section id=\"selected\""));
  EXPECT_TRUE(Has(html, "<table id=\"selected-highest\">"));
  EXPECT_TRUE(Has(html, "<table id=\"selected-lowest\">"));
  EXPECT_TRUE(Has(html, "<table id=\"selected-shares\">"));
  EXPECT_TRUE(Has(html, "The &lt;proton&gt; &amp; its spin"));
  EXPECT_TRUE(Has(html, "Sports &quot;page&quot;"));
  EXPECT_TRUE(Has(html, "(not read)"));
  EXPECT_TRUE(Has(html, "12.5"));
  EXPECT_TRUE(Has(html, "-40.5"));
  EXPECT_TRUE(Has(html, "Lowest-scored documents in the pool"));
  EXPECT_TRUE(Has(html, "press&#39;"));
  EXPECT_TRUE(Has(html, "75.0%"));
  EXPECT_FALSE(Has(html, "the first"));
  s.share_partial = true;
  EXPECT_TRUE(Has(SelectionSection(s), "(the first 40 read)"));
  s.share_field.clear();
  s.lowest.clear();
  const std::string bare = SelectionSection(s);
  EXPECT_FALSE(Has(bare, "selected-shares"));
  EXPECT_FALSE(Has(bare, "selected-lowest"));
}

TEST(RenderTrialReport, NewSectionsOnlyWithTheirData) {
  ReportData data = testing::SampleReport();
  const std::string without = RenderTrialReport(data);
  for (const char* id : {"forecast-tested", "provenance", "selected"}) {
    EXPECT_FALSE(Has(without, std::string("id=\"") + id + "\"")) << id;
  }
  data.forecast = Curate(0.18, 0.2, true);
  data.provenance = Provenance{"beef", {{"pool", "p.jsonl", std::string(64, 'c'), 1, 2}}};
  data.selection = Selection{"curated", "dsir", {{"a", 1, "x"}}, {}, "", "", {}, 0, false};
  const std::string with = RenderTrialReport(data);
  for (const char* id : {"forecast-tested", "provenance", "selected"}) {
    EXPECT_TRUE(Has(with, std::string("<section id=\"") + id + "\"")) << id;
  }
  EXPECT_EQ(with, RenderTrialReport(data));  // deterministic
}

}  // namespace
}  // namespace preflight::report
