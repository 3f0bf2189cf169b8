// The same inputs give the same result JSON and the same lab-record text, byte for byte, as the
// code gave before the trial arithmetic was split by noun (curve, bootstrap, comparison) and the
// words moved to narrate/: tests/trial/golden/*.txt were written by that code, built optimised
// with -mfma. A build that does not contract a*b+c into fused multiply-adds (Debug; the
// sanitizer configuration, whose -O1 leaves GCC's contraction pass out) differs in the last
// bits: there the numbers must agree to 1e-12 (relative) and every word still byte for byte.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// Whether this build computes exactly as the build that wrote the golden files did. GCC fuses
// multiply-adds only from -O2 up, and the sanitizer build is -O1 (scripts/test-sanitizers.sh).
#if defined(__OPTIMIZE__) && defined(__FMA__) && !defined(__SANITIZE_ADDRESS__)
constexpr bool kSameArithmetic = true;
#else
constexpr bool kSameArithmetic = false;
#endif

std::vector<std::string> Sections(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = text.find("\n---\n", start)) != std::string::npos; start = at + 5) {
    out.push_back(text.substr(start, at - start));
  }
  out.push_back(text.substr(start));
  return out;
}

// Equal but for floating-point numbers, which may differ in their last bits.
void ExpectNear(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  if (a.is_number_float() && b.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    EXPECT_LE(std::abs(x - y), 1e-12 * std::max(std::abs(x), std::abs(y))) << path;
  } else if (a.is_object() && b.is_object() && a.size() == b.size()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      ASSERT_TRUE(b.contains(it.key())) << path << "/" << it.key();
      ExpectNear(it.value(), b[it.key()], path + "/" + it.key());
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) ExpectNear(a[i], b[i], path + "/" + std::to_string(i));
  } else {
    EXPECT_EQ(a, b) << path;
  }
}

void ExpectGolden(const std::string& now, const std::string& name) {
  const std::string golden = Golden(name);
  ASSERT_FALSE(golden.empty()) << name;
  if (kSameArithmetic) {
    EXPECT_EQ(now, golden) << name;
    return;
  }
  const std::vector<std::string> a = Sections(now), b = Sections(golden);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  ExpectNear(nlohmann::json::parse(a[0]), nlohmann::json::parse(b[0]), name);
  for (size_t i = 1; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << name << " section " << i;
}

TEST(Golden, DataTrialsGiveTheSameJsonAndLabRecord) {
  for (const auto& [name, in] : golden::DataTrials()) {
    auto r = ComputeTrial(in);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    const narrate::LabQuestion q{
        "brown:news", "the bundled pool", "dsir", 0.25, "tiny", 100096, 2000, 4, 12'300'000,
        250'000, false};
    const nlohmann::json record = narrate::BuildLabRecord(q, *r);
    std::ostringstream now;
    now << TrialResultToJson(*r).dump(2) << "\n---\n"
        << record.dump(2) << "\n---\n"
        << narrate::LabRecordText(record) << "---\n"
        << narrate::Falsifier(q) << "\n";
    ExpectGolden(now.str(), "data_" + name);
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
    ExpectGolden(now.str(), "schedule_" + name);
  }
}

}  // namespace
}  // namespace preflight::trial
