#include "forecast/calibration.h"

#include <gtest/gtest.h>

#include <cmath>

#include "forecast/held_out.h"

namespace preflight::forecast {
namespace {

Example Ex(const std::string& name, const std::string& group, double x,
           std::optional<double> net) {
  Example e;
  e.name = name;
  e.group = group;
  e.signals["byte_bigram_gain"] = {x, x, x};
  e.signals["byte_unigram_gain"] = {-x, -x, -x};
  e.net = net;
  e.forecast_cost = 0.01;
  e.seeds = 4;
  e.scale = {"tiny", 300, 307200, 1, 0};
  return e;
}

// The same line on both sides of 0.
Calibration Line(double intercept, double slope, std::vector<double> residuals) {
  Calibration c;
  c.above = {intercept, slope, residuals, 4};
  c.below = c.above;
  c.scale = {"tiny", 300, 307200, 4, 0};
  return c;
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

TEST(Predict, ProbabilityIntervalAndExpectationFromTheResidualsByHand) {
  // Line 0.1 + 2x at x = 0.1: 0.3; outcomes 0.3 + {-0.5, -0.1, 0, 0.1, 0.2} = {-0.2, .2, .3, .4, .5}.
  const Calibration c = Line(0.1, 2, {-0.5, -0.1, 0, 0.1, 0.2});
  const Prediction p = c.Predict({0.1, 0.1, 0.1}, 0.01);
  EXPECT_NEAR(p.saving, 0.3, 1e-12);
  EXPECT_NEAR(p.probability, 0.8, 1e-12);
  EXPECT_NEAR(p.expected, (-0.2 + 0.2 + 0.3 + 0.4 + 0.5) / 5, 1e-12);
  // Split-conformal ranks: ceil(6 * 0.9) = 6 > 5 outcomes, so the extremes.
  EXPECT_NEAR(p.lo, -0.2, 1e-12);
  EXPECT_NEAR(p.hi, 0.5, 1e-12);
  EXPECT_EQ(p.verdict, "curate");
  EXPECT_EQ(p.strength, "weak");  // 80% is not 90%
  EXPECT_TRUE(p.scale_matches);
}

TEST(Predict, ConformalRanksOfTheInterval) {
  // 19 residuals -9..9 (x 0.01): ceil(20 * 0.9) = 18th smallest = 0.08; its mirror, 2nd = -0.08.
  std::vector<double> residuals;
  for (int i = -9; i <= 9; ++i) residuals.push_back(0.01 * i);
  const Prediction p = Line(0, 0, residuals).Predict({0, 0, 0}, 0.01);
  EXPECT_NEAR(p.lo, -0.08, 1e-12);
  EXPECT_NEAR(p.hi, 0.08, 1e-12);
}

TEST(Predict, BoundedWhateverTheSignal) {
  const Calibration c = Line(0, 10, {-0.3, 0, 0.3});
  for (double x : {-100.0, -1.0, 0.0, 1.0, 100.0}) {
    const Prediction p = c.Predict({x, x, x}, 0.01);
    EXPECT_GE(p.saving, -1);
    EXPECT_LE(p.saving, 1);
    EXPECT_GE(p.lo, -1);
    EXPECT_LE(p.hi, 1);
    EXPECT_GE(p.probability, 0);
    EXPECT_LE(p.probability, 1);
  }
  EXPECT_EQ(c.Predict({100, 100, 100}, 0.01).probability, 1.0);
  EXPECT_EQ(c.Predict({100, 100, 100}, 0.01).strength, "clear");
  EXPECT_EQ(c.Predict({-100, -100, -100}, 0.01).verdict, "random");
}

TEST(Predict, AbstainsWhenTheExpectedGainIsBelowTheForecastsCost) {
  const Calibration c = Line(0, 1, {-0.1, 0, 0.1});
  EXPECT_EQ(c.Predict({0.03, 0.03, 0.03}, 0.01).verdict, "curate");
  EXPECT_EQ(c.Predict({0.03, 0.03, 0.03}, 0.05).verdict, "uncertain");
  EXPECT_EQ(c.Predict({-0.03, -0.03, -0.03}, 0.05).verdict, "uncertain");
  EXPECT_EQ(c.Predict({-0.03, -0.03, -0.03}, 0.01).verdict, "random");
}

TEST(Predict, AnotherScaleWidensTheInterval) {
  const Calibration c = Line(0, 1, {-0.1, 0, 0.1});
  const Prediction same = c.Predict({0.2, 0.2, 0.2}, 0.01, true);
  const Prediction other = c.Predict({0.2, 0.2, 0.2}, 0.01, false);
  EXPECT_FALSE(other.scale_matches);
  EXPECT_NEAR(other.hi - other.lo, 2 * (same.hi - same.lo), 1e-12);
  EXPECT_TRUE(c.scale.Matches("tiny", 300));
  EXPECT_FALSE(c.scale.Matches("small", 300));
  EXPECT_FALSE(c.scale.Matches("tiny", 1000));
}

TEST(Fit, LeastSquaresWithOutOfGroupResidualsByHand) {
  // Groups a, b, c; y = 2x exactly except in group c.
  std::vector<Example> ex = {Ex("a1", "a", 0.1, 0.2), Ex("a2", "a", 0.2, 0.4),
                             Ex("b1", "b", 0.3, 0.6), Ex("c1", "c", 0.1, 0.0)};
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok()) << c.status().message();
  // Over all four: x = .1 .2 .3 .1, y = .2 .4 .6 0; mean x .175, mean y .3;
  // sxx = .005625 + .000625 + .015625 + .005625 = .0275; sxy = .0075 + .0025 + .0375 + .0225 = .07
  // Every x is > 0: the upper side's line is the line of all four.
  EXPECT_NEAR(c->above.slope, 0.07 / 0.0275, 1e-12);
  EXPECT_NEAR(c->above.intercept, 0.3 - 0.175 * 0.07 / 0.0275, 1e-12);
  EXPECT_EQ(c->above.examples, 4);
  EXPECT_EQ(c->below.examples, 0);
  EXPECT_EQ(c->examples, 4);
  EXPECT_EQ(c->groups, 3);
  ASSERT_EQ(c->above.residuals.size(), 4u);
  // Without c the line is y = 2x, so c1 misses by -0.2; without a it is y = 3x - 0.3 (misses
  // 0.2, 0.1); without b, y = 3x - 0.2 (b1 misses -0.1).
  const std::vector<double> want = {-0.2, -0.1, 0.1, 0.2};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(c->above.residuals[i], want[i], 1e-12);
  EXPECT_EQ(c->below.residuals, c->above.residuals);  // an empty side borrows every miss
  EXPECT_EQ(c->scale.model, "tiny");
  EXPECT_EQ(c->scale.trials, 4);
}

TEST(Fit, FewerThanThreeGroupsWidensInSampleResiduals) {
  std::vector<Example> ex = {Ex("a", "g", 0.1, 0.1), Ex("b", "g", 0.2, 0.3),
                             Ex("c", "g", 0.3, 0.2), Ex("d", "g", 0.4, 0.4)};
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  double sum = 0, sum_sq = 0;
  for (const Example& e : ex) {
    const double r =
        e.Label() - (c->above.intercept + c->above.slope * e.signals.at("byte_bigram_gain").value);
    sum_sq += r * r;
  }
  for (double r : c->above.residuals) sum += r * r;
  EXPECT_NEAR(sum, sum_sq * 4.0 / 2.0, 1e-12);  // widened by sqrt(n / (n - 2)) each
}

TEST(Fit, RefusesTooFewExamples) {
  EXPECT_FALSE(Fit({Ex("a", "a", 1, 0.1), Ex("b", "b", 2, 0.2)}, "byte_bigram_gain", "t").ok());
}

TEST(Calibrate, ChoosesTheSignalWithTheSmallestOutOfGroupMisses) {
  // The bigram gain tracks the saving; the unigram gain (its negative) does too, linearly, so
  // give the unigram gain noise to make it lose.
  std::vector<Example> ex;
  for (int i = 0; i < 8; ++i) {
    const double x = 0.05 * i;
    Example e = Ex("t" + std::to_string(i), "g" + std::to_string(i % 4), x, 2 * x - 0.1);
    e.signals["byte_unigram_gain"] = {(i % 2 ? 1.0 : -1.0), 0, 0};
    ex.push_back(e);
  }
  auto c = Calibrate(ex, CandidateSignals(), "test");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->signal, "byte_bigram_gain");
  EXPECT_NEAR(c->above.slope, 2, 1e-9);
}

TEST(Fit, NoCloserCuratedArmsGetTheirOwnLine) {
  // Savings of 30-50% wherever the curated arm is closer (x > 0); never caught up (labelled -1)
  // wherever it is not. One line through all would predict curating pays at x = -0.01.
  std::vector<Example> ex;
  for (int i = 1; i <= 8; ++i) {
    ex.push_back(Ex("p" + std::to_string(i), "g" + std::to_string(i % 4), 0.05 * i,
                    0.3 + 0.02 * i));
  }
  for (int i = 1; i <= 4; ++i) {
    ex.push_back(Ex("n" + std::to_string(i), "h" + std::to_string(i), -0.005 * i, std::nullopt));
  }
  EXPECT_DOUBLE_EQ(ex.back().Label(), -1.0);
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->below.examples, 4);
  EXPECT_EQ(c->above.examples, 8);
  const Prediction no = c->Predict({-0.01, -0.01, -0.01}, 0.01);
  EXPECT_EQ(no.verdict, "random");
  EXPECT_DOUBLE_EQ(no.probability, 0.0);
  const Prediction yes = c->Predict({0.2, 0.2, 0.2}, 0.01);
  EXPECT_EQ(yes.verdict, "curate");
  EXPECT_DOUBLE_EQ(yes.probability, 1.0);
  auto held = LeaveOneGroupOut(ex, {"byte_bigram_gain"});
  ASSERT_TRUE(held.ok()) << held.status().message();
  for (size_t i = 0; i < ex.size(); ++i) {
    EXPECT_EQ((*held)[i].verdict, ex[i].net ? "curate" : "random") << ex[i].name;
  }
}

