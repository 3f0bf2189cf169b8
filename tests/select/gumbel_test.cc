#include "select/gumbel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace preflight::select {
namespace {

TEST(Gumbel, UniformIsInOpenIntervalAndDeterministic) {
  for (uint64_t i = 0; i < 10000; ++i) {
    double u = UniformFor(7, i);
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_EQ(u, UniformFor(7, i));
  }
  EXPECT_NE(UniformFor(7, 0), UniformFor(8, 0));
}

// The first pick of Gumbel top-k is a draw with probability w_i / sum(w). Over many seeds the
// counts must match the weights: chi-square with 4 degrees of freedom, 20,000 draws, fixed seeds.
// The 0.999 quantile of chi2(4) is 18.47; the test fails on a biased sampler, not on bad luck.
TEST(Gumbel, FirstPickIsProportionalToWeights) {
  const std::vector<double> w = {1, 2, 3, 4, 10};
  double total = 0;
  for (double x : w) total += x;
  std::vector<int> hits(w.size(), 0);
  const int draws = 20000;
  for (int s = 0; s < draws; ++s) {
    std::vector<Candidate> c;
    for (size_t i = 0; i < w.size(); ++i) c.push_back({i, std::log(w[i]) + GumbelFor(s, i), 1});
    auto taken = TakeByBudget(c, 1);
    ASSERT_EQ(taken.size(), 1u);
    ++hits[taken[0]];
  }
  double chi2 = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    double expected = draws * w[i] / total;
    chi2 += (hits[i] - expected) * (hits[i] - expected) / expected;
  }
  EXPECT_LT(chi2, 18.47) << "hits: " << hits[0] << " " << hits[1] << " " << hits[2] << " "
                         << hits[3] << " " << hits[4];
}

TEST(Gumbel, BudgetIsMetWithinOneDocument) {
  std::vector<Candidate> c;
  uint64_t sizes[] = {50, 70, 30, 90, 10, 40};
  for (uint64_t i = 0; i < 6; ++i) c.push_back({i, -static_cast<double>(i), sizes[i]});
  auto taken = TakeByBudget(c, 100);  // 50 + 70 crosses 100: stop after the crossing document.
  EXPECT_EQ(taken, (std::vector<uint64_t>{0, 1}));
  auto all = TakeByBudget(c, 10000);
  EXPECT_EQ(all.size(), 6u);
  auto exact = TakeByBudget(c, 120);
  EXPECT_EQ(exact, (std::vector<uint64_t>{0, 1}));
}

TEST(Gumbel, TiesGoToTheLowerIndexAndOutputIsInFileOrder) {
  std::vector<Candidate> c = {{5, 1.0, 1}, {2, 1.0, 1}, {9, 2.0, 1}};
  EXPECT_EQ(TakeByBudget(c, 2), (std::vector<uint64_t>{2, 9}));
}

}  // namespace
}  // namespace preflight::select
