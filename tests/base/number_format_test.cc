#include "base/number_format.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(Format, Usd) {
  EXPECT_EQ(FormatUsd(4320000), "$4,320,000");
  EXPECT_EQ(FormatUsd(2.99), "$2.99");
  EXPECT_EQ(FormatUsd(0), "$0");
  EXPECT_EQ(FormatUsd(-1234.4), "-$1,234");
  EXPECT_EQ(FormatUsd(999.5), "$1,000");
}

TEST(Format, ScientificAndCounts) {
  EXPECT_EQ(FormatSci(5.88e23), "5.88e23");
  EXPECT_EQ(FormatSci(6e23), "6e23");
  EXPECT_EQ(FormatSci(1.5), "1.5");
  EXPECT_EQ(FormatCount(72.2487e9), "72.2B");
  EXPECT_EQ(FormatCount(1.3287e12), "1.33T");
  EXPECT_EQ(FormatCount(6.97e9), "6.97B");
  EXPECT_EQ(FormatCount(950e6), "950M");
}

TEST(Format, PlainAndBytes) {
  EXPECT_EQ(FormatPlain(4.0), "4");
  EXPECT_EQ(FormatPlain(2.50), "2.5");
  EXPECT_EQ(FormatPlain(1234.567), "1,234.57");
  EXPECT_EQ(FormatGiB(16.0 * 1024 * 1024 * 1024), "16.0 GiB");
  EXPECT_EQ(FormatBytes(512.0 * 1024 * 1024), "512.0 MiB");
}

}  // namespace
}  // namespace preflight
