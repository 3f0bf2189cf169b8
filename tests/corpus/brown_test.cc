#include "corpus/brown.h"

#include <gtest/gtest.h>

namespace preflight::corpus {
namespace {

TEST(Brown, DetagRestoresRunningText) {
  std::string tagged =
      "\n\n\tThe/at jury/nn said/vbd ``/`` no/at evidence/nn ''/'' ,/, and/cc Atlanta's/np$ "
      "(/( 1/2/cd )/) ./.\n\n\n\tSecond/od paragraph/nn ./.\n";
  EXPECT_EQ(DetagBrown(tagged),
            "The jury said \"no evidence\", and Atlanta's (1/2).\n\nSecond paragraph.");
}

TEST(Brown, GenreNames) {
  EXPECT_EQ(BrownGenreName("cj"), "learned");
  EXPECT_EQ(BrownGenreName("cr"), "humor");
}

}  // namespace
}  // namespace preflight::corpus
