// The regime check in words: the sentence, the warning beside an uninformative pilot's saving,
// and the one-screen line.

#include "narrate/regime_text.h"

#include <gtest/gtest.h>

#include "narrate/lab_record.h"

namespace preflight::narrate {
namespace {

const trial::NgramScores kRandom{4.6, 3.6, 3.24, 4};

TEST(RegimeSentence, InformativePilotSaysWhatItBeat) {
  const trial::Regime r = trial::MakeRegime(kRandom, {{"random", kRandom}}, 2.9);
  EXPECT_EQ(RegimeSentence(r),
            "The pilot learned more than byte n-gram statistics: its best held-out loss (L* = "
            "2.9000 bits per byte) is 0.3400 bits below the best byte n-gram model fitted on the "
            "same data (order 4: 3.2400; bigram 3.6000, unigram 4.6000), clearing the 0.0500-bit "
            "threshold.");
  EXPECT_EQ(RegimeNumbersText(r).find(kUninformativeWarning), std::string::npos);
}

TEST(RegimeSentence, UninformativePilotSaysSoInPlainWords) {
  const trial::Regime r = trial::MakeRegime(kRandom, {{"random", kRandom}}, 3.26);
  const std::string s = RegimeSentence(r);
  EXPECT_EQ(s.rfind("This pilot learned no more than byte n-gram statistics; its saving says "
                    "little about a larger model: ",
                    0),
            0u)
      << s;
  EXPECT_NE(s.find("0.0200 bits above the best byte n-gram model"), std::string::npos) << s;
  const std::string line = RegimeNumbersText(r);
  EXPECT_NE(line.find("NOT informative: L* 3.2600 vs best n-gram 3.2400 (order 4), margin -0.0200"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(kUninformativeWarning), std::string::npos);
}

TEST(AddRegimeToLabRecord, TheWarningFollowsTheSavingInTheSummary) {
  nlohmann::json record = {{"summary", "Curation saved 30.0% of training compute."},
                           {"finding", "..."}};
  AddRegimeToLabRecord(trial::MakeRegime(kRandom, {}, 3.5), record);
  EXPECT_EQ(record["summary"], std::string("Curation saved 30.0% of training compute. But ") +
                                   kUninformativeWarning + ".");
  EXPECT_TRUE(record["regime"].is_string());
  EXPECT_NE(LabRecordText(record).find("Regime\n  This pilot learned no more"), std::string::npos)
      << LabRecordText(record);

  nlohmann::json informative = {{"summary", "Curation saved 30.0%."}};
  AddRegimeToLabRecord(trial::MakeRegime(kRandom, {}, 2.0), informative);
  EXPECT_EQ(informative["summary"], "Curation saved 30.0%.");
  EXPECT_NE(informative["regime"].get<std::string>().find("learned more than"), std::string::npos);
}

}  // namespace
}  // namespace preflight::narrate
