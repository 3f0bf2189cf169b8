#include "cost/hardware_catalog.h"

#include <gtest/gtest.h>

#include <optional>

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

TEST(HardwareCatalog, DatacentreAcceleratorsBeyondNvidiaSxm) {
  struct {
    const char* name;
    double bf16, memory_gib;
    std::optional<double> fp8, int8, power;
  } const expected[] = {
      {"H100-PCIe", 756e12, 80, 1513e12, 1513e12, 350},
      {"L40S", 362.05e12, 48, 733e12, 733e12, 350},
      {"MI300X", 1307.4e12, 192, 2614.9e12, 2614.9e12, 750},
      {"TPU-v5e", 197e12, 16, std::nullopt, 393e12, std::nullopt},
      {"TPU-v5p", 459e12, 95, std::nullopt, 918e12, std::nullopt},
  };
  for (const auto& e : expected) {
    auto g = FindGpu(e.name);
    ASSERT_TRUE(g.ok()) << e.name << ": " << g.status().message();
    EXPECT_DOUBLE_EQ(g->bf16_dense_flops, e.bf16) << e.name;
    EXPECT_DOUBLE_EQ(g->memory_gib, e.memory_gib) << e.name;
    EXPECT_EQ(g->fp8_dense_flops, e.fp8) << e.name;
    EXPECT_EQ(g->int8_dense_ops, e.int8) << e.name;
    EXPECT_EQ(g->power_w, e.power) << e.name;
  }
  EXPECT_EQ(FindGpu("v5e")->name, "TPU-v5e");
  EXPECT_EQ(FindGpu("h100 pcie")->name, "H100-PCIe");
  EXPECT_EQ(FindGpu("H100")->name, "H100-SXM");  // the bare name stays the SXM part
}

TEST(HardwareCatalog, EveryEntryIsDenseWithASourceAndDateAndFp8WhereTheChipHasIt) {
  for (const GpuSpec& g : HardwareCatalog()) {
    EXPECT_FALSE(g.source.empty()) << g.name;
    EXPECT_FALSE(g.source_date.empty()) << g.name;
    EXPECT_TRUE(g.int8_dense_ops.has_value()) << g.name;
  }
  // Hopper, Blackwell, Ada and CDNA 3 have FP8 tensor cores; the H200 has the H100 SXM's.
  for (const char* name : {"H100-SXM", "H100-PCIe", "H200", "B200", "L40S", "MI300X"}) {
    EXPECT_TRUE(FindGpu(name)->fp8_dense_flops.has_value()) << name;
  }
  EXPECT_EQ(FindGpu("H200")->fp8_dense_flops, FindGpu("H100-SXM")->fp8_dense_flops);
  auto sparse = ParseHardwareCatalog(R"({"gpus": [{"name": "X", "peak_kind": "sparse",
      "bf16_dense_tflops": 1, "memory_gib": 1, "bandwidth_gb_per_s": 1, "power_w": 1,
      "price_usd_per_gpu_hour": 1, "source": "s", "source_date": "2024", "price_source": "p"}]})");
  ASSERT_FALSE(sparse.ok());
  EXPECT_NE(sparse.status().message().find("dense"), std::string::npos);
}

TEST(HardwareCatalog, DensePeakByDtype) {
  const GpuSpec h100 = FindGpu("H100-SXM").value();
  EXPECT_DOUBLE_EQ(DensePeak(h100, PeakDtype::kBf16, "--x").value(), 989e12);
  EXPECT_DOUBLE_EQ(DensePeak(h100, PeakDtype::kFp8, "--x").value(), 1979e12);
  EXPECT_DOUBLE_EQ(DensePeak(h100, PeakDtype::kInt8, "--x").value(), 1979e12);
  auto a100_fp8 = DensePeak(FindGpu("A100-80GB").value(), PeakDtype::kFp8, "--inference-dtype");
  ASSERT_FALSE(a100_fp8.ok());
  EXPECT_EQ(a100_fp8.status().ExitCode(), 2);
  EXPECT_NE(a100_fp8.status().message().find("--inference-dtype fp8"), std::string::npos);
  EXPECT_EQ(ParsePeakDtype("FP8", "--d").value(), PeakDtype::kFp8);
  EXPECT_FALSE(ParsePeakDtype("fp4", "--d").ok());
}

}  // namespace
}  // namespace preflight::cost