TEST(LeaveOneGroupOut, EachGroupIsPredictedByAFitWithoutIt) {
  std::vector<Example> ex;
  for (int i = 0; i < 9; ++i) {
    ex.push_back(Ex("t" + std::to_string(i), "g" + std::to_string(i % 3), 0.05 * i,
                    0.5 * 0.05 * i + (i % 3 == 0 ? 0.3 : 0)));
  }
  auto held = LeaveOneGroupOut(ex, {"byte_bigram_gain"});
  ASSERT_TRUE(held.ok()) << held.status().message();
  std::vector<Example> rest;
  for (const Example& e : ex)
    if (e.group != "g0") rest.push_back(e);
  auto fit = Calibrate(rest, {"byte_bigram_gain"}, "x");
  ASSERT_TRUE(fit.ok());
  const Prediction want = fit->Predict(ex[3].signals["byte_bigram_gain"], ex[3].forecast_cost);
  EXPECT_DOUBLE_EQ((*held)[3].saving, want.saving);
  EXPECT_DOUBLE_EQ((*held)[3].probability, want.probability);
  EXPECT_FALSE(LeaveOneGroupOut({Ex("a", "g", 0.1, 0.1), Ex("b", "g", 0.2, 0.2)},
                                {"byte_bigram_gain"})
                   .ok());
}

