// The forecast's record out of sample is evidence, not a constant: forecast::kHoldoutRecord (what
// the demo's summary quotes) must be what bench/holdout/as_made.py prints from the committed
// ledger the record names. A record edited by hand, or a ledger rerun without the record, fails.

#include "forecast/holdout_record.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/testing.h"

namespace preflight::forecast {
namespace {

TEST(HoldoutRecord, IsWhatAsMadePrintsFromTheCommittedLedger) {
  const std::string root = PREFLIGHT_SOURCE_DIR;
  const testing::CliResult r = testing::RunProgram(
      {PREFLIGHT_PYTHON3, root + "/bench/holdout/as_made.py", root + "/" + kHoldoutRecord.ledger});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One line per target, then the figures as one JSON object from a line that is "{".
  const size_t at = r.out.find("\n{");
  ASSERT_NE(at, std::string::npos) << r.out;
  const nlohmann::json f = nlohmann::json::parse(r.out.substr(at + 1));
  EXPECT_EQ(f.at("targets").get<int>(), kHoldoutRecord.targets);
  EXPECT_EQ(f.at("clear").get<int>(), kHoldoutRecord.clear);
  EXPECT_EQ(f.at("forecast_decided").get<int>(), kHoldoutRecord.clear) << "no abstention";
  EXPECT_EQ(f.at("forecast_right").get<int>(), kHoldoutRecord.right);
  EXPECT_EQ(f.at("always_curate_right").get<int>(), kHoldoutRecord.always_curate_right);
  const nlohmann::json& missed = f.at("did_not_pay");
  EXPECT_EQ(missed.at("random").get<int>() + missed.at("uncertain").get<int>() +
                missed.at("curate").get<int>(),
            kHoldoutRecord.did_not_pay);
  EXPECT_EQ(missed.at("random").get<int>(), kHoldoutRecord.did_not_pay_random);
  // The record holds them to the three decimals the sentence prints.
  EXPECT_NEAR(f.at("runs_following").get<double>(), kHoldoutRecord.runs_following, 5e-4);
  EXPECT_NEAR(f.at("runs_always_curate").get<double>(), kHoldoutRecord.runs_always_curate, 5e-4);
}

}  // namespace
}  // namespace preflight::forecast
