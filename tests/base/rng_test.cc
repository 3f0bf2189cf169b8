#include "base/rng.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(SplitMix64, KnownAnswers) {
  // Reference outputs of splitmix64 seeded with 0 (Vigna's splitmix64.c).
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.Next(), 0x06c45d188009454fULL);
  SplitMix64 draws(7);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(draws.Below(4), 4u);
}

TEST(Mix64, IsTheGeneratorsOutputFunction) {
  // Mix64(x) is the output of a generator whose state is x.
  SplitMix64 rng(12345);
  EXPECT_EQ(rng.Next(), Mix64(12345));
  EXPECT_EQ(rng.Next(), Mix64(12345 + kGoldenGamma));
}

TEST(Fnv1a64, KnownAnswers) {
  // FNV-1a 64 test vectors (Fowler, Noll, Vo).
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

}  // namespace
}  // namespace preflight
