#include "trial/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/number_format.h"
#include "trial/result_json.h"
#include "trial/trial_inputs.h"

namespace preflight::trial {
namespace {

using testing::C;
using testing::FourSeeds;
using testing::kSteps;
using testing::MakeArm;
using testing::TwoArms;

TEST(CatchUpStep, CrossingBetweenEvalPointsIsInterpolated) {
  // Above L* = 2.0 at step 200 (2.5), below at 300 (1.5): halfway -> 250 exactly.
  EXPECT_EQ(CatchUpStep(C(kSteps, {8, 3.5, 2.5, 1.5, 1.2}), 2.0), 250.0);
  // 2.5 -> 1.8: the line crosses 2.0 at 200 + 100 * 0.5 / 0.7.
  EXPECT_DOUBLE_EQ(CatchUpStep(C(kSteps, {8, 3.5, 2.5, 1.8, 1.2}), 2.0), 200.0 + 100.0 * 0.5 / 0.7);
  // Uneven spacing: 2.5 at 200, 1.5 at 600 -> 400.
  EXPECT_EQ(CatchUpStep(C({0, 200, 600}, {8, 2.5, 1.5}), 2.0), 400.0);
}

TEST(CatchUpStep, NeverReachingIsNever) {
  double t = CatchUpStep(C(kSteps, {8, 4, 3, 2.1, 2.01}), 2.0);
  EXPECT_TRUE(std::isinf(t));
  EXPECT_GT(t, 0);
}

TEST(CatchUpStep, TiesAndFirstEvalPoint) {
  // Exactly equal to L* at an eval point counts as reached, with no interpolation.
  EXPECT_EQ(CatchUpStep(C(kSteps, {8, 3, 2.0, 1.0, 0.5}), 2.0), 200.0);
  // Already at or below L* at the first eval point: that step (nothing earlier to interpolate).
  EXPECT_EQ(CatchUpStep(C({100, 200}, {1.9, 1.0}), 2.0), 100.0);
  EXPECT_EQ(CatchUpStep(C(kSteps, {2.0, 3, 3, 3, 3}), 2.0), 0.0);
  // Later rises above L* do not matter: the first crossing counts.
  EXPECT_EQ(CatchUpStep(C(kSteps, {8, 1.0, 3, 3, 3}), 2.0), 100.0 * 6.0 / 7.0);
}

TEST(FindTarget, MinimumNotAtTheEndAndTiesGoFirst) {
  Target t = FindTarget(C(kSteps, {8, 3, 2.0, 2.0, 2.5}));
  EXPECT_EQ(t.l_star, 2.0);
  EXPECT_EQ(t.t_baseline, 200);
}

TEST(ComputeSaving, GrossAndNetByTheFormula) {
  Curve random = C(kSteps, {8, 4, 3, 2.5, 2.0});       // L* = 2.0 at t_R = 400
  Curve curated = C(kSteps, {8, 3.5, 2.5, 1.5, 1.2});  // t_C = 250
  Saving s = ComputeSaving(random, curated, /*f=*/2.0, /*c_arm=*/100, /*c_baseline=*/0);
  EXPECT_TRUE(s.caught_up);
  EXPECT_EQ(s.l_star, 2.0);
  EXPECT_EQ(s.t_baseline, 400);
  EXPECT_EQ(s.t_arm, 250);
  EXPECT_DOUBLE_EQ(s.gross, 1 - 250.0 / 400.0);                      // 0.375
  EXPECT_DOUBLE_EQ(s.net, 1 - (250.0 * 2 + 100) / (400.0 * 2 + 0));  // 0.25
}

TEST(ComputeSaving, RandomMinimumNotAtTheEnd) {
  Curve random = C(kSteps, {8, 4, 2.2, 2.0, 2.3});     // L* = 2.0 at t_R = 300
  Curve curated = C(kSteps, {8, 3.0, 1.0, 2.6, 2.7});  // crosses 2.0 halfway: 150
  Saving s = ComputeSaving(random, curated, 1, 0, 0);
  EXPECT_EQ(s.t_baseline, 300);
  EXPECT_EQ(s.t_arm, 150);
  EXPECT_DOUBLE_EQ(s.gross, 0.5);
}

TEST(ComputeSaving, IdenticalCurvesSaveNothingAndCuratedAtStepZeroSavesAll) {
  Curve random = C(kSteps, {8, 4, 3, 2.5, 2.0});
  Saving same = ComputeSaving(random, random, 1, 0, 0);
  EXPECT_EQ(same.t_arm, 400);
  EXPECT_EQ(same.gross, 0.0);
  Saving at_zero = ComputeSaving(random, C(kSteps, {2.0, 1, 1, 1, 1}), 3.0, 60, 0);
  EXPECT_EQ(at_zero.t_arm, 0);
  EXPECT_EQ(at_zero.gross, 1.0);
  EXPECT_DOUBLE_EQ(at_zero.net, 1 - 60.0 / (400 * 3.0));  // only the selection is paid
}

TEST(ComputeSaving, NeverCaughtUpIsMinusInfinity) {
  Saving s = ComputeSaving(C(kSteps, {8, 4, 3, 2.5, 2.0}), C(kSteps, {8, 5, 4, 3, 2.5}), 1, 0, 0);
  EXPECT_FALSE(s.caught_up);
  EXPECT_TRUE(std::isinf(s.t_arm));
  EXPECT_TRUE(std::isinf(s.gross) && s.gross < 0);
  EXPECT_TRUE(std::isinf(s.net) && s.net < 0);
  nlohmann::json j = SavingToJson(s);
  EXPECT_TRUE(j["gross"].is_null());
  EXPECT_TRUE(j["t_arm"].is_null());
  EXPECT_EQ(j["caught_up"], false);
}

TEST(ComputeSaving, LargerSelectionCostGivesSmallerNetExactly) {
  Curve random = C(kSteps, {8, 4, 3, 2.5, 2.0});
  Curve curated = C(kSteps, {8, 3.5, 2.5, 1.5, 1.2});
  const double f = 0.5, c_random = 10;
  for (double c : {0.0, 25.0, 80.0, 500.0}) {
    Saving s = ComputeSaving(random, curated, f, c, c_random);
    EXPECT_DOUBLE_EQ(s.gross, 0.375) << "gross ignores cost";
    EXPECT_DOUBLE_EQ(s.net, 1 - (250 * f + c) / (400 * f + c_random)) << c;
  }
  Saving cheap = ComputeSaving(random, curated, f, 25, c_random);
  Saving dear = ComputeSaving(random, curated, f, 80, c_random);
  EXPECT_LT(dear.net, cheap.net);
  EXPECT_DOUBLE_EQ(cheap.net - dear.net, 55.0 / (400 * f + c_random));
  // Expensive enough, the net saving turns negative while the gross stays 37.5%.
  EXPECT_LT(ComputeSaving(random, curated, f, 500, c_random).net, 0);
}

TEST(MeanCurve, AveragesPointwiseAndRejectsDifferentSchedules) {
  auto mean = MeanCurve({C({0, 10}, {4, 2}), C({0, 10}, {6, 3})});
  ASSERT_TRUE(mean.ok());
  EXPECT_EQ(mean->steps, (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(mean->bpb, (std::vector<double>{5, 2.5}));
  auto bad = MeanCurve({C({0, 10}, {4, 2}), C({0, 20}, {6, 3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), Status::Kind::kInvalidArgument);
  EXPECT_FALSE(MeanCurve({C({0, 10}, {4, NAN})}).ok());
  EXPECT_FALSE(MeanCurve({C({10, 10}, {4, 3})}).ok());
  EXPECT_FALSE(MeanCurve({C({0, 10}, {4})}).ok());
}

// Four seeds per arm with some spread; curated clearly ahead.

TEST(ComputeTrial, PointEstimatePerSeedAndBootstrap) {
  TrialInputs in = FourSeeds();
  auto r = ComputeTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->comparisons.size(), 1u);
  const Comparison& c = r->comparisons[0];
  EXPECT_EQ(c.arm, "curated");
  EXPECT_EQ(c.baseline, "random");
  // The headline uses the mean curves.
  Curve rm = MeanCurve(in.arms[0].curves).value(), cm = MeanCurve(in.arms[1].curves).value();
  Saving expect = ComputeSaving(rm, cm, 0.5, 30, 2);
  EXPECT_EQ(c.saving.t_arm, expect.t_arm);
  EXPECT_EQ(c.saving.net, expect.net);
  EXPECT_EQ(c.flops_to_baseline, 400 * 1e9);
  EXPECT_EQ(c.flops_to_arm, expect.t_arm * 1e9);
  // Per seed pair: seed s of curated against seed s of random, same definitions.
  ASSERT_EQ(c.per_seed.size(), 4u);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(c.per_seed[s].seed, static_cast<uint64_t>(s + 1));
    Saving p = ComputeSaving(in.arms[0].curves[s], in.arms[1].curves[s], 0.5, 30, 2);
    EXPECT_EQ(c.per_seed[s].saving.gross, p.gross);
    EXPECT_EQ(c.per_seed[s].saving.net, p.net);
  }
  // Seed 2: random reaches 2.05 at 400; curated 2.62 at 200 -> 2.10 at 300 -> 1.7 at 400.
  EXPECT_DOUBLE_EQ(c.per_seed[1].saving.t_arm, 300 + 100 * (2.10 - 2.05) / (2.10 - 1.7));
  // The bootstrap interval contains the point estimate and is reproducible.
  EXPECT_EQ(c.ci.resamples, 2000);
  EXPECT_LE(c.ci.gross.lo, c.saving.gross);
  EXPECT_GE(c.ci.gross.hi, c.saving.gross);
  EXPECT_LE(c.ci.net.lo, c.saving.net);
  EXPECT_GE(c.ci.net.hi, c.saving.net);
  EXPECT_LT(c.ci.gross.lo, c.ci.gross.hi);
  auto again = ComputeTrial(in);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->comparisons[0].ci.gross.lo, c.ci.gross.lo);
  EXPECT_EQ(again->comparisons[0].ci.gross.hi, c.ci.gross.hi);
  EXPECT_EQ(again->comparisons[0].ci.net.lo, c.ci.net.lo);
  EXPECT_EQ(again->comparisons[0].ci.net.hi, c.ci.net.hi);
  EXPECT_EQ(TrialResultToJson(*again).dump(), TrialResultToJson(*r).dump());
  // Paired resampling is also deterministic and contains the point.
  in.bootstrap.paired = true;
  auto paired = ComputeTrial(in);
  ASSERT_TRUE(paired.ok()) << paired.status().message();
  EXPECT_LE(paired->comparisons[0].ci.gross.lo, c.saving.gross);
  EXPECT_GE(paired->comparisons[0].ci.gross.hi, c.saving.gross);
}

TEST(BootstrapSaving, OneSeedPerArmGivesTheDegenerateInterval) {
  Curve random = C(kSteps, {8, 4, 3, 2.5, 2.0});
  Curve curated = C(kSteps, {8, 3.5, 2.5, 1.5, 1.2});
  auto b = BootstrapSaving({random}, {curated}, {1}, {1}, "curated", 1, 0, 0, {});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->gross.lo, 0.375);
  EXPECT_EQ(b->gross.hi, 0.375);
}

TEST(BootstrapSaving, NeverCaughtUpResamplesSortBelowEverything) {
  Curve random = C(kSteps, {8, 4, 3, 2.5, 2.0});
  // Seed 4 never gets near L*: any resample with two or more copies of it stays above.
  std::vector<Curve> curated = {
      C(kSteps, {8, 3.5, 2.5, 1.5, 1.4}), C(kSteps, {8, 3.5, 2.5, 1.6, 1.5}),
      C(kSteps, {8, 3.5, 2.5, 1.7, 1.6}), C(kSteps, {8, 6.0, 5.0, 4.0, 3.5})};
  auto b = BootstrapSaving({random}, curated, {1}, {1, 2, 3, 4}, "curated", 1, 0, 0, {});
  ASSERT_TRUE(b.ok());
  EXPECT_GT(b->never_caught_up, 0);
  EXPECT_LT(b->never_caught_up, 2000);
  // Nearest rank: the lower end is the 50th smallest of 2000, so it is -inf exactly when at
  // least 50 resamples never caught up.
  EXPECT_EQ(std::isinf(b->gross.lo), b->never_caught_up >= 50);
  EXPECT_TRUE(std::isfinite(b->gross.hi));
}

// A launched trainer's net in dollars: f's seconds and the arms' core-seconds each at their own
// price is the net of f x p_f and costs x p_c, bit for bit, and unit prices leave the net as it
// was (the builtin's).
TEST(ComputeTrial, NetPricesPriceTheStepAndTheArmsApart) {
  TrialInputs in = FourSeeds();
  in.arms[1].cost_core_seconds = 40;
  auto plain = ComputeTrial(in);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  in.prices = {3.5 / 3600, 0.0425 / 3600, "USD"};
  auto priced = ComputeTrial(in);
  ASSERT_TRUE(priced.ok()) << priced.status().message();
  TrialInputs by_hand = in;
  by_hand.prices = {};
  by_hand.core_seconds_per_step = in.core_seconds_per_step * (3.5 / 3600);
  for (Arm& arm : by_hand.arms) arm.cost_core_seconds *= 0.0425 / 3600;
  auto hand = ComputeTrial(by_hand);
  ASSERT_TRUE(hand.ok());
  const Comparison& p = priced->comparisons[0];
  const Comparison& h = hand->comparisons[0];
  EXPECT_EQ(p.saving.net, h.saving.net);
  EXPECT_EQ(p.ci.net.lo, h.ci.net.lo);
  EXPECT_EQ(p.ci.net.hi, h.ci.net.hi);
  for (size_t i = 0; i < p.per_seed.size(); ++i) {
    EXPECT_EQ(p.per_seed[i].saving.net, h.per_seed[i].saving.net);
  }
  EXPECT_EQ(p.saving.gross, plain->comparisons[0].saving.gross);
  EXPECT_GT(p.saving.net, plain->comparisons[0].saving.net);  // a core-second is cheap here
  // The result keeps the seconds and the prices; the JSON adds the arms' costs in dollars.
  EXPECT_EQ(priced->core_seconds_per_step, in.core_seconds_per_step);
  EXPECT_EQ(p.arm_cost_core_seconds, 40);
  const nlohmann::json j = TrialResultToJson(*priced);
  EXPECT_EQ(j["comparisons"][0]["cost"]["arm_usd"], 40 * (0.0425 / 3600));
  EXPECT_FALSE(TrialResultToJson(*plain)["comparisons"][0]["cost"].contains("arm_usd"));
  in.prices.core_second = 0;
  EXPECT_FALSE(ComputeTrial(in).ok());  // a price must be > 0
}

TEST(ComputeTrial, BaselineSeedBestAtStepZeroIsUndefinedNotAnError) {
  // The mean of the baseline improves (best at 400), but seed 2 alone is best at step 0.
  TrialInputs in = TwoArms({C(kSteps, {8, 4, 3, 2.5, 2.0}), C(kSteps, {1.0, 4, 3, 3, 3})},
                           {C(kSteps, {8, 3, 2, 1.5, 1.2}), C(kSteps, {8, 3, 2, 1.5, 1.2})});
  auto r = ComputeTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Comparison& c = r->comparisons[0];
  ASSERT_EQ(c.per_seed.size(), 2u);
  EXPECT_TRUE(std::isfinite(c.per_seed[0].saving.gross));
  EXPECT_TRUE(std::isnan(c.per_seed[1].saving.gross));
  EXPECT_TRUE(SavingToJson(c.per_seed[1].saving)["gross"].is_null());
  // Resamples that drew seed 2 twice for the baseline are undefined and left out.
  EXPECT_GT(c.ci.undefined, 0);
  EXPECT_LT(c.ci.undefined, 2000);
  EXPECT_TRUE(std::isfinite(c.ci.gross.lo));
}

TEST(ComputeTrial, ThreeArmsAgainstOneBaseline) {
  TrialInputs in = TwoArms({C(kSteps, {8, 4, 3, 2.5, 2.0})}, {C(kSteps, {8, 3.5, 2.5, 1.5, 1.2})});
  in.arms.push_back(MakeArm("first", {C(kSteps, {8, 5, 4, 3, 2.5})}));
  auto r = ComputeTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->comparisons.size(), 2u);
  EXPECT_EQ(r->comparisons[0].arm, "curated");
  EXPECT_TRUE(r->comparisons[0].saving.caught_up);
  EXPECT_EQ(r->comparisons[1].arm, "first");
  EXPECT_FALSE(r->comparisons[1].saving.caught_up);
  nlohmann::json j = TrialResultToJson(*r);
  EXPECT_EQ(j["comparisons"].size(), 2u);
  EXPECT_EQ(j["t_curated"], 250.0);
  EXPECT_EQ(j["t_random"], 400.0);
  EXPECT_EQ(j["compute_saved"]["gross"], 0.375);
  EXPECT_EQ(j["comparisons"][1]["caught_up"], false);
  EXPECT_TRUE(j["comparisons"][1]["compute_saved"]["ci95"][0].is_null());
}

TEST(ComputeTrial, BudgetTruncatesTheCurves) {
  TrialInputs in = TwoArms({C(kSteps, {8, 4, 3, 2.5, 2.0})}, {C(kSteps, {8, 3.5, 2.8, 2.6, 1.2})});
  // Within S = 300, L* = 2.5 at step 300 and the curated arm is still at 2.6: it catches up
  // only at step 400, beyond the budget, which does not count.
  in.budget_steps = 300;
  auto r = ComputeTrial(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->comparisons[0].saving.l_star, 2.5);
  EXPECT_EQ(r->comparisons[0].saving.t_baseline, 300);
  EXPECT_FALSE(r->comparisons[0].saving.caught_up);
  EXPECT_EQ(r->mean_curves[1].steps.back(), 300);
  in.budget_steps = 0;  // the whole curve: L* = 2.0 at 400, curated crosses it between 300 and 400
  EXPECT_DOUBLE_EQ(ComputeTrial(in)->comparisons[0].saving.t_arm, 300 + 100 * 0.6 / 1.4);
  in.budget_steps = 500;
  EXPECT_FALSE(ComputeTrial(in).ok());
}

TEST(ComputeTrial, RefusesMalformedTrials) {
  // The baseline never improves on step 0.
  auto flat = ComputeTrial(TwoArms({C(kSteps, {2, 3, 3, 3, 3})}, {C(kSteps, {2, 1, 1, 1, 1})}));
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.status().message().find("step 0"), std::string::npos);
  // Different eval schedules.
  EXPECT_FALSE(ComputeTrial(TwoArms({C(kSteps, {8, 4, 3, 2.5, 2})}, {C({0, 50}, {8, 1})})).ok());
  // No measured step cost.
  EXPECT_FALSE(
      ComputeTrial(TwoArms({C(kSteps, {8, 4, 3, 2.5, 2})}, {C(kSteps, {8, 4, 3, 2, 1})}, 0)).ok());
  // One arm only.
  TrialInputs one = TwoArms({C(kSteps, {8, 4, 3, 2.5, 2})}, {C(kSteps, {8, 4, 3, 2, 1})});
  one.arms.pop_back();
  EXPECT_FALSE(ComputeTrial(one).ok());
}

