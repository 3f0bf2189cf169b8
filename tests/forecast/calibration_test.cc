#include "forecast/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "forecast/held_out.h"

namespace preflight::forecast {
namespace {

Example Ex(const std::string& name, const std::string& group, double x, std::optional<double> net) {
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

// A calibration with a given curve and residuals (x, r).
Calibration Curve(std::vector<Knot> curve, std::vector<Residual> residuals) {
  Calibration c;
  c.curve = std::move(curve);
  c.residuals = std::move(residuals);
  c.scale = {"tiny", 300, 307200, 4, 0};
  return c;
}

// n residuals at x = 0 with the given misses.
std::vector<Residual> AtZero(const std::vector<double>& misses) {
  std::vector<Residual> out;
  for (double r : misses) out.push_back({0, r});
  return out;
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

TEST(MonotoneFit, PoolsViolatorsAndAnchorsAtZeroByHand) {
  // (0.1, 0.2) and (0.2, 0.1) violate the order: pooled to (0.15, 0.15). The fit at 0 is 0.15
  // (flat left of its first knot), so the anchor is min(0, 0.15) = 0.
  const std::vector<Knot> k = FitAnchoredMonotone({{0.2, 0.1}, {0.1, 0.2}, {0.3, 0.5}});
  ASSERT_EQ(k.size(), 3u);
  EXPECT_DOUBLE_EQ(k[0].x, 0);
  EXPECT_DOUBLE_EQ(k[0].y, 0);
  EXPECT_NEAR(k[1].x, 0.15, 1e-15);
  EXPECT_NEAR(k[1].y, 0.15, 1e-15);
  EXPECT_DOUBLE_EQ(k[2].y, 0.5);
  EXPECT_NEAR(CurveAt(k, 0.075), 0.075, 1e-15);  // linear from the anchor
  EXPECT_DOUBLE_EQ(CurveAt(k, -1), 0);           // flat outside the knots
  EXPECT_DOUBLE_EQ(CurveAt(k, 9), 0.5);
  EXPECT_DOUBLE_EQ(CurveAt({}, 0.3), 0);
}

TEST(MonotoneFit, NoSavingAtOrBelowZeroEvenWhereTheDataPaidThere) {
  // The point at x = -0.05 saved 30%; the model still says at most 0 for x <= 0.
  const std::vector<Knot> k = FitAnchoredMonotone({{-0.1, -1}, {-0.05, 0.3}, {0.1, 0.4}});
  EXPECT_DOUBLE_EQ(CurveAt(k, -0.1), -1);
  EXPECT_DOUBLE_EQ(CurveAt(k, -0.05), 0);
  EXPECT_DOUBLE_EQ(CurveAt(k, 0), 0);
  EXPECT_DOUBLE_EQ(CurveAt(k, 0.1), 0.4);
  // Everything below 0 and negative: the anchor is the fit's own (negative) value at 0.
  const std::vector<Knot> low = FitAnchoredMonotone({{-0.2, -1}, {-0.1, -0.4}});
  EXPECT_DOUBLE_EQ(CurveAt(low, 0), -0.4);
  EXPECT_DOUBLE_EQ(CurveAt(low, 5), -0.4);  // no positive evidence: no positive prediction
}

TEST(MonotoneFit, NonDecreasingAndAtMostZeroAtZeroOnAnyData) {
  uint64_t state = 7;
  auto uniform = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<XY> points;
    const int n = 1 + trial % 17;
    for (int i = 0; i < n; ++i) points.push_back({uniform() - 0.4, 2 * uniform() - 1});
    const std::vector<Knot> k = FitAnchoredMonotone(points);
    for (size_t i = 1; i < k.size(); ++i) {
      EXPECT_LE(k[i - 1].x, k[i].x);
      EXPECT_LE(k[i - 1].y, k[i].y + 1e-12);
    }
    EXPECT_LE(CurveAt(k, 0), 0);
    EXPECT_LE(CurveAt(k, -0.2), 0);
  }
}

TEST(Predict, ProbabilityIntervalAndExpectationFromTheNearestResidualsByHand) {
  // Curve 0 -> 0, 0.2 -> 0.4; at x = 0.1: 0.2. Ten residuals, all used (at least 10 are).
  // Outcomes 0.2 + {-0.5, -0.3, -0.1, 0, 0, 0.05, 0.1, 0.1, 0.2, 0.3}: 7 of 10 above 0.
  const Calibration c =
      Curve({{0, 0}, {0.2, 0.4}}, AtZero({-0.5, -0.3, -0.1, 0, 0, 0.05, 0.1, 0.1, 0.2, 0.3}));
  EXPECT_EQ(c.Neighbours(), 10);
  const Prediction p = c.Predict({0.1, 0.1, 0.1}, 0.01);
  EXPECT_NEAR(p.saving, 0.2, 1e-12);
  EXPECT_NEAR(p.probability, (8 + 0.5) / 11, 1e-12);  // 0.2 - 0.1 = 0.1 > 0 too: 8 above
  EXPECT_NEAR(p.expected, 0.2 + (-0.5 - 0.3 - 0.1 + 0.05 + 0.1 + 0.1 + 0.2 + 0.3) / 10, 1e-12);
  // Split-conformal ranks: ceil(11 * 0.9) = 10th of 10: the extremes.
  EXPECT_NEAR(p.lo, -0.3, 1e-12);
  EXPECT_NEAR(p.hi, 0.5, 1e-12);
  EXPECT_EQ(p.verdict, "curate");
  EXPECT_EQ(p.strength, "weak");
}

TEST(Predict, ReadsTheMissesOfTheExamplesNearestInTheSignal) {
  // 30 residuals at x = 0.01 * i: the lower 15 missed by -1 (never caught up), the upper 15 by
  // +0.1. Neighbours: max(10, 30 / 3) = 10.
  std::vector<Residual> residuals;
  for (int i = 0; i < 30; ++i) residuals.push_back({0.01 * i, i < 15 ? -1.0 : 0.1});
  const Calibration c = Curve({{0, 0}, {0.3, 0.5}}, residuals);
  EXPECT_EQ(c.Neighbours(), 10);
  const Prediction low = c.Predict({0.02, 0.02, 0.02}, 0.01);
  EXPECT_NEAR(low.probability, 0.5 / 11, 1e-12);  // none of the 10 nearest paid
  EXPECT_EQ(low.verdict, "random");
  const Prediction high = c.Predict({0.28, 0.28, 0.28}, 0.01);
  EXPECT_NEAR(high.probability, 10.5 / 11, 1e-12);
  EXPECT_EQ(high.verdict, "curate");
  EXPECT_EQ(high.strength, "clear");
}

TEST(Predict, AZeroSignalIsNeverCurate) {
  // Residuals that would make any prediction look good, and a cost of nothing.
  const Calibration c = Curve({{0, 0}, {0.1, 0.5}}, AtZero({0.4, 0.5, 0.6, 0.7}));
  for (const SignalValue& x : std::vector<SignalValue>{{0, 0, 0}, {-0.01, -0.01, -0.01}}) {
    const Prediction p = c.Predict(x, 0);
    EXPECT_LE(p.saving, 0);
    EXPECT_NE(p.verdict, "curate") << x.value;
  }
  // Closer on average, but its own interval covers 0: not measurably closer, so not curate.
  EXPECT_NE(c.Predict({0.002, -0.001, 0.005}, 0).verdict, "curate");
  EXPECT_EQ(c.Predict({0.002, 0.001, 0.005}, 0).verdict, "curate");
}

// The gate: a signal whose own interval covers 0 says the selection found nothing a random
// quarter lacks, so curating would pay for it in vain: random, however well the curve and its
// residuals say curating pays there, and whatever the forecast cost.
TEST(Predict, AQuarterNotMeasurablyCloserIsRandomWhateverTheCurve) {
  const Calibration good = Curve({{0, 0}, {0.1, 0.5}}, AtZero({0.4, 0.5, 0.6, 0.7}));
  const Prediction p = good.Predict({0.02, -0.001, 0.04}, 0);
  EXPECT_GT(p.expected, 0);  // the curve alone would curate
  EXPECT_GT(p.probability, 0.5);
  EXPECT_EQ(p.verdict, "random");
  EXPECT_GE(p.probability, 0.9);  // the curve is sure curating pays, so the gated verdict is weak
  EXPECT_EQ(p.strength, "weak");
  EXPECT_EQ(good.Predict({0.02, 0.001, 0.04}, 0).verdict, "curate");  // the same, but closer
  EXPECT_EQ(good.Predict({0.02, 0.001, 0.04}, 0).strength, "clear");
  // Without an interval (lo == hi) there is no gate: the curve and the cost decide.
  EXPECT_EQ(good.Predict({0.02, 0.02, 0.02}, 0).verdict, "curate");
  // A signal measurably below 0 is past the gate; a curve that says it loses makes it random.
  const Calibration bad = Curve({{0, 0}, {0.1, 0.5}}, AtZero({-0.9, -0.8, -0.7}));
  EXPECT_EQ(bad.Predict({-0.01, -0.02, -0.005}, 0.01).verdict, "random");
  EXPECT_EQ(bad.Predict({0.001, -0.001, 0.003}, 0.01).verdict, "random");
  EXPECT_EQ(bad.Predict({0.001, 0.0005, 0.003}, 0.01).verdict, "random");
}

TEST(Predict, ProbabilityStaysInsideZeroAndOneForAnyCalibrationSize) {
  for (int n : {1, 2, 3, 5, 10, 50, 400}) {
    for (double miss : {-2.0, 0.0, 2.0}) {  // one-sided: every outcome below, at or above 0
      std::vector<Residual> residuals;
      for (int i = 0; i < n; ++i) residuals.push_back({0.001 * i, miss});
      const Calibration c = Curve({{0, 0}, {0.1, 0.9}}, residuals);
      for (double x : {-1.0, 0.0, 0.05, 1.0}) {
        const Prediction p = c.Predict({x, x, x}, 0.01);
        EXPECT_GT(p.probability, 0) << n << " " << miss << " " << x;
        EXPECT_LT(p.probability, 1) << n << " " << miss << " " << x;
      }
    }
  }
}

TEST(Predict, BoundedWhateverTheSignal) {
  const Calibration c = Curve({{0, 0}, {0.1, 1}}, AtZero({-0.3, 0, 0.3}));
  for (double x : {-100.0, -1.0, 0.0, 1.0, 100.0}) {
    const Prediction p = c.Predict({x, x, x}, 0.01);
    EXPECT_GE(p.saving, -1);
    EXPECT_LE(p.saving, 1);
    EXPECT_GE(p.lo, -1);
    EXPECT_LE(p.hi, 1);
  }
}

TEST(Predict, AbstainsWhenTheExpectedGainIsBelowTheForecastsCost) {
  const Calibration c = Curve({{-1, -1}, {0, 0}, {1, 1}}, AtZero({-0.1, 0, 0.1}));
  EXPECT_EQ(c.Predict({0.03, 0.03, 0.03}, 0.01).verdict, "curate");
  EXPECT_EQ(c.Predict({0.03, 0.03, 0.03}, 0.05).verdict, "uncertain");
  EXPECT_EQ(c.Predict({-0.03, -0.03, -0.03}, 0.05).verdict, "uncertain");
  EXPECT_EQ(c.Predict({-0.03, -0.03, -0.03}, 0.01).verdict, "random");
}

TEST(Predict, AnotherScaleWidensTheInterval) {
  const Calibration c = Curve({{0, 0}, {1, 1}}, AtZero({-0.1, 0, 0.1}));
  const Prediction same = c.Predict({0.2, 0.2, 0.2}, 0.01, true);
  const Prediction other = c.Predict({0.2, 0.2, 0.2}, 0.01, false);
  EXPECT_FALSE(other.scale_matches);
  EXPECT_NEAR(other.hi - other.lo, 2 * (same.hi - same.lo), 1e-12);
  EXPECT_TRUE(c.scale.Matches("tiny", 300));
  EXPECT_FALSE(c.scale.Matches("small", 300));
  EXPECT_FALSE(c.scale.Matches("tiny", 1000));
}

TEST(Fit, MonotoneCurveWithOutOfGroupResidualsByHand) {
  // Groups a, b, c; every x > 0.
  std::vector<Example> ex = {Ex("a1", "a", 0.1, 0.2), Ex("a2", "a", 0.2, 0.4),
                             Ex("b1", "b", 0.3, 0.6), Ex("c1", "c", 0.1, 0.0)};
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok()) << c.status().message();
  // All four: x .1 .1 .2 .3, y (in x order, ties as given) .2 0 .4 .6: the tie at .1 pools to
  // .1; knots (0, 0), (.1, .1), (.2, .4), (.3, .6).
  ASSERT_EQ(c->curve.size(), 4u);
  EXPECT_NEAR(c->curve[1].y, 0.1, 1e-12);
  EXPECT_EQ(c->examples, 4);
  EXPECT_EQ(c->groups, 3);
  // Without a: (0, 0), (.1, 0), (.3, .6): a1 at .1 misses by .2, a2 at .2 (.3) by .1.
  // Without b: (0, 0), (.1, .1), (.2, .4): b1 at .3 (flat, .4) misses by .2.
  // Without c: (0, 0), (.1, .2), (.2, .4), (.3, .6): c1 misses by -.2.
  ASSERT_EQ(c->residuals.size(), 4u);
  std::vector<double> misses;
  for (const Residual& r : c->residuals) misses.push_back(r.r);
  std::sort(misses.begin(), misses.end());
  const std::vector<double> want = {-0.2, 0.1, 0.2, 0.2};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(misses[i], want[i], 1e-12);
  for (size_t i = 1; i < c->residuals.size(); ++i) {
    EXPECT_LE(c->residuals[i - 1].x, c->residuals[i].x);  // sorted by x
  }
  EXPECT_EQ(c->scale.model, "tiny");
  EXPECT_EQ(c->scale.trials, 4);
}

TEST(Fit, FewerThanThreeGroupsWidensInSampleResiduals) {
  std::vector<Example> ex = {Ex("a", "g", 0.1, 0.1), Ex("b", "g", 0.2, 0.3), Ex("c", "g", 0.3, 0.2),
                             Ex("d", "g", 0.4, 0.4)};
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  double sum = 0, sum_sq = 0;
  for (const Example& e : ex) {
    const double r = e.Label() - CurveAt(c->curve, e.signals.at("byte_bigram_gain").value);
    sum_sq += r * r;
  }
  for (const Residual& r : c->residuals) sum += r.r * r.r;
  EXPECT_NEAR(sum, sum_sq * 4.0 / 2.0, 1e-12);  // widened by sqrt(n / (n - 2)) each
}

TEST(Fit, RefusesTooFewExamples) {
  EXPECT_FALSE(Fit({Ex("a", "a", 1, 0.1), Ex("b", "b", 2, 0.2)}, "byte_bigram_gain", "t").ok());
}

TEST(Calibrate, ChoosesTheSignalWithTheSmallestOutOfGroupMisses) {
  // The bigram gain orders the savings; the unigram gain is noise.
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
}

TEST(Fit, NoCloserCuratedArmsAreForecastNotToPay) {
  // Savings of 30-50% wherever the curated arm is closer (x > 0); never caught up (labelled -1)
  // wherever it is not.
  std::vector<Example> ex;
  for (int i = 1; i <= 8; ++i) {
    ex.push_back(
        Ex("p" + std::to_string(i), "g" + std::to_string(i % 4), 0.05 * i, 0.3 + 0.02 * i));
  }
  for (int i = 1; i <= 4; ++i) {
    ex.push_back(Ex("n" + std::to_string(i), "h" + std::to_string(i), -0.005 * i, std::nullopt));
  }
  EXPECT_DOUBLE_EQ(ex.back().Label(), -1.0);
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  const Prediction no = c->Predict({-0.01, -0.01, -0.01}, 0.01);
  EXPECT_EQ(no.verdict, "random");
  EXPECT_GT(no.probability, 0);  // never exactly 0 from 12 examples
  EXPECT_LT(no.probability, 0.5);
  const Prediction yes = c->Predict({0.3, 0.3, 0.3}, 0.01);
  EXPECT_EQ(yes.verdict, "curate");
  EXPECT_LT(yes.probability, 1);
  EXPECT_GT(yes.probability, 0.5);
  auto held = LeaveOneGroupOut(ex, {"byte_bigram_gain"});
  ASSERT_TRUE(held.ok()) << held.status().message();
  // Held out, no never-caught-up target is curated, and every clearly closer one is. (p1, the
  // closest to the negatives, sits where the curve climbs from the anchor: a prediction between.)
  for (size_t i = 0; i < ex.size(); ++i) {
    const double x = ex[i].signals.at("byte_bigram_gain").value;
    if (!ex[i].net) {
      EXPECT_NE((*held)[i].verdict, "curate") << ex[i].name;
    }
    if (x >= 0.1) {
      EXPECT_EQ((*held)[i].verdict, "curate") << ex[i].name;
    }
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
  EXPECT_FALSE(
      LeaveOneGroupOut({Ex("a", "g", 0.1, 0.1), Ex("b", "g", 0.2, 0.2)}, {"byte_bigram_gain"})
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
  std::vector<Prediction> preds = {P("curate", 0.1, 0.4),     // right, covered
                                   P("uncertain", 0.1, 0.2),  // not clear, not covered
                                   P("random", -0.2, 0.1),    // right (never), covered
                                   P("curate", 0.0, 0.3)};    // wrong, not covered
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
  // Did not pay: c (never caught up), caught (random), and d (-20%), missed (curate).
  EXPECT_EQ(s["non_paying"]["targets"], 2);
  EXPECT_EQ(s["non_paying"]["caught"], 1);
  EXPECT_EQ(s["non_paying"]["missed"], 1);
  EXPECT_EQ(s["non_paying"]["abstained"], 0);
  // Brier: every probability 0.5 (the default): 0.25 whatever happened.
  EXPECT_DOUBLE_EQ(s["brier"].get<double>(), 0.25);
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
  // The two lines of 2026-12-01 (no form, no curve): refused the same way.
  auto lines = Calibration::FromJson(
      {{"signal", "x"},
       {"above", {{"intercept", 0.27}, {"slope", 0.77}, {"residuals", {0.1}}, {"examples", 1}}},
       {"below", {{"intercept", -1}, {"slope", 0}, {"residuals", {0.0}}, {"examples", 1}}}});
  ASSERT_FALSE(lines.ok());
  EXPECT_NE(lines.status().message().find("--calibrate"), std::string::npos);
}

TEST(Calibration, ABadFieldIsNamedByFileAndJsonPath) {
  nlohmann::json j = DefaultCalibration().ToJson();
  j["curve"][1][1] = "high";
  auto bad = Calibration::FromJson(j, "x/calibration.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), Status::Kind::kCorruption);
  EXPECT_NE(bad.status().message().find("x/calibration.json: $.curve[1][1]: expected a number"),
            std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("--calibrate"), std::string::npos);
  j = DefaultCalibration().ToJson();
  j["covered"] = {{"byte_bigram_gain", {0.1}}};
  auto short_range = Calibration::FromJson(j, "c.json");
  ASSERT_FALSE(short_range.ok());
  EXPECT_NE(short_range.status().message().find("$.covered.byte_bigram_gain"), std::string::npos)
      << short_range.status().message();
}

TEST(DefaultCalibration, RecordsItsScaleAndStaysBounded) {
  const Calibration c = DefaultCalibration();
  EXPECT_FALSE(c.scale.model.empty());
  EXPECT_GT(c.scale.steps, 0);
  EXPECT_FALSE(c.residuals.empty());
  EXPECT_FALSE(c.curve.empty());
  for (double x : {-10.0, -0.5, 0.0, 0.5, 10.0}) {
    const Prediction p = c.Predict({x, x, x}, 0.01);
    EXPECT_GE(p.lo, -1);
    EXPECT_LE(p.hi, 1);
    EXPECT_GT(p.probability, 0);
    EXPECT_LT(p.probability, 1);
    if (x <= 0) {
      EXPECT_NE(p.verdict, "curate") << x;
    }
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
    return nlohmann::json{{"kind", "trial"},
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
      forecast("f1", 0.02, "prose"),   forecast("f2", -0.01, "code"),
      trial("f1", "one", 0.25, false), trial("f2", "two", nullptr, true),
      trial("", "none", 0.1, false),   trial("elsewhere", "gone", 0.1, false),
      forecast("f3", 0.05, "prose"),   trial("f3", "one", 0.4, false)};  // "one" rerun
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

TEST(ExamplesFromReceipts, SkipsReceiptsWhoseMembersDoNotReadAndReadsANullRegimeAsUninformative) {
  const nlohmann::json forecast = {
      {"kind", "forecast"},
      {"hash", "f1"},
      {"result", {{"signals", {{"byte_bigram_gain", {{"value", 0.02}}}}}}}};
  auto trial = [](const std::string& name, nlohmann::json seeds, nlohmann::json regime) {
    return nlohmann::json{
        {"kind", "trial"},
        {"config", {{"forecast", "f1"}, {"target_name", name}, {"seeds", seeds}}},
        {"result", {{"compute_saved", {{"net", 0.1}}}, {"caught_up", true}, {"regime", regime}}}};
  };
  // A forecast whose cost is not a number labels nothing: the trial joined to it is dropped.
  nlohmann::json bad_forecast = forecast;
  bad_forecast["hash"] = "f2";
  bad_forecast["result"]["cost"] = {{"fraction_of_trial", "two percent"}};
  nlohmann::json joins_bad = trial("joins_bad", 4, nullptr);
  joins_bad["config"]["forecast"] = "f2";
  auto ex = ExamplesFromReceipts({forecast, bad_forecast, trial("seeds_text", "four", nullptr),
                                  trial("regime_list", 4, nlohmann::json::array()), joins_bad,
                                  trial("kept", 2, nullptr)});
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0].name, "kept");
  EXPECT_EQ(ex[0].seeds, 2);
  EXPECT_EQ(ex[0].scale.informative, 0);  // "regime": null: the check did not run
  EXPECT_EQ(ex[0].net, std::optional<double>(0.1));
}

}  // namespace
}  // namespace preflight::forecast
