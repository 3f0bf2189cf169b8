// The forecast's record out of sample in words: every figure of the record in its place (a
// made-up record, so that no figure can come from anywhere else), and the lines the demo prints.

#include "narrate/forecast_record.h"

#include <gtest/gtest.h>

#include <sstream>

namespace preflight::narrate {
namespace {

// Every figure distinct, none of them the real record's.
constexpr forecast::HoldoutRecord kMadeUp = {"ledger.jsonl", 11, 4, 9, 5, 7, 2, 1, 0.9, 0.95};

TEST(ForecastRecordSentence, EveryFigureInItsPlace) {
  EXPECT_EQ(ForecastRecordSentence(kMadeUp),
            "On 11 targets from 4 corpora its calibration had not seen (bench/holdout/, since "
            "added to it), the forecast was right on 5 of 9 clear cases against 7 for always "
            "curating, called 1 of 2 that did not pay `random`, and spent 0.900 random-arm runs "
            "per target against 0.950.");
}

TEST(ForecastRecordSentence, AllWhenEveryNonPayerWasCaught) {
  forecast::HoldoutRecord r = kMadeUp;
  r.did_not_pay_random = r.did_not_pay;
  EXPECT_NE(ForecastRecordSentence(r).find("called all 2 that did not pay `random`"),
            std::string::npos);
}

TEST(ForecastRecordLines, TheSentenceIndentedToTheValuesColumnWithinAHundredColumns) {
  const std::string lines = ForecastRecordLines(kMadeUp);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), '\n');
  std::istringstream in(lines);
  std::string line, joined;
  int count = 0;
  while (std::getline(in, line)) {
    ++count;
    EXPECT_LE(line.size(), 100u) << line;
    EXPECT_EQ(line.rfind(std::string(29, ' '), 0), 0u) << line;
    EXPECT_NE(line[29], ' ') << line;
    if (!joined.empty()) joined += ' ';
    joined += line.substr(29);
  }
  EXPECT_GE(count, 2);
  EXPECT_EQ(joined, ForecastRecordSentence(kMadeUp));
}

}  // namespace
}  // namespace preflight::narrate
