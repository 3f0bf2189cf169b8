#include "cost/pilot_saving.h"

#include <gtest/gtest.h>

#include <string>

#include "base/file.h"

namespace preflight::cost {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/pilot_saving";
  EXPECT_TRUE(MakeDirectories(dir).ok());
  std::string path = dir + "/" + name;
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

// The shape `preflight trial` writes to RUN/result.json, with a regime check.
constexpr char kResult[] = R"({"compute_saved": {"net": 0.3, "ci95": [0.1, 0.5]},
    "budget_steps": 400, "model": {"name": "tiny", "params": 1200000, "layers": 2},
    "compute": {"runs": [{"run": "curated-1", "tokens": 3276800}]},
    "regime": {"informative": true, "margin": 0.2}})";

TEST(ReadPilotSaving, ResultJsonWithScaleAndRegime) {
  auto p = ReadPilotSaving(Write("result.json", kResult));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->saving.fraction, 0.3);
  EXPECT_DOUBLE_EQ(*p->saving.ci_low, 0.1);
  EXPECT_EQ(*p->scale.model, "tiny");
  EXPECT_DOUBLE_EQ(*p->scale.params, 1.2e6);
  EXPECT_DOUBLE_EQ(*p->scale.steps, 400);
  EXPECT_DOUBLE_EQ(*p->scale.tokens, 3276800);
  EXPECT_TRUE(*p->regime.informative);
  EXPECT_DOUBLE_EQ(*p->regime.margin, 0.2);
  EXPECT_EQ(DollarIntervalWithheld(p->regime), "");
  EXPECT_EQ(DescribePilotScale(p->scale),
            "the tiny pilot (1.20M params, 400 steps, 3.28M tokens per run)");
}

TEST(ReadPilotSaving, ReceiptKeepsTheResultUnderResult) {
  auto p = ReadPilotSaving(
      Write("receipt.json", std::string(R"({"kind": "trial", "config": {"model": "small",
          "steps": 800}, "result": {"compute_saved": {"net": 0.2}}})")));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*p->scale.model, "small");
  EXPECT_DOUBLE_EQ(*p->scale.steps, 800);
  EXPECT_FALSE(p->scale.params.has_value());
  EXPECT_FALSE(p->regime.informative.has_value());
  EXPECT_EQ(DollarIntervalWithheld(p->regime), "no dollar interval: the pilot has no regime check");
}

TEST(ReadPilotSaving, UninformativeRegimeWithholdsTheInterval) {
  PilotRegime regime;
  regime.informative = false;
  EXPECT_EQ(DollarIntervalWithheld(regime),
            "no dollar interval: the pilot's regime check calls it uninformative");
  EXPECT_EQ(DescribeRegime(regime), "uninformative");
}

TEST(ReadPilotSaving, DamagedFilesNameTheFileAndThePath) {
  std::string wrong_type = Write("wrong_type.json", R"({"compute_saved": {"net": "0.3"}})");
  auto a = ReadPilotSaving(wrong_type);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().ExitCode(), 2);
  EXPECT_EQ(a.status().message(),
            wrong_type + ": $.compute_saved.net: expected a number, found a string");
  std::string bad_regime = Write(
      "bad_regime.json", R"({"compute_saved": {"net": 0.3}, "regime": {"informative": "yes"}})");
  auto b = ReadPilotSaving(bad_regime);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find(bad_regime + ": $.regime.informative"), std::string::npos)
      << b.status().message();
  std::string truncated = Write("truncated.json", R"({"compute_saved": {"net": 0.3)");
  auto c = ReadPilotSaving(truncated);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().ExitCode(), 2);
  EXPECT_NE(c.status().message().find(truncated), std::string::npos);
  std::string bad_ci = Write("bad_ci.json", R"({"compute_saved": {"net": 0.3, "ci95": [0.1]}})");
  auto d = ReadPilotSaving(bad_ci);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("$.compute_saved"), std::string::npos);
  auto e = ReadPilotSaving(Write("no_saving.json", R"({"steps": 3})"));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("compute_saved"), std::string::npos);
}

TEST(RoundSignificant, TwoFigures) {
  EXPECT_EQ(RoundSignificant(1339200, 2), 1300000);
  EXPECT_EQ(RoundSignificant(1700040, 2), 1700000);
  EXPECT_EQ(RoundSignificant(3783960, 2), 3800000);
  EXPECT_EQ(RoundSignificant(-1250, 2), -1300);  // half away from zero
  EXPECT_DOUBLE_EQ(RoundSignificant(0.012345, 2), 0.012);
  EXPECT_EQ(RoundSignificant(0, 2), 0);
}

}  // namespace
}  // namespace preflight::cost
