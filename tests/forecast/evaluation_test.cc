#include "forecast/evaluation.h"

#include <gtest/gtest.h>

#include <limits>

namespace preflight::forecast {
namespace {

BatteryOutcome Row(const std::string& name, double signal, std::optional<double> net,
                   const std::string& verdict, double cost_random, double cost_curated) {
  BatteryOutcome r;
  r.example.name = name;
  r.example.signals["byte_bigram_gain"] = {signal, signal, signal};
  r.example.signals["byte_unigram_gain"] = {signal, signal, signal};
  r.example.net = net;
  r.forecast.verdict = verdict;
  r.forecast_core_seconds = 1;
  r.cost_random = cost_random;
  r.cost_curated = cost_curated;
  return r;
}

TEST(FillCosts, FromATrialsMeasurements) {
  TrialCosts costs{0.5, 1.0, 2.0, 100.0, 60.0, 120};
  BatteryOutcome r;
  FillCosts(costs, &r);
  EXPECT_DOUBLE_EQ(r.cost_random, 51);                        // 100 * 0.5 + 1
  EXPECT_DOUBLE_EQ(r.cost_curated, 32);                       // 60 * 0.5 + 2
  costs.t_curated = std::numeric_limits<double>::infinity();  // never: the budget, then random
  FillCosts(costs, &r);
  EXPECT_DOUBLE_EQ(r.cost_curated, 120 * 0.5 + 2 + 51);
}

TEST(EvaluateForecasts, AccuracyClearCasesTrivialRulesAndValueByHand) {
  std::vector<BatteryOutcome> rows = {
      Row("a", 0.05, 0.30, "curate", 100, 70),            // right, clear
      Row("b", 0.01, 0.05, "curate", 100, 95),            // right, not clear
      Row("c", -0.01, std::nullopt, "random", 100, 250),  // right, clear (never)
      Row("d", 0.02, 0.20, "uncertain", 100, 80),         // abstained: falls back to random
      Row("e", 0.03, -0.15, "curate", 100, 115)};         // wrong, clear
  nlohmann::json e = EvaluateForecasts(rows);
  EXPECT_EQ(e["forecast"]["all"]["right"], 3);
  EXPECT_EQ(e["forecast"]["all"]["wrong"], 1);
  EXPECT_EQ(e["forecast"]["all"]["abstained"], 1);
  EXPECT_DOUBLE_EQ(e["forecast"]["all"]["accuracy"].get<double>(), 0.75);
  EXPECT_EQ(e["forecast"]["clear"]["right"], 2);  // a, c (d abstained, e wrong)
  EXPECT_EQ(e["forecast"]["clear"]["wrong"], 1);
  EXPECT_EQ(e["always_curate"]["all"]["right"], 3);    // a, b, d
  EXPECT_EQ(e["always_random"]["all"]["right"], 2);    // c, e
  EXPECT_EQ(e["always_curate"]["clear"]["right"], 2);  // a, d of a, c, d, e
  // Following: 5 forecasts + 70 + 95 + 100 + 100 + 115.
  EXPECT_DOUBLE_EQ(e["value"]["following_forecast_core_seconds"].get<double>(), 485);
  EXPECT_DOUBLE_EQ(e["value"]["always_curate_core_seconds"].get<double>(),
                   70 + 95 + 250 + 80 + 115);
  EXPECT_DOUBLE_EQ(e["value"]["always_random_core_seconds"].get<double>(), 500);
  EXPECT_DOUBLE_EQ(e["value"]["saved_vs_always_curate"].get<double>(), 610 - 485);
  EXPECT_DOUBLE_EQ(e["value"]["saved_vs_always_random"].get<double>(), 500 - 485);
  ASSERT_FALSE(e["leave_one_out"].is_null());
  EXPECT_EQ(e["leave_one_out"]["per_target"].size(), 5u);
}

}  // namespace
}  // namespace preflight::forecast
