// The same inputs give the same result JSON and the same lab-record text, byte for byte, as the
// code gave before the trial arithmetic was split by noun (curve, bootstrap, comparison) and the
// words moved to narrate/: tests/trial/golden/*.txt were written by that code.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "golden_inputs.h"
#include "narrate/lab_record.h"
#include "narrate/schedule_record.h"
#include "trial/result_json.h"

namespace preflight::trial {
namespace {

std::string Golden(const std::string& name) {
  std::ifstream in(std::string(PREFLIGHT_SOURCE_DIR) + "/tests/trial/golden/" + name + ".txt");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Golden, DataTrialsGiveTheSameJsonAndLabRecord) {
  for (const auto& [name, in] : golden::DataTrials()) {
    auto r = ComputeTrial(in);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    const narrate::LabQuestion q{
        "brown:news", "the bundled pool", "dsir", 0.25, "tiny", 100096, 2000, 4, 12'300'000,
        250'000};
    const nlohmann::json record = narrate::BuildLabRecord(q, *r);
    std::ostringstream now;
    now << TrialResultToJson(*r).dump(2) << "\n---\n"
        << record.dump(2) << "\n---\n"
        << narrate::LabRecordText(record) << "---\n"
        << narrate::Falsifier(q) << "\n";
    EXPECT_EQ(now.str(), Golden("data_" + name)) << name;
  }
}

TEST(Golden, ScheduleTrialsGiveTheSameJsonAndLabRecord) {
  for (const auto& [name, in] : golden::ScheduleTrials()) {
    auto r = ComputeScheduleTrial(in);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    r->verdict.text = narrate::ScheduleVerdictText(*r);
    const narrate::ScheduleQuestion q{"brown:cj", "a random 25% of the pool", "tiny", 1000, 40, 3,
                                      100};
    const nlohmann::json record = narrate::BuildScheduleLabRecord(q, *r);
    std::ostringstream now;
    now << ScheduleTrialResultToJson(*r).dump(2) << "\n---\n"
        << record.dump(2) << "\n---\n"
        << narrate::LabRecordText(record) << "---\n"
        << narrate::ScheduleFalsifier(q, r->arms) << "\n";
    EXPECT_EQ(now.str(), Golden("schedule_" + name)) << name;
  }
}

}  // namespace
}  // namespace preflight::trial
