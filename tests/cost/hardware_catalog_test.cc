#include "cost/hardware_catalog.h"

#include <gtest/gtest.h>

namespace preflight::cost {
namespace {

TEST(HardwareCatalog, EmbeddedCatalogueParsesAndHasTheRequiredGpus) {
  const auto& catalog = HardwareCatalog();
  ASSERT_GE(catalog.size(), 5u);
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-SXM", "H200", "B200"}) {
    auto g = FindGpu(name);
    ASSERT_TRUE(g.ok()) << name << ": " << g.status().message();
    EXPECT_GT(g->bf16_dense_flops, 1e14) << name;
    EXPECT_GT(g->memory_gib, 0) << name;
    EXPECT_GT(g->bandwidth_bytes_per_s, 1e12) << name;
    EXPECT_GT(g->power_w, 0) << name;
    EXPECT_GT(g->price_usd_per_gpu_hour, 0) << name;
    EXPECT_FALSE(g->source.empty()) << name;
    EXPECT_FALSE(g->price_source.empty()) << name;
  }
}

TEST(HardwareCatalog, DenseFiguresNotSparsity) {
  // Datasheets print the 2:4-sparsity figure first; the catalogue holds half of it.
  EXPECT_DOUBLE_EQ(FindGpu("H100-SXM")->bf16_dense_flops, 989e12);
  EXPECT_DOUBLE_EQ(*FindGpu("H100-SXM")->fp8_dense_flops, 1979e12);
  EXPECT_DOUBLE_EQ(FindGpu("A100-80GB")->bf16_dense_flops, 312e12);
  EXPECT_FALSE(FindGpu("A100-40GB")->fp8_dense_flops.has_value());  // Ampere has no FP8
  EXPECT_DOUBLE_EQ(FindGpu("B200")->bf16_dense_flops, 2250e12);
  EXPECT_DOUBLE_EQ(*FindGpu("B200")->fp8_dense_flops, 4500e12);
  EXPECT_DOUBLE_EQ(FindGpu("H200")->memory_gib, 141);
}

TEST(HardwareCatalog, LookupIgnoresCaseAndSeparatorsAndKnowsAliases) {
  EXPECT_EQ(FindGpu("h100 sxm")->name, "H100-SXM");
  EXPECT_EQ(FindGpu("H100")->name, "H100-SXM");
  EXPECT_EQ(FindGpu("a100_80gb")->name, "A100-80GB");
}

TEST(HardwareCatalog, UnknownGpuIsNotFoundListingTheKnownOnes) {
  auto g = FindGpu("Z900");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().ExitCode(), 2);
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-SXM", "H200", "B200"}) {
    EXPECT_NE(g.status().message().find(name), std::string::npos) << g.status().message();
  }
  EXPECT_NE(g.status().message().find("Z900"), std::string::npos);
}

TEST(HardwareCatalog, AmbiguousA100IsNotGuessed) {
  // "A100" could be either memory size; the user must say which.
  EXPECT_FALSE(FindGpu("A100").ok());
}

TEST(HardwareCatalog, ParserRejectsAnEntryWithoutItsSource) {
  auto bad = ParseHardwareCatalog(R"({"gpus": [{"name": "X", "bf16_dense_tflops": 1,
      "memory_gib": 1, "bandwidth_gb_per_s": 1, "power_w": 1, "price_usd_per_gpu_hour": 1,
      "price_source": "p"}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'source'"), std::string::npos) << bad.status().message();
}

TEST(HardwareCatalog, ParserRejectsNonPositiveFigures) {
  auto bad = ParseHardwareCatalog(R"({"gpus": [{"name": "X", "bf16_dense_tflops": 0,
      "memory_gib": 1, "bandwidth_gb_per_s": 1, "power_w": 1, "price_usd_per_gpu_hour": 1,
      "source": "s", "price_source": "p"}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bf16_dense_tflops"), std::string::npos);
  EXPECT_FALSE(ParseHardwareCatalog("not json").ok());
}

}  // namespace
}  // namespace preflight::cost
