// The distributed budget cut (cut.h) takes exactly what TakeByBudget takes: checked here in one
// process (the MPI tests in tests/mpi check it across ranks) on keys with many ties, documents of
// zero bytes and budgets from nothing to everything.

#include "select/cut.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "select/gumbel.h"

namespace preflight::select {
namespace {

uint64_t Next(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<uint64_t> Taken(const std::vector<Candidate>& c, const std::vector<uint8_t>& flags) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < c.size(); ++i)
    if (flags[i]) out.push_back(c[i].index);
  return out;
}

TEST(KeyCode, PreservesTheOrderOfDoubles) {
  const double keys[] = {-std::numeric_limits<double>::infinity(),
                         -1e300,
                         -2.5,
                         -1e-300,
                         0.0,
                         1e-300,
                         0.25,
                         3.0,
                         1e300,
                         std::numeric_limits<double>::infinity()};
  for (size_t i = 0; i + 1 < std::size(keys); ++i)
    EXPECT_LT(KeyCode(keys[i]), KeyCode(keys[i + 1])) << keys[i] << " vs " << keys[i + 1];
  EXPECT_EQ(KeyCode(-0.0), KeyCode(0.0));  // Equal as doubles, so a tie broken by index.
}

TEST(CutByBudget, TakesWhatTakeByBudgetTakes) {
  SelectionGroup alone;
  uint64_t s = 3;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(Next(s) % 300);
    const int distinct = 1 + static_cast<int>(Next(s) % 8);  // Few distinct keys: many ties.
    std::vector<Candidate> c;
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) {
      double key = trial % 2 ? static_cast<double>(Next(s) % distinct) - 3.0
                             : GumbelFor(trial, static_cast<uint64_t>(i));
      if (key == 0 && Next(s) % 2) key = -0.0;
      uint64_t bytes = Next(s) % 5 == 0 ? 0 : Next(s) % 1000;
      c.push_back({static_cast<uint64_t>(i) * 3 + 1, key, bytes});
      total += bytes;
    }
    for (uint64_t budget : {uint64_t{0}, uint64_t{1}, total / 3, total / 2, total - 1, total}) {
      if (budget > total) continue;
      std::vector<uint64_t> want = TakeByBudget(c, budget);
      for (CutMethod method : {CutMethod::kRadix, CutMethod::kGather}) {
        auto flags = CutByBudget(alone, c, budget, method);
        ASSERT_TRUE(flags.ok()) << flags.status().message();
        EXPECT_EQ(Taken(c, *flags), want)
            << "trial " << trial << " budget " << budget << " of " << total
            << (method == CutMethod::kRadix ? " radix" : " gather");
      }
    }
  }
}

TEST(CutByBudget, NamesAnUnknownMethod) {
  auto m = ParseCutMethod("sort");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("--mpi-cut"), std::string::npos);
}

}  // namespace
}  // namespace preflight::select
