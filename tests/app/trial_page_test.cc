// The report's pieces a trial job assembles (app/trial_page.cc): the target's name, the forecast
// it tested, its provenance, and what the selection kept, read from a hand-made run folder.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app/trial_job.h"
#include "app/trial_parts.h"
#include "testing/testing.h"
#include "trial/trial_inputs.h"

namespace preflight::app {
namespace {

using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

TEST(TargetStem, TheFileNameWithoutFolderOrEndings) {
  EXPECT_EQ(TargetStem("/x/targets/cj.jsonl"), "cj");
  EXPECT_EQ(TargetStem("/x/targets/cj.jsonl.gz"), "cj");
  EXPECT_EQ(TargetStem("targets/news.eval.jsonl.zst"), "news.eval");
  EXPECT_EQ(TargetStem("cj.json"), "cj");
  EXPECT_EQ(TargetStem("/data/plain"), "plain");
  EXPECT_EQ(TargetStem("notes.txt"), "notes");
  EXPECT_EQ(TargetStem(".jsonl"), ".jsonl");  // nothing would be left: kept whole
}

// A data trial whose curated arm saved 21% net (caught up).
TrialJob SavingJob() {
  TrialJob job;
  trial::TrialInputs in = trial::testing::TwoArms({trial::testing::SmoothCurve(2.1, 1.0, 0.0)},
                                                  {trial::testing::SmoothCurve(1.98, 1.15, 0.0)});
  job.outcome.arms = in.arms;
  job.outcome.trial = trial::ComputeTrial(in).value();
  return job;
}

TEST(ForecastTestedOf, FromTheRecordedForecastJudgedAgainstTheMeasuredSaving) {
  TrialJob job = SavingJob();
  const trial::Saving& s = job.outcome.trial.comparisons.front().saving;
  ASSERT_TRUE(s.caught_up);
  ASSERT_GT(s.net, 0);
  EXPECT_FALSE(ForecastTestedOf(job).has_value());  // tested none
  job.outcome.config.forecast_hash = "abc";
  auto only_hash = ForecastTestedOf(job);
  ASSERT_TRUE(only_hash.has_value());
  EXPECT_EQ(only_hash->receipt, "abc");
  EXPECT_TRUE(only_hash->verdict.empty());
  job.recorded_forecast = {{"receipt", "abc"},
                           {"verdict", "random"},
                           {"predicted_saving", -0.04},
                           {"interval", {-0.1, 0.02}}};
  auto f = ForecastTestedOf(job);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, "random");
  EXPECT_DOUBLE_EQ(*f->predicted_saving, -0.04);
  EXPECT_DOUBLE_EQ(f->interval->second, 0.02);
  EXPECT_DOUBLE_EQ(*f->measured_net, s.net);
  EXPECT_EQ(f->correct, std::optional<bool>(false));  // said random; the saving was positive
  job.recorded_forecast["verdict"] = "curate";
  EXPECT_EQ(ForecastTestedOf(job)->correct, std::optional<bool>(true));
  job.recorded_forecast["verdict"] = "uncertain";
  EXPECT_FALSE(ForecastTestedOf(job)->correct.has_value());  // an abstention
}

TEST(ProvenanceOf, TheReceiptAndEveryInputsHash) {
  TrialJob job;
  job.receipt_hash = "feed";
  job.outcome.inputs = {{"pool", "p.jsonl", std::string(64, 'a'), 3, 30},
                        {"target_eval", "e.jsonl", std::string(64, 'b'), 1, 10}};
  const report::Provenance p = ProvenanceOf(job);
  EXPECT_EQ(p.receipt, "feed");
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[1].role, "target_eval");
  EXPECT_EQ(p.inputs[1].sha256, std::string(64, 'b'));
}

