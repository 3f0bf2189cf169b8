// The demo's one screen (app/demo_job.h, DemoText) on a hand-made job: the forecast's record on
// targets it never saw stands right under the demo's own forecast line, its figures taken from
// forecast::kHoldoutRecord (the test builds the expected lines from the same record), and only
// when the forecast used the built-in calibration whose record it is.

#include <gtest/gtest.h>

#include <string>

#include "app/demo_job.h"
#include "forecast/holdout_record.h"
#include "narrate/forecast_record.h"
#include "trial/trial_inputs.h"

namespace preflight::app {
namespace {

// A demo whose trial saved compute and whose forecast, made with `calibration`, said random.
DemoJob DemoWithWrongForecast(const forecast::Calibration& calibration) {
  DemoJob job;
  job.target.name = "cj";
  job.target.genre = "cj";
  job.target.label = "learned";
  for (const char* selector : {"random", "first", "dsir", "classifier"}) {
    DemoSelection s;
    s.selector = selector;
    s.result.pool_docs = 460;
    s.result.kept_docs = 109;
    job.selections.push_back(s);
  }
  TrialJob trial;
  trial::TrialInputs in = trial::testing::TwoArms({trial::testing::SmoothCurve(2.1, 1.0, 0.0)},
                                                  {trial::testing::SmoothCurve(1.98, 1.15, 0.0)});
  trial.outcome.arms = in.arms;
  trial.outcome.trial = trial::ComputeTrial(in).value();
  trial.lab_record = {{"summary", "The curated arm saved compute."}};
  trial.receipt_hash = "0123456789abcdef0123";
  ForecastJob forecast;
  forecast.config.calibration = calibration;
  forecast.outcome.prediction.verdict = "random";
  forecast.outcome.prediction.saving = -0.2;
  trial.forecast = forecast;
  job.trial = std::move(trial);
  return job;
}

TEST(DemoText, TheForecastsRecordOutOfSampleStandsUnderItsVerdict) {
  const std::string text = DemoText(DemoWithWrongForecast(forecast::DefaultCalibration()));
  const std::string verdict = "  forecast (made before)     random, predicted -20.0%: wrong\n";
  const size_t at = text.find(verdict);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string record = narrate::ForecastRecordLines(forecast::kHoldoutRecord);
  EXPECT_EQ(text.substr(at + verdict.size(), record.size()), record) << text;
  EXPECT_EQ(text.find(record, at + verdict.size() + record.size()), std::string::npos)
      << "printed once";
}

TEST(DemoText, NoRecordBesideAForecastFittedOnTheUsersLedger) {
  forecast::Calibration own = forecast::DefaultCalibration();
  own.source = "ledger .preflight/ledger.jsonl";
  const std::string text = DemoText(DemoWithWrongForecast(own));
  EXPECT_NE(text.find("  forecast (made before)     random"), std::string::npos) << text;
  EXPECT_EQ(text.find(narrate::ForecastRecordSentence(forecast::kHoldoutRecord).substr(0, 40)),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("bench/holdout/"), std::string::npos) << text;
}

}  // namespace
}  // namespace preflight::app