TEST(SummarizeHeldOut, ClearAccuracyAbstentionsCoverageAndValueByHand) {
  std::vector<Example> ex = {Ex("a", "a", 0, 0.30), Ex("b", "b", 0, 0.05),
                             Ex("c", "c", 0, std::nullopt), Ex("d", "d", 0, -0.20)};
  auto P = [](const std::string& verdict, double lo, double hi) {
    Prediction p;
    p.verdict = verdict;
    p.lo = lo;
    p.hi = hi;
    return p;
  };
  std::vector<Prediction> preds = {P("curate", 0.1, 0.4),      // right, covered
                                   P("uncertain", 0.1, 0.2),   // not clear, not covered
                                   P("random", -0.2, 0.1),     // right (never), covered
                                   P("curate", 0.0, 0.3)};     // wrong, not covered
  nlohmann::json s = SummarizeHeldOut(ex, preds);
  EXPECT_EQ(s["clear_cases"], 3);
  EXPECT_EQ(s["clear"]["right"], 2);
  EXPECT_EQ(s["clear"]["decided"], 3);
  EXPECT_EQ(s["always_curate_clear"]["right"], 1);
  EXPECT_EQ(s["abstained"], 1);
  EXPECT_DOUBLE_EQ(s["coverage"].get<double>(), 0.5);
  // Runs: following = 4 * 0.08 (forecasts) + (0.7 + 1 + 1 + 1.2); curate 0.7 + 0.95 + 2 + 1.2.
  const auto& v = s["value_runs_per_target"];
  EXPECT_NEAR(v["following"].get<double>(), (0.32 + 3.9) / 4, 1e-12);
  EXPECT_NEAR(v["following_forecast_cost_excluded"].get<double>(), 3.9 / 4, 1e-12);
  EXPECT_NEAR(v["always_curate"].get<double>(), 4.85 / 4, 1e-12);
  EXPECT_NEAR(v["always_random"].get<double>(), 1.0, 1e-12);
  ASSERT_EQ(s["wrong"].size(), 1u);
  EXPECT_EQ(s["wrong"][0]["target"], "d");
}

