#include "cost/cost_estimate.h"

#include <gtest/gtest.h>

#include <string>

#include "base/file.h"

namespace preflight::cost {
namespace {

CostRequest Request(double gpus, double days, double price) {
  CostRequest r;
  r.gpus = gpus;
  r.hours = days * 24;
  r.price_usd_per_gpu_hour = price;
  r.gpu = *FindGpu("H100-SXM");
  return r;
}

const CostComponent& Component(const CostBreakdown& b, const std::string& name) {
  for (const CostComponent& c : b.components) {
    if (c.name == name) return c;
  }
  static CostComponent none;
  ADD_FAILURE() << "no component " << name;
  return none;
}

// Known answer (issue 6): 90 days x 1,000 GPUs x $2/GPU-hour = $4,320,000, and the compute
// line scales exactly with the GPU count.
TEST(EstimateCost, NinetyDaysOnAThousandGpusAtTwoDollars) {
  auto b = EstimateCost(Request(1000, 90, 2));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->compute_usd, 4320000.0);
  EXPECT_EQ(b->gpu_hours, 2160000.0);
  EXPECT_EQ(b->days, 90.0);
  EXPECT_EQ(EstimateCost(Request(10, 90, 2))->compute_usd, 43200.0);
  EXPECT_EQ(EstimateCost(Request(100, 90, 2))->compute_usd, 432000.0);
  EXPECT_EQ(EstimateCost(Request(10000, 90, 2))->compute_usd, 43200000.0);
  EXPECT_EQ(EstimateCost(Request(100000, 90, 2))->compute_usd, 432000000.0);
}

TEST(EstimateCost, ComponentsFollowTheirStatedFormulas) {
  auto b = EstimateCost(Request(1000, 90, 2));
  ASSERT_TRUE(b.ok());
  // energy: 2,160,000 GPU-h x 0.7 kW x 0.75 x 1.2 x $0.08/kWh.
  EXPECT_NEAR(Component(*b, "energy").usd, 2160000 * 0.7 * 0.75 * 1.2 * 0.08, 1e-6);
  EXPECT_FALSE(Component(*b, "energy").in_total);  // inside a rental price by default
  EXPECT_NEAR(Component(*b, "networking").usd, 0.05 * 4320000, 1e-6);
  EXPECT_NEAR(Component(*b, "engineering").usd, 4 * 25000 * 3.0, 1e-6);  // 90 days = 3 months
  EXPECT_EQ(Component(*b, "data").usd, 0.0);
  EXPECT_NEAR(Component(*b, "failed experiments and restarts").usd, 0.15 * 4320000, 1e-6);
  EXPECT_NEAR(b->total_usd, 4320000 * 1.2 + 300000, 1e-6);
  for (const CostComponent& c : b->components) EXPECT_FALSE(c.assumption.empty()) << c.name;
}

TEST(EstimateCost, OwnedClusterAddsEnergyAndOverridesApply) {
  CostRequest r = Request(8, 10, 1.5);
  r.assumptions.energy_in_price = false;
  r.assumptions.pue = 1.5;
  r.assumptions.usd_per_kwh = 0.2;
  r.assumptions.networking_fraction = 0;
  r.assumptions.engineers = 0;
  r.assumptions.failure_overhead = 0;
  r.assumptions.data_usd = 1000;
  auto b = EstimateCost(r);
  ASSERT_TRUE(b.ok());
  double energy = 8 * 240 * 0.7 * 0.75 * 1.5 * 0.2;
  EXPECT_TRUE(Component(*b, "energy").in_total);
  EXPECT_NEAR(b->total_usd, 8 * 240 * 1.5 + energy + 1000, 1e-9);
}

TEST(EstimateCost, BadInputIsInvalidArgument) {
  EXPECT_EQ(EstimateCost(Request(0, 90, 2)).status().ExitCode(), 2);
  EXPECT_EQ(EstimateCost(Request(-5, 90, 2)).status().ExitCode(), 2);
  EXPECT_EQ(EstimateCost(Request(1000, 0, 2)).status().ExitCode(), 2);
  EXPECT_EQ(EstimateCost(Request(1000, -1, 2)).status().ExitCode(), 2);
  EXPECT_EQ(EstimateCost(Request(1000, 90, 0)).status().ExitCode(), 2);
  EXPECT_EQ(EstimateCost(Request(1000, 90, -2)).status().ExitCode(), 2);
  CostRequest r = Request(1, 1, 1);
  r.assumptions.pue = 0.9;
  EXPECT_FALSE(EstimateCost(r).ok());
  r = Request(1, 1, 1);
  r.assumptions.average_draw = 1.5;
  EXPECT_FALSE(EstimateCost(r).ok());
  r = Request(1, 1, 1);
  r.assumptions.failure_overhead = -0.1;
  EXPECT_FALSE(EstimateCost(r).ok());
}

TEST(GpuHoursForFlops, DividesByPeakTimesMfu) {
  GpuSpec h100 = *FindGpu("H100-SXM");
  auto hours = GpuHoursForFlops(5.88e23, h100, 0.4);
  ASSERT_TRUE(hours.ok());
  EXPECT_NEAR(*hours, 5.88e23 / (989e12 * 0.4) / 3600, 1e-6);
  EXPECT_FALSE(GpuHoursForFlops(5.88e23, h100, 0).ok());
  EXPECT_FALSE(GpuHoursForFlops(5.88e23, h100, 1.01).ok());
  EXPECT_TRUE(GpuHoursForFlops(5.88e23, h100, 1.0).ok());
  EXPECT_FALSE(GpuHoursForFlops(0, h100, 0.4).ok());
}

TEST(RunForFlops, EitherTheClusterOrTheRunLengthFollows) {
  GpuSpec h100 = *FindGpu("H100-SXM");
  double gpu_hours = 1e23 / (989e12 * 0.5) / 3600;
  auto by_gpus = RunForFlops(1e23, h100, 0.5, 100, std::nullopt);
  ASSERT_TRUE(by_gpus.ok());
  EXPECT_NEAR(by_gpus->hours, gpu_hours / 100, 1e-9);
  auto by_days = RunForFlops(1e23, h100, 0.5, std::nullopt, 10);
  ASSERT_TRUE(by_days.ok());
  EXPECT_NEAR(by_days->gpus, gpu_hours / 240, 1e-9);
  EXPECT_EQ(by_days->hours, 240);
  EXPECT_FALSE(RunForFlops(1e23, h100, 0.5, std::nullopt, std::nullopt).ok());
  EXPECT_FALSE(RunForFlops(1e23, h100, 0.5, 100, 10).ok());
  EXPECT_FALSE(RunForFlops(1e23, h100, 0.5, 0, std::nullopt).ok());
  EXPECT_FALSE(RunForFlops(1e23, h100, 0.5, std::nullopt, -1).ok());
}

TEST(ProjectSaving, ScalesTimeDependentLinesAndKeepsData) {
  CostRequest r = Request(1000, 90, 2);
  r.assumptions.data_usd = 50000;
  MeasuredSaving s;
  s.fraction = 0.35;
  s.source = "--saving 0.35";
  auto p = ProjectSaving(r, s);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NEAR(p->compute_usd_saved, 0.35 * 4320000, 1e-6);
  EXPECT_NEAR(p->gpu_hours_saved, 0.35 * 2160000, 1e-6);
  EXPECT_NEAR(p->days_saved, 0.35 * 90, 1e-9);
  auto base = EstimateCost(r);
  // Everything but the data line shrinks by 35%.
  EXPECT_NEAR(p->total_usd_saved, 0.35 * (base->total_usd - 50000), 1e-6);
  EXPECT_NEAR(p->projected.total_usd, base->total_usd - p->total_usd_saved, 1e-6);
}

TEST(ProjectSaving, NegativeSavingIsALossAndOneOrMoreIsRefused) {
  CostRequest r = Request(100, 10, 2);
  MeasuredSaving s;
  s.fraction = -0.1;
  auto p = ProjectSaving(r, s);
  ASSERT_TRUE(p.ok());
  EXPECT_LT(p->total_usd_saved, 0);
  s.fraction = 1.0;
  EXPECT_EQ(ProjectSaving(r, s).status().ExitCode(), 2);
}

std::string WriteScratch(const std::string& name, const std::string& text) {
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/cost";
  EXPECT_TRUE(MakeDirectories(dir).ok());
  std::string path = dir + "/" + name;
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

TEST(ReadSavingFromReceipt, ReadsNetAndIntervalFromATrialReceipt) {
  std::string path = WriteScratch("trial_receipt.json", R"({"kind": "trial",
      "config": {"selector": "dsir", "model": "tiny", "steps": 400},
      "result": {"compute_saved": {"gross": 0.4, "net": 0.31, "ci95": [0.2, 0.4]}}})");
  auto s = ReadSavingFromReceipt(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_DOUBLE_EQ(s->fraction, 0.31);
  EXPECT_DOUBLE_EQ(*s->ci_low, 0.2);
  EXPECT_DOUBLE_EQ(*s->ci_high, 0.4);
  EXPECT_NE(s->detail.find("dsir"), std::string::npos);
  EXPECT_EQ(s->source, path);
}

TEST(ReadSavingFromReceipt, RejectsOtherKindsAndMissingFields) {
  auto other = ReadSavingFromReceipt(
      WriteScratch("selection_receipt.json", R"({"kind": "selection", "result": {}})"));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("selection"), std::string::npos);
  EXPECT_FALSE(
      ReadSavingFromReceipt(WriteScratch("no_net.json", R"({"result": {"compute_saved": {}}})"))
          .ok());
  auto never = ReadSavingFromReceipt(WriteScratch(
      "never.json",
      R"({"kind":"trial","result":{"caught_up":false,"compute_saved":{"net":null}}})"));
  ASSERT_FALSE(never.ok());
  EXPECT_NE(never.status().message().find("never caught up"), std::string::npos);
  auto missing = ReadSavingFromReceipt("/nonexistent/receipt.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().ExitCode(), 2);
}

TEST(EstimateCost, NoEnergyGuessWhereTheVendorPublishesNoPower) {
  CostRequest r;
  r.gpus = 8;
  r.hours = 24;
  r.price_usd_per_gpu_hour = 1.2;
  r.gpu = FindGpu("TPU-v5e").value();
  r.assumptions.energy_in_price = false;  // even an owned cluster gets no invented wattage
  auto b = EstimateCost(r);
  ASSERT_TRUE(b.ok()) << b.status().message();
  const CostComponent& energy = b->components.front();
  EXPECT_EQ(energy.name, "energy");
  EXPECT_EQ(energy.usd, 0);
  EXPECT_FALSE(energy.in_total);
  EXPECT_NE(energy.assumption.find("not published"), std::string::npos) << energy.assumption;
}

}  // namespace
}  // namespace preflight::cost
