#include "forecast/calibration.h"

#include <gtest/gtest.h>

namespace preflight::forecast {
namespace {

Example Ex(const std::string& name, double value, double lo, double hi, std::optional<double> net) {
  Example e;
  e.name = name;
  e.signals["byte_bigram_gain"] = {value, lo, hi};
  e.signals["byte_unigram_gain"] = {-value, -hi, -lo};  // always the wrong sign
  e.net = net;
  return e;
}

TEST(VerdictFor, PointFollowsTheSignIntervalAbstainsWhenItStraddles) {
  EXPECT_EQ(VerdictFor({0.01, -0.02, 0.03}, "point"), "curate");
  EXPECT_EQ(VerdictFor({-0.01, -0.02, 0.03}, "point"), "random");
  EXPECT_EQ(VerdictFor({0.0, -0.02, 0.03}, "point"), "uncertain");
  EXPECT_EQ(VerdictFor({0.01, -0.02, 0.03}, "interval"), "uncertain");
  EXPECT_EQ(VerdictFor({0.01, 0.005, 0.03}, "interval"), "curate");
  EXPECT_EQ(VerdictFor({-0.01, -0.02, 0.0}, "interval"), "random");
}

TEST(Correct, DesignRuleOnHandMadeOutcomes) {
  EXPECT_EQ(Correct("curate", 0.2), std::optional<bool>(true));
  EXPECT_EQ(Correct("curate", -0.05), std::optional<bool>(false));
  EXPECT_EQ(Correct("curate", 0.0), std::optional<bool>(false));           // net <= 0: did not pay
  EXPECT_EQ(Correct("curate", std::nullopt), std::optional<bool>(false));  // never caught up
  EXPECT_EQ(Correct("random", std::nullopt), std::optional<bool>(true));
  EXPECT_EQ(Correct("random", 0.0), std::optional<bool>(true));
  EXPECT_EQ(Correct("random", 0.1), std::optional<bool>(false));
  EXPECT_EQ(Correct("uncertain", 0.3), std::nullopt);
  EXPECT_EQ(Correct("uncertain", std::nullopt), std::nullopt);
}

TEST(Fit, SlopeThroughTheOriginByHand) {
  // x = 1, 2, 3; y = 2, 4, 0 (the last never caught up: labelled 0).
  std::vector<Example> ex = {Ex("a", 1, 1, 1, 2.0), Ex("b", 2, 2, 2, 4.0),
                             Ex("c", 3, 3, 3, std::nullopt)};
  auto c = Fit(ex, "byte_bigram_gain", "point", "test");
  ASSERT_TRUE(c.ok()) << c.status().message();
  // slope = sum xy / sum xx = (2 + 8 + 0) / 14
  EXPECT_NEAR(c->slope, 10.0 / 14, 1e-12);
  const double s = 10.0 / 14;
  const double rss = (2 - s) * (2 - s) + (4 - 2 * s) * (4 - 2 * s) + (0 - 3 * s) * (0 - 3 * s);
  EXPECT_NEAR(c->residual_sd, std::sqrt(rss / 2), 1e-12);
  EXPECT_EQ(c->examples, 3);
  Prediction p = c->Predict({0.5, -0.1, 0.2});
  EXPECT_NEAR(p.saving, 0.5 * s, 1e-12);
  EXPECT_NEAR(p.lo, -0.1 * s, 1e-12);
  EXPECT_NEAR(p.hi, 0.2 * s, 1e-12);
  EXPECT_EQ(p.verdict, "curate");
  EXPECT_EQ(p.strength, "weak");
}

TEST(Fit, RefusesTooFewOrDegenerateExamples) {
  EXPECT_FALSE(
      Fit({Ex("a", 1, 1, 1, 0.1), Ex("b", 2, 2, 2, 0.2)}, "byte_bigram_gain", "point", "t").ok());
  EXPECT_FALSE(Fit({Ex("a", 0, 0, 0, 0.1), Ex("b", 0, 0, 0, 0.2), Ex("c", 0, 0, 0, 0.3)},
                   "byte_bigram_gain", "point", "t")
                   .ok());
}

TEST(Calibrate, ChoosesTheSignalAndModeThatDecideBest) {
  // The bigram gain has the right sign everywhere; the unigram gain the wrong one. The point
  // mode decides all; the interval mode abstains on "d".
  std::vector<Example> ex = {Ex("a", 0.02, 0.01, 0.03, 0.3), Ex("b", 0.03, 0.02, 0.04, 0.4),
                             Ex("c", -0.01, -0.02, -0.005, std::nullopt),
                             Ex("d", 0.01, -0.01, 0.02, 0.1)};
  auto c = Calibrate(ex, CandidateSignals(), "test");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->signal, "byte_bigram_gain");
  EXPECT_EQ(c->mode, "point");
  auto loo = LeaveOneOut(ex, CandidateSignals());
  ASSERT_TRUE(loo.ok());
  ASSERT_EQ(loo->size(), 4u);
  EXPECT_EQ((*loo)[0].verdict, "curate");
  EXPECT_EQ((*loo)[2].verdict, "random");
  EXPECT_EQ((*loo)[3].verdict, "curate");
}

TEST(Calibration, JsonRoundTrip) {
  Calibration c = DefaultCalibration();
  auto back = Calibration::FromJson(c.ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToJson(), c.ToJson());
  EXPECT_FALSE(Calibration::FromJson({{"signal", "x"}}).ok());
}

TEST(ExamplesFromReceipts, JoinsTrialsToTheForecastsTheyTested) {
  std::vector<nlohmann::json> receipts = {
      {{"kind", "forecast"},
       {"hash", "f1"},
       {"result",
        {{"signals", {{"byte_bigram_gain", {{"value", 0.02}, {"interval", {0.01, 0.03}}}}}}}}},
      {{"kind", "forecast"},
       {"hash", "f2"},
       {"result", {{"signals", {{"byte_bigram_gain", {{"value", -0.01}}}}}}}},
      {{"kind", "trial"},
       {"config", {{"forecast", "f1"}, {"target_name", "one"}}},
       {"result", {{"compute_saved", {{"net", 0.25}}}}}},
      {{"kind", "trial"},
       {"config", {{"forecast", "f2"}, {"target_name", "two"}}},
       {"result", {{"compute_saved", {{"net", nullptr}}}}}},
      // No forecast, or one not in this ledger: not a labelled example.
      {{"kind", "trial"},
       {"config", {{"forecast", ""}}},
       {"result", {{"compute_saved", {{"net", 0.1}}}}}},
      {{"kind", "trial"},
       {"config", {{"forecast", "elsewhere"}}},
       {"result", {{"compute_saved", {{"net", 0.1}}}}}},
  };
  auto ex = ExamplesFromReceipts(receipts);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].name, "one");
  EXPECT_DOUBLE_EQ(ex[0].signals.at("byte_bigram_gain").value, 0.02);
  EXPECT_DOUBLE_EQ(ex[0].signals.at("byte_bigram_gain").lo, 0.01);
  EXPECT_EQ(ex[0].net, std::optional<double>(0.25));
  EXPECT_EQ(ex[1].name, "two");
  EXPECT_FALSE(ex[1].net.has_value());
  EXPECT_DOUBLE_EQ(ex[1].signals.at("byte_bigram_gain").hi, -0.01);
}

}  // namespace
}  // namespace preflight::forecast