TEST(Calibration, JsonRoundTripAndOldFormatsRefused) {
  Calibration c = DefaultCalibration();
  auto back = Calibration::FromJson(c.ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToJson(), c.ToJson());
  auto old = Calibration::FromJson(
      {{"signal", "x"}, {"mode", "point"}, {"slope", 1}, {"residual_sd", 0.1}});
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("--calibrate"), std::string::npos);
}

TEST(DefaultCalibration, RecordsItsScaleAndStaysBounded) {
  const Calibration c = DefaultCalibration();
  EXPECT_FALSE(c.scale.model.empty());
  EXPECT_GT(c.scale.steps, 0);
  EXPECT_FALSE(c.above.residuals.empty());
  EXPECT_FALSE(c.below.residuals.empty());
  for (double x : {-10.0, -0.5, 0.0, 0.5, 10.0}) {
    const Prediction p = c.Predict({x, x, x}, 0.01);
    EXPECT_GE(p.lo, -1);
    EXPECT_LE(p.hi, 1);
    EXPECT_LE(p.lo, p.saving + 1e-12);
  }
}

TEST(ExamplesFromReceipts, JoinsTrialsToTheirForecastsKeepingEachTargetsLatest) {
  auto forecast = [](const std::string& hash, double gain, const std::string& group) {
    return nlohmann::json{
        {"kind", "forecast"},
        {"hash", hash},
        {"config", {{"group", group}}},
        {"result",
         {{"signals", {{"byte_bigram_gain", {{"value", gain}, {"interval", {0.01, 0.03}}}}}},
          {"cost", {{"fraction_of_trial", 0.02}}}}}};
  };
  auto trial = [](const std::string& hash, const std::string& name, nlohmann::json net,
                  bool informative) {
    return nlohmann::json{
        {"kind", "trial"},
        {"config",
         {{"forecast", hash},
          {"target_name", name},
          {"seeds", 4},
          {"steps", 300},
          {"model", {{"name", "tiny"}, {"batch", 16}, {"context", 64}}}}},
        {"result",
         {{"compute_saved", {{"net", net}}},
          {"caught_up", !net.is_null()},
          {"regime", {{"informative", informative}}}}}};
  };
  std::vector<nlohmann::json> receipts = {
      forecast("f1", 0.02, "prose"),     forecast("f2", -0.01, "code"),
      trial("f1", "one", 0.25, false),   trial("f2", "two", nullptr, true),
      trial("", "none", 0.1, false),     trial("elsewhere", "gone", 0.1, false),
      forecast("f3", 0.05, "prose"),     trial("f3", "one", 0.4, false)};  // "one" rerun
  auto ex = ExamplesFromReceipts(receipts);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].name, "one");
  EXPECT_EQ(ex[0].group, "prose");
  EXPECT_EQ(ex[0].net, std::optional<double>(0.4));
  EXPECT_DOUBLE_EQ(ex[0].signals.at("byte_bigram_gain").value, 0.05);
  EXPECT_DOUBLE_EQ(ex[0].forecast_cost, 0.02);
  EXPECT_EQ(ex[0].scale.model, "tiny");
  EXPECT_DOUBLE_EQ(ex[0].scale.tokens, 300.0 * 16 * 64);
  EXPECT_EQ(ex[1].name, "two");
  EXPECT_EQ(ex[1].group, "code");
  EXPECT_FALSE(ex[1].net.has_value());
  EXPECT_EQ(ex[1].scale.informative, 1);
}

}  // namespace
}  // namespace preflight::forecast
