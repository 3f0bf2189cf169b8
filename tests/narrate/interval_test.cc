#include "narrate/interval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "trial/curve.h"

namespace preflight::narrate {
namespace {

using trial::kNever;

TEST(IntervalSentence, EveryCaseInOneWording) {
  EXPECT_EQ(IntervalSentence({0.12, 0.205}, 0.95), "95% interval 12.0% to 20.5%");
  EXPECT_EQ(IntervalSentence({-kNever, 0.205}, 0.95),
            "95% interval from never catching up to 20.5%");
  EXPECT_EQ(IntervalSentence({-kNever, -kNever}, 0.95),
            "95% interval: never caught up at either end");
  EXPECT_EQ(IntervalSentence({std::nan(""), 0.1}, 0.9), "90% interval undefined");
}

TEST(IntervalBounds, TheSentenceWithoutTheLevel) {
  EXPECT_EQ(IntervalBounds({0.12, 0.205}), "12.0% to 20.5%");
  EXPECT_EQ(IntervalBounds({-kNever, 0.205}), "from never catching up to 20.5%");
  EXPECT_EQ(IntervalBounds({-kNever, -kNever}), "never caught up at either end");
  EXPECT_EQ(IntervalBounds({0.1, std::nan("")}), "undefined");
}

}  // namespace
}  // namespace preflight::narrate
