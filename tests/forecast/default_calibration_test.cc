// The default calibration is evidence, not a constant: refitting it from the ledger of the
// calibration and hold-out batteries committed in bench/calibration/ (its hash chain verified
// first) gives the curve,
// residuals and signal that src/forecast/default_calibration.cc holds, to the 6 significant
// digits it was written with. A change to the fit, or a default pasted from another run, fails.

#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "forecast/calibration.h"
#include "forecast/example_set.h"
#include "ledger/ledger.h"
#include "testing/testing.h"

namespace preflight::forecast {
namespace {

constexpr const char* kLedger = "/bench/calibration/ledger-tiny-300-2026-12-05.jsonl.zst";

std::string Unzstd(const std::string& packed) {
  // One frame, as the `zstd` command writes a file: its header holds the unpacked size.
  const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return "";
  std::string out(size, '\0');
  const size_t got = ZSTD_decompress(out.data(), out.size(), packed.data(), packed.size());
  if (ZSTD_isError(got)) return "";
  out.resize(got);
  return out;
}

// Equal to the 6 significant digits the default was written with.
void ExpectClose(double a, double b, const std::string& what) {
  EXPECT_LE(std::abs(a - b), 6e-6 * std::abs(b) + 1e-12) << what << ": " << a << " vs " << b;
}

TEST(DefaultCalibration, IsWhatTheCommittedBatteryLedgerFits) {
  const std::string dir = testing::ScratchDir("default_calibration");
  const std::string ledger = dir + "/ledger.jsonl";
  const std::string text = Unzstd(testing::ReadText(std::string(PREFLIGHT_SOURCE_DIR) + kLedger));
  ASSERT_FALSE(text.empty()) << kLedger;
  testing::WriteText(ledger, text);
  auto verified = ledger::Verify(ledger);
  ASSERT_TRUE(verified.ok()) << verified.status().message();
  ASSERT_TRUE(verified->ok) << "line " << verified->first_bad_line << ": " << verified->reason;
  auto receipts = ledger::ReadAll(ledger);
  ASSERT_TRUE(receipts.ok());

  // The trials whose forecasts lack the signals most carry (the hold-out battery's that could
  // not be rebuilt byte for byte to be re-measured) are set aside, as `--calibrate` does.
  const ExampleSet set = SelectExamples(ExamplesFromReceipts(*receipts));
  EXPECT_FALSE(set.set_aside.empty());
  const std::vector<Example>& examples = set.kept;
  auto fit = Calibrate(examples, CandidateSignals(), "refit");
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const Calibration& d = DefaultCalibration();
  EXPECT_EQ(fit->signal, d.signal);
  EXPECT_EQ(fit->examples, d.examples);
  EXPECT_EQ(fit->groups, d.groups);
  EXPECT_EQ(fit->scale.model, d.scale.model);  // the pilot scale: a forecast at another scale
  EXPECT_EQ(fit->scale.steps, d.scale.steps);  // widens its interval (Calibration::Predict)
  EXPECT_EQ(fit->scale.tokens, d.scale.tokens);
  EXPECT_EQ(fit->scale.trials, d.scale.trials);
  EXPECT_EQ(fit->scale.informative, d.scale.informative);
  EXPECT_EQ(fit->Neighbours(), d.Neighbours());
  ASSERT_EQ(fit->curve.size(), d.curve.size());
  for (size_t i = 0; i < d.curve.size(); ++i) {
    ExpectClose(fit->curve[i].x, d.curve[i].x, "knot x " + std::to_string(i));
    ExpectClose(fit->curve[i].y, d.curve[i].y, "knot y " + std::to_string(i));
  }
  // The ranges the calibration covered (a forecast outside any is never clear).
  ASSERT_EQ(fit->covered.size(), d.covered.size());
  for (const auto& [name, range] : d.covered) {
    ASSERT_EQ(fit->covered.count(name), 1u) << name;
    ExpectClose(fit->covered.at(name).lo, range.lo, name + " lo");
    ExpectClose(fit->covered.at(name).hi, range.hi, name + " hi");
  }
  // The sizes of the cases it saw (a forecast on a case far smaller is never clear).
  ASSERT_EQ(fit->sizes_seen.size(), SizeNames().size());
  ASSERT_EQ(fit->sizes_seen.size(), d.sizes_seen.size());
  for (const auto& [name, range] : d.sizes_seen) {
    ASSERT_EQ(fit->sizes_seen.count(name), 1u) << name;
    ExpectClose(fit->sizes_seen.at(name).lo, range.lo, name + " lo");
    ExpectClose(fit->sizes_seen.at(name).hi, range.hi, name + " hi");
  }
  ASSERT_EQ(fit->residuals.size(), d.residuals.size());
  for (size_t i = 0; i < d.residuals.size(); ++i) {
    ExpectClose(fit->residuals[i].x, d.residuals[i].x, "residual x " + std::to_string(i));
    ExpectClose(fit->residuals[i].r, d.residuals[i].r, "residual " + std::to_string(i));
  }
}

}  // namespace
}  // namespace preflight::forecast
