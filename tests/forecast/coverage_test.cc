// Confident only where the calibration has seen the like (issue 33, item 4): the ranges a fit
// records, the signals a forecast has outside them, a verdict never clear then, the held-out
// figures that count them; and signals re-measured for a finished trial, joined to its outcome.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "forecast/calibration.h"
#include "forecast/example_set.h"
#include "forecast/held_out.h"

namespace preflight::forecast {
namespace {

Example Ex(const std::string& name, const std::string& group, double x, double auc,
           std::optional<double> net) {
  Example e;
  e.name = name;
  e.group = group;
  e.signals["byte_bigram_gain"] = {x, x - 0.01, x + 0.01};
  e.signals["classifier_auc"] = {auc, auc, auc};
  e.net = net;
  e.forecast_cost = 0.01;
  e.scale = {"tiny", 300, 307200, 1, 0};
  return e;
}

std::vector<Example> Battery() {
  std::vector<Example> ex;
  for (int i = 0; i < 20; ++i) {
    const double x = 0.02 * (i + 1);
    ex.push_back(Ex("t" + std::to_string(i), "g" + std::to_string(i % 4), x, 0.6 + 0.01 * i,
                    x > 0.1 ? std::optional<double>(0.3) : std::nullopt));
  }
  return ex;
}

TEST(Covered, AFitRecordsTheRangeOfEverySignalItsExamplesAllMeasured) {
  std::vector<Example> ex = Battery();
  ex[3].signals["top_cluster_gain"] = {0.5, 0.5, 0.5};  // measured on one example only
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->covered.count("byte_bigram_gain"), 1u);
  EXPECT_DOUBLE_EQ(c->covered.at("byte_bigram_gain").lo, 0.02);
  EXPECT_DOUBLE_EQ(c->covered.at("byte_bigram_gain").hi, 0.02 * 20);
  EXPECT_DOUBLE_EQ(c->covered.at("classifier_auc").lo, 0.6);
  EXPECT_DOUBLE_EQ(c->covered.at("classifier_auc").hi, 0.6 + 0.01 * 19);
  EXPECT_EQ(c->covered.count("top_cluster_gain"), 0u);
  // Saved and read back; a calibration saved before the ranges existed reads with none.
  auto back = Calibration::FromJson(c->ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToJson(), c->ToJson());
  nlohmann::json old = c->ToJson();
  old.erase("covered");
  auto before = Calibration::FromJson(old);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->covered.empty());
}

TEST(Covered, OutsideAnyRangeTheVerdictIsNeverClear) {
  auto c = Fit(Battery(), "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  // Far up the curve, where every neighbour paid: curate, clear.
  std::map<std::string, SignalValue> inside = {{"byte_bigram_gain", {0.39, 0.38, 0.40}},
                                               {"classifier_auc", {0.7, 0.7, 0.7}}};
  auto p = c->PredictFrom(inside, 0.01);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->verdict, "curate");
  EXPECT_EQ(p->strength, "clear");
  EXPECT_TRUE(p->outside.empty());
  // The same gain, but a target a classifier tells apart better than any it was fitted on.
  auto far = inside;
  far["classifier_auc"] = {0.99, 0.99, 0.99};
  p = c->PredictFrom(far, 0.01);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->verdict, "curate");
  EXPECT_EQ(p->strength, "weak");
  ASSERT_EQ(p->outside.size(), 1u);
  EXPECT_EQ(p->outside[0].signal, "classifier_auc");
  EXPECT_DOUBLE_EQ(p->outside[0].value, 0.99);
  EXPECT_DOUBLE_EQ(p->outside[0].covered.hi, 0.6 + 0.01 * 19);
  // A gain above every example's: outside too.
  auto high = inside;
  high["byte_bigram_gain"] = {0.5, 0.49, 0.51};
  EXPECT_EQ(c->Outside(high).size(), 1u);
  // A signal the calibration does not cover, or one the forecast lacks, is not judged.
  auto other = inside;
  other["top_cluster_gain"] = {9, 9, 9};
  other.erase("classifier_auc");
  EXPECT_TRUE(c->Outside(other).empty());
  // Without the calibration's own signal there is nothing to predict from.
  EXPECT_FALSE(c->PredictFrom({{"classifier_auc", {0.7, 0.7, 0.7}}}, 0.01).ok());
}