TEST(CheckComputeMatched, RefusesArmsThatDifferAndNamesTheRuns) {
  std::vector<RunCompute> runs = {{"random/seed-1", 1.5e9, 2000, 4096},
                                  {"curated/seed-1", 1.5e9, 2000, 4096}};
  EXPECT_TRUE(CheckComputeMatched(runs).ok());
  runs.push_back({"curated/seed-2", 1.6e9, 2000, 4096});
  Status st = CheckComputeMatched(runs);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(st.message().find("curated/seed-2"), std::string::npos);
  EXPECT_NE(st.message().find("random/seed-1"), std::string::npos);
  runs.back() = {"curated/seed-2", 1.5e9, 1999, 4096};
  EXPECT_NE(CheckComputeMatched(runs).message().find("1999 steps"), std::string::npos);
  runs.back() = {"curated/seed-2", 1.5e9, 2000, 2048};
  EXPECT_NE(CheckComputeMatched(runs).message().find("2048 tokens/step"), std::string::npos);
  EXPECT_FALSE(CheckComputeMatched({}).ok());
}

TEST(Format, NumbersForPeople) {
  EXPECT_EQ(FormatPercent(0.375), "37.5%");
  EXPECT_EQ(FormatPercent(-0.12345), "-12.3%");
  EXPECT_EQ(FormatPercent(-kNever), "never caught up");
  EXPECT_EQ(FormatSteps(1234), "1,234");
  EXPECT_EQ(FormatSteps(1234.56), "1,234.6");
  EXPECT_EQ(FormatSteps(999.96), "1,000.0");
  EXPECT_EQ(FormatSteps(kNever), "never");
  EXPECT_EQ(FormatFlops(1.23e12), "1.23 TFLOP");
  EXPECT_EQ(FormatFlops(5e8), "500 MFLOP");
}

}  // namespace
}  // namespace preflight::trial
