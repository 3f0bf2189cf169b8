#include "narrate/lab_record.h"

#include <gtest/gtest.h>

#include "narrate/sample_question.h"
#include "trial/trial_inputs.h"

namespace preflight::narrate {
namespace {

using trial::ComputeTrial;
using trial::Curve;
using trial::testing::C;
using trial::testing::FourSeeds;
using trial::testing::kSteps;
using trial::testing::TwoArms;

LabQuestion Question() { return testing::NewsQuestion(); }

TEST(LabRecord, SummaryFirstFalsifierFixedAndLimitsStated) {
  auto r = ComputeTrial(FourSeeds());
  ASSERT_TRUE(r.ok());
  nlohmann::json rec = BuildLabRecord(Question(), *r);
  for (const char* key : {"summary", "question", "falsifier", "finding", "does_not_show"}) {
    EXPECT_TRUE(rec.contains(key)) << key;
  }
  EXPECT_EQ(rec["falsifier"], Falsifier(Question()));
  EXPECT_NE(rec["falsifier"].get<std::string>().find("within S = 2,000 training steps"),
            std::string::npos);
  EXPECT_NE(rec["summary"].get<std::string>().find("less training compute"), std::string::npos);
  EXPECT_GE(rec["does_not_show"].size(), 4u);
  std::string text = LabRecordText(rec);
  EXPECT_EQ(text.rfind("Summary\n", 0), 0u) << text;
  EXPECT_NE(text.find("What this does not show"), std::string::npos);
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    EXPECT_LE(end - start, 100u) << text.substr(start, end - start);
  }
}

TEST(LabRecord, NeverCaughtUpSaysSo) {
  auto r = ComputeTrial(TwoArms({C(kSteps, {8, 4, 3, 2.5, 2.0})}, {C(kSteps, {8, 5, 4, 3, 2.5})}));
  ASSERT_TRUE(r.ok());
  nlohmann::json rec = BuildLabRecord(Question(), *r);
  EXPECT_NE(rec["summary"].get<std::string>().find("never caught up"), std::string::npos);
  EXPECT_NE(rec["finding"].get<std::string>().find("The falsifier occurred"), std::string::npos);
}

TEST(LabRecord, FindingPricesAStepInTheTrainersUnit) {
  auto r = ComputeTrial(FourSeeds());
  ASSERT_TRUE(r.ok());
  LabQuestion q = Question();
  const std::string builtin = BuildLabRecord(q, *r)["finding"];
  EXPECT_NE(builtin.find("core-seconds per training step"), std::string::npos) << builtin;
  EXPECT_EQ(builtin.find("charged seconds"), std::string::npos) << builtin;
  q.launched = true;  // --trainer torch|cmd: f is the median of the runs' charged seconds
  const std::string launched = BuildLabRecord(q, *r)["finding"];
  EXPECT_NE(launched.find("charged seconds of the launched trainer"), std::string::npos)
      << launched;
  EXPECT_EQ(launched.find("core-seconds per training step"), std::string::npos) << launched;
}

TEST(LabRecord, AKeepTrialNamesItsFractionAndTheWholePoolAsTheBaseline) {
  auto r = ComputeTrial(FourSeeds());
  ASSERT_TRUE(r.ok());
  LabQuestion q = Question();
  const nlohmann::json quarter = BuildLabRecord(q, *r);
  EXPECT_NE(quarter["question"].get<std::string>().find("a random quarter of the same bytes"),
            std::string::npos);
  q.keep = 0.05;
  q.whole_pool_baseline = true;  // a keep ladder's rung
  const nlohmann::json keep = BuildLabRecord(q, *r);
  const std::string question = keep["question"];
  EXPECT_NE(question.find("on the 5% of the pool"), std::string::npos) << question;
  EXPECT_NE(question.find("the whole pool, unselected, in random order"), std::string::npos)
      << question;
  EXPECT_EQ(question.find("same bytes"), std::string::npos) << question;
  EXPECT_NE(keep["summary"].get<std::string>().find("the whole unselected pool's best"),
            std::string::npos)
      << keep["summary"];
}

TEST(ModelPhrase, ParametersWhenKnown) {
  EXPECT_EQ(ModelPhrase("tiny", 100096), "the tiny model (100,096 parameters)");
  EXPECT_EQ(ModelPhrase("tiny", 0), "the tiny model");
}

}  // namespace
}  // namespace preflight::narrate