// A run folder's curated arm: its file, and its manifest's "explain" naming pool documents.
TrialJob SelectedJob(const std::string& dir, bool genres) {
  std::string pool;
  for (int i = 0; i < 8; ++i) {
    nlohmann::json doc = {{"id", "d" + std::to_string(i)},
                          {"text", "document   number " + std::to_string(i) + " <b>&"}};
    if (genres) doc["genre"] = i < 6 ? "news" : "fiction";
    pool += doc.dump() + "\n";
  }
  WriteText(dir + "/pool.jsonl", pool);
  std::string kept;
  std::istringstream lines(pool);
  std::string line;
  for (int i = 0; std::getline(lines, line); ++i) {
    if (i == 1 || i == 2 || i == 5 || i == 6) kept += line + "\n";
  }
  WriteText(dir + "/curated.jsonl", kept);
  nlohmann::json manifest = {
      {"explain",
       {{"top_kept", {{{"id", "d5"}, {"score", 3.5}, {"bytes", 9}}, {{"id", "d1"}, {"score", 2}}}},
        {"lowest_in_pool", {{{"id", "d7"}, {"score", -9.25}}, {{"id", "gone"}, {"score", -8}}}}}}};
  WriteText(dir + "/curated.jsonl.manifest.json", manifest.dump());
  TrialJob job;
  job.outcome.config.pool = {dir + "/pool.jsonl"};
  trial::ArmRecord dsir;
  dsir.data_kind = "dsir";
  trial::ArmRecord random;
  random.data_kind = "random";
  job.outcome.data = {{"random", dir + "/random.jsonl", random},
                      {"curated", dir + "/curated.jsonl", dsir}};
  return job;
}

TEST(SelectionOf, ExplainedDocumentsWithExcerptsAndSharesByGenre) {
  const std::string dir = ScratchDir("trial_page_selection");
  auto sel = SelectionOf(SelectedJob(dir, true));
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  ASSERT_TRUE(sel->has_value());
  const report::Selection& s = **sel;
  EXPECT_EQ(s.arm, "curated");
  EXPECT_EQ(s.selector, "dsir");
  ASSERT_EQ(s.highest.size(), 2u);
  EXPECT_EQ(s.highest[0].id, "d5");
  EXPECT_DOUBLE_EQ(s.highest[0].score, 3.5);
  EXPECT_EQ(s.highest[0].excerpt, "document number 5 <b>&");  // blanks folded; escaped later
  ASSERT_EQ(s.lowest.size(), 2u);
  EXPECT_EQ(s.lowest[0].excerpt, "document number 7 <b>&");
  EXPECT_EQ(s.lowest[1].excerpt, "");  // not in the pool
  EXPECT_NE(s.lowest_label.find("in the pool"), std::string::npos);
  EXPECT_EQ(s.share_field, "genre");
  EXPECT_EQ(s.share_docs, 4u);
  EXPECT_FALSE(s.share_partial);
  using Shares = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(s.shares, (Shares{{"news", 3}, {"fiction", 1}}));
}

TEST(SelectionOf, TheLowestKeptWhenTheManifestNamesThem) {
  const std::string dir = ScratchDir("trial_page_lowest_kept");
  TrialJob job = SelectedJob(dir, false);
  const std::string manifest = dir + "/curated.jsonl.manifest.json";
  auto m = nlohmann::json::parse(preflight::testing::ReadText(manifest));
  m["explain"]["lowest_kept"] = {{{"id", "d2"}, {"score", -1.5}}};
  WriteText(manifest, m.dump());
  auto sel = SelectionOf(job);
  ASSERT_TRUE(sel.ok() && sel->has_value());
  ASSERT_EQ((*sel)->lowest.size(), 1u);
  EXPECT_EQ((*sel)->lowest[0].id, "d2");
  EXPECT_EQ((*sel)->lowest[0].excerpt, "document number 2 <b>&");
  EXPECT_EQ((*sel)->lowest_label, "Lowest-scored kept documents");
}

TEST(SelectionOf, NoSharesWithoutASourceLikeFieldAndNoSectionWithoutASelectedArm) {
  const std::string dir = ScratchDir("trial_page_plain");
  TrialJob job = SelectedJob(dir, false);
  auto sel = SelectionOf(job);
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(sel->has_value());
  EXPECT_TRUE((*sel)->share_field.empty());
  EXPECT_TRUE((*sel)->shares.empty());
  EXPECT_EQ((*sel)->highest.size(), 2u);
  job.outcome.data.pop_back();  // only the random arm
  auto none = SelectionOf(job);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace preflight::app