TEST(Covered, HeldOutTargetsBeyondTheRestAreCountedAndNeverClear) {
  std::vector<Example> ex = Battery();
  // One group of two targets a classifier tells apart as no other.
  ex.push_back(Ex("far1", "far", 0.22, 0.999, 0.3));
  ex.push_back(Ex("far2", "far", 0.24, 0.998, 0.3));
  auto predictions = LeaveOneGroupOut(ex, {"byte_bigram_gain"});
  ASSERT_TRUE(predictions.ok());
  const Prediction& p = (*predictions)[20];
  ASSERT_FALSE(p.outside.empty());
  EXPECT_EQ(p.outside[0].signal, "classifier_auc");
  EXPECT_EQ(p.strength, "weak");
  const nlohmann::json s = SummarizeHeldOut(ex, *predictions);
  EXPECT_GE(s["outside_coverage"]["targets"].get<int>(), 2);
  EXPECT_EQ(s["rows"][20]["outside"], nlohmann::json::array({"classifier_auc"}));
  EXPECT_EQ(s["rows"][20]["strength"], "weak");
}

TEST(ExamplesFromReceipts, SignalsReMeasuredForAFinishedTrialJoinItsOutcome) {
  const nlohmann::json forecast = {
      {"kind", "forecast"},
      {"hash", "f1"},
      {"config", {{"group", "prose"}}},
      {"result",
       {{"signals", {{"byte_bigram_gain", {{"value", 0.02}, {"interval", {0.01, 0.03}}}}}},
        {"cost", {{"fraction_of_trial", 0.004}}}}}};
  const nlohmann::json trial = {
      {"kind", "trial"},
      {"hash", "t1"},
      {"config", {{"forecast", "f1"}, {"target_name", "one"}, {"steps", 300}}},
      {"result", {{"compute_saved", {{"net", 0.25}}}, {"caught_up", true}}}};
  auto again = [](double xfit, double cost) {
    return nlohmann::json{
        {"kind", "forecast"},
        {"hash", "r" + std::to_string(cost)},
        {"config", {{"remeasures", "t1"}, {"group", "ignored"}}},
        {"result",
         {{"signals",
           {{"byte_bigram_gain", {{"value", 0.02}, {"interval", {0.01, 0.03}}}},
            {"xfit_bigram_gain", {{"value", xfit}, {"interval", {xfit - 0.01, xfit + 0.01}}}}}},
          {"cost", {{"fraction_of_trial", cost}}}}}};
  };
  // Without a re-measure: the trial's own signals.
  auto ex = ExamplesFromReceipts({forecast, trial});
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0].signals.count("xfit_bigram_gain"), 0u);
  // With two (the later counts), before or after the trial in the ledger: the signals join, the
  // group stays the trial's forecast's, the cost is the re-measure's.
  ex = ExamplesFromReceipts({forecast, again(0.5, 0.9), trial, again(0.07, 0.02)});
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0].group, "prose");
  EXPECT_EQ(ex[0].net, std::optional<double>(0.25));
  EXPECT_DOUBLE_EQ(ex[0].signals.at("xfit_bigram_gain").value, 0.07);
  EXPECT_DOUBLE_EQ(ex[0].signals.at("byte_bigram_gain").value, 0.02);
  EXPECT_DOUBLE_EQ(ex[0].forecast_cost, 0.02);
  // A re-measure of no trial in the ledger labels nothing.
  EXPECT_TRUE(ExamplesFromReceipts({again(0.5, 0.9)}).empty());
}

TEST(SelectExamples, TrialsLackingASignalMostCarryAreSetAsideAndNamed) {
  std::vector<Example> ex;
  for (int i = 0; i < 4; ++i) ex.push_back(Ex("t" + std::to_string(i), "g", 0.1, 0.7, 0.2));
  // Three of four carry the new signal: the fourth is set aside.
  for (int i = 1; i < 4; ++i) ex[i].signals["xfit_bigram_gain"] = {0.1, 0.05, 0.15};
  ExampleSet set = SelectExamples(ex);
  ASSERT_EQ(set.kept.size(), 3u);
  EXPECT_EQ(set.kept[0].name, "t1");
  EXPECT_EQ(set.set_aside, std::vector<std::string>{"t0"});
  EXPECT_EQ(set.missing, std::vector<std::string>{"xfit_bigram_gain"});
  // One of four carries it: it is passed over, and every trial stays.
  for (int i = 1; i < 3; ++i) ex[i].signals.erase("xfit_bigram_gain");
  set = SelectExamples(ex);
  EXPECT_EQ(set.kept.size(), 4u);
  EXPECT_TRUE(set.set_aside.empty());
  EXPECT_TRUE(set.missing.empty());
}

