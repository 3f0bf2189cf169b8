#include "cost/law_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "base/file.h"

namespace preflight::cost {
namespace {

std::string Scratch(const std::string& name, const std::string& text) {
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/cost";
  EXPECT_TRUE(MakeDirectories(dir).ok());
  std::string path = dir + "/" + name;
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

// Runs from a known law on a grid of sizes and tokens per parameter, with multiplicative
// log-normal noise of `noise` (0 for exact values).
std::vector<FitPoint> Synthetic(const LossLaw& law, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0, 1);
  std::vector<FitPoint> points;
  for (double n : {7e7, 1.5e8, 3e8, 6e8, 1.2e9, 2.5e9, 5e9, 1e10}) {
    for (double tpp : {5, 10, 20, 40, 80}) {
      double d = n * tpp;
      points.push_back({n, d, law.Loss(n, d) * std::exp(noise * gauss(rng)), "synthetic"});
    }
  }
  return points;
}

TEST(FitLossLaw, RecoversTheEpochConstantsFromExactRuns) {
  LossLaw truth = EpochFit();
  FitOptions options;
  options.bootstrap = 0;
  auto fit = FitLossLaw(Synthetic(truth, 0, 1), options);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_NEAR(fit->law.E / truth.E, 1, 1e-3);
  EXPECT_NEAR(fit->law.A / truth.A, 1, 2e-2);
  EXPECT_NEAR(fit->law.B / truth.B, 1, 2e-2);
  EXPECT_NEAR(fit->law.alpha, truth.alpha, 2e-3);
  EXPECT_NEAR(fit->law.beta, truth.beta, 2e-3);
  EXPECT_LT(fit->rms_log_error, 1e-4);
  EXPECT_EQ(fit->starts, 4500);
}

TEST(FitLossLaw, BootstrapIntervalsCoverTheTruthAndAreReproducible) {
  LossLaw truth = EpochFit();
  std::vector<FitPoint> runs = Synthetic(truth, 0.005, 7);
  FitOptions options;
  options.bootstrap = 30;
  options.seed = 11;
  auto a = FitLossLaw(runs, options);
  auto b = FitLossLaw(runs, options);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->E.low, b->E.low);  // same seed, same resamples, same answer
  EXPECT_EQ(a->alpha.high, b->alpha.high);
  EXPECT_LE(a->E.low, a->law.E);
  EXPECT_GE(a->E.high, a->law.E);
  EXPECT_LT(a->E.low, a->E.high);
  // The fitted exponents are close to the truth; the intervals are not degenerate.
  EXPECT_NEAR(a->law.alpha, truth.alpha, 0.06);
  EXPECT_NEAR(a->law.beta, truth.beta, 0.06);
  EXPECT_LT(a->beta.low, a->beta.high);
}

TEST(FitLossLaw, FewerRunsThanConstantsIsRefused) {
  std::vector<FitPoint> runs = Synthetic(EpochFit(), 0, 1);
  runs.resize(4);
  auto fit = FitLossLaw(runs, {});
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.status().ExitCode(), 2);
  EXPECT_NE(fit.status().message().find("at least 5"), std::string::npos);
}

TEST(ReadFitCsv, HeaderInAnyOrderCommentsAndBlankLines) {
  std::string path =
      Scratch("runs_header.csv", "# my runs\nloss,tokens,params\n\n3.1,1e9,1e8\n2.9, 2e9 ,1e8\n");
  auto points = ReadFitCsv(path);
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[1].params, 1e8);
  EXPECT_EQ((*points)[1].tokens, 2e9);
  EXPECT_EQ((*points)[1].loss, 2.9);
}

TEST(ReadFitCsv, NoHeaderMeansNDLoss) {
  auto points = ReadFitCsv(Scratch("runs_plain.csv", "1e8,2e9,3.0\n"));
  ASSERT_TRUE(points.ok());
  EXPECT_EQ((*points)[0].params, 1e8);
  EXPECT_EQ((*points)[0].loss, 3.0);
}

TEST(ReadFitCsv, NanNamesTheLine) {
  std::string path = Scratch("runs_nan.csv", "N,D,loss\n1e8,2e9,3.0\n1e8,4e9,nan\n");
  auto points = ReadFitCsv(path);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().ExitCode(), 2);
  EXPECT_NE(points.status().message().find(path + ":3"), std::string::npos)
      << points.status().message();
  EXPECT_NE(points.status().message().find("NaN"), std::string::npos);
}

TEST(ReadFitCsv, BadValuesAreRefused) {
  EXPECT_FALSE(ReadFitCsv(Scratch("runs_neg.csv", "1e8,-2e9,3.0\n")).ok());
  EXPECT_FALSE(ReadFitCsv(Scratch("runs_text.csv", "1e8,lots,3.0\n")).ok());
  EXPECT_FALSE(ReadFitCsv(Scratch("runs_short.csv", "1e8,2e9\n")).ok());
  EXPECT_FALSE(ReadFitCsv(Scratch("runs_badhdr.csv", "size,data,loss\n1,2,3\n")).ok());
  EXPECT_EQ(ReadFitCsv("/nonexistent/runs.csv").status().ExitCode(), 2);
}

TEST(ReadFitLedger, TakesRunsFromTrialAndTrainReceiptsOnly) {
  std::string path = Scratch(
      "ledger.jsonl",
      R"({"kind":"selection","result":{"params":1,"tokens":1,"loss":1}})"
      "\n"
      R"({"kind":"trial","result":{"runs":[{"params":1e6,"tokens":2e7,"loss":2.5},)"
      R"({"model":{"params":2e6},"tokens":4e7,"final_eval_bpb":2.2},{"params":3e6}]}})"
      "\n"
      R"({"kind":"train","result":{"model":{"params":5e6},"tokens":1e8,"final_eval_bpb":1.9}})"
      "\n");
  LedgerScan scan;
  auto points = ReadFitLedger(path, &scan);
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[1].params, 2e6);
  EXPECT_EQ((*points)[1].loss, 2.2);
  EXPECT_EQ((*points)[2].tokens, 1e8);
  EXPECT_EQ(scan.lines, 3);
  EXPECT_EQ(scan.receipts_used, 2);
  EXPECT_EQ(scan.objects_skipped, 1);  // the run without tokens and loss
}

TEST(ReadFitLedger, ABrokenLineIsCorruptionNamingIt) {
  std::string path = Scratch("ledger_bad.jsonl", "{\"kind\":\"trial\"}\n{not json\n");
  auto points = ReadFitLedger(path, nullptr);
  ASSERT_FALSE(points.ok());
  EXPECT_NE(points.status().message().find(path + ":2"), std::string::npos);
}

}  // namespace
}  // namespace preflight::cost