// The sizes of a case: the pool's (its files summed) and the smaller arm's, from a forecast
// receipt's inputs and arms; a field that is not there leaves its size out.
TEST(CaseSizes, ThePoolsFilesSummedAndTheSmallerArm) {
  const nlohmann::json inputs = {{{"role", "pool"}, {"docs", 10}, {"bytes", 1000}},
                                 {{"role", "pool"}, {"docs", 5}, {"bytes", 300}},
                                 {{"role", "target_select"}, {"docs", 99}, {"bytes", 9999}}};
  const nlohmann::json arms = {{"curated", {{"kept_docs", 3}, {"kept_bytes", 320}}},
                               {"random", {{"kept_docs", 4}, {"kept_bytes", 310}}}};
  const std::map<std::string, double> want = {
      {"pool_docs", 15}, {"pool_bytes", 1300}, {"arm_docs", 3}, {"arm_bytes", 310}};
  EXPECT_EQ(CaseSizes(inputs, arms), want);
  EXPECT_EQ(CaseSizes(inputs, nullptr).size(), 2u);
  EXPECT_TRUE(CaseSizes(nlohmann::json::array({{{"role", "pool"}, {"docs", 1}}}), nullptr).empty());
}

// A fit records the range of sizes its cases had; a pool (or arm) far smaller in both documents
// and bytes (below kFarSmaller times the smallest) is named, and one smaller in only one of them,
// as large as that, or larger than any, is not.
TEST(SizesSeen, ACaseFarSmallerThanAnyTheCalibrationSawIsNamed) {
  std::vector<Example> ex = Battery();
  for (size_t i = 0; i < ex.size(); ++i) {
    const double k = static_cast<double>(i + 1);
    ex[i].sizes = {{"pool_docs", 200 * k},
                   {"pool_bytes", 2e6 * k},
                   {"arm_docs", 50 * k},
                   {"arm_bytes", 5e5 * k}};
  }
  auto c = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->sizes_seen.size(), 4u);
  EXPECT_DOUBLE_EQ(c->sizes_seen.at("pool_docs").lo, 200);
  EXPECT_DOUBLE_EQ(c->sizes_seen.at("pool_docs").hi, 4000);
  auto back = Calibration::FromJson(c->ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToJson(), c->ToJson());
  EXPECT_TRUE(
      c->FarSmaller({{"pool_docs", 20}, {"pool_bytes", 2e5}, {"arm_docs", 5}, {"arm_bytes", 5e4}})
          .empty());  // a tenth of the smallest: not far smaller
  EXPECT_TRUE(c->FarSmaller({{"pool_docs", 1e6}, {"arm_docs", 1e5}}).empty());
  EXPECT_TRUE(
      c->FarSmaller({{"pool_docs", 3}, {"pool_bytes", 3e6}, {"arm_docs", 1}, {"arm_bytes", 8e5}})
          .empty());  // a few long documents
  const auto tiny =
      c->FarSmaller({{"pool_docs", 3}, {"pool_bytes", 2000}, {"arm_docs", 1}, {"arm_bytes", 700}});
  ASSERT_EQ(tiny.size(), 4u);
  EXPECT_EQ(tiny[0].signal, "pool_docs");  // in SizeNames()'s order
  EXPECT_DOUBLE_EQ(tiny[0].covered.lo, 200);
  EXPECT_EQ(tiny[3].signal, "arm_bytes");
  EXPECT_DOUBLE_EQ(tiny[3].covered.lo, 5e5);
  // Arms far smaller in a pool that is not: the arms are named.
  const auto arms =
      c->FarSmaller({{"pool_docs", 300}, {"pool_bytes", 3e6}, {"arm_docs", 2}, {"arm_bytes", 900}});
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].signal, "arm_docs");
  // One example without sizes: nothing is recorded, so nothing is judged too small.
  ex[0].sizes.clear();
  auto unsized = Fit(ex, "byte_bigram_gain", "test");
  ASSERT_TRUE(unsized.ok());
  EXPECT_TRUE(unsized->sizes_seen.empty());
  EXPECT_TRUE(unsized->FarSmaller({{"pool_docs", 3}}).empty());
}

// The default calibration speaks to the demo's pools (data/brown/pools/cj.jsonl: 460 documents,
// 5.5 MB of text; arms of a quarter of its bytes) and to the tests' planted pools
// (testing/planted.h: 60 documents of about 1.2 kB), not to a pool of three documents.
TEST(SizesSeen, TheDefaultCalibrationSeesTheDemosPoolsButNotThreeDocuments) {
  const Calibration& d = DefaultCalibration();
  ASSERT_EQ(d.sizes_seen.size(), 4u);
  EXPECT_TRUE(
      d.FarSmaller(
           {{"pool_docs", 460}, {"pool_bytes", 5.48e6}, {"arm_docs", 110}, {"arm_bytes", 1.37e6}})
          .empty());
  EXPECT_TRUE(
      d.FarSmaller(
           {{"pool_docs", 60}, {"pool_bytes", 7.2e4}, {"arm_docs", 15}, {"arm_bytes", 1.8e4}})
          .empty());
  EXPECT_EQ(
      d.FarSmaller({{"pool_docs", 3}, {"pool_bytes", 3000}, {"arm_docs", 1}, {"arm_bytes", 1000}})
          .size(),
      4u);
}

}  // namespace
}  // namespace preflight::forecast
