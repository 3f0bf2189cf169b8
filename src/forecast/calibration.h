#pragma once
// From signals to a verdict and a predicted saving.
//
// The verdict comes from the sign of one signal: every signal here is a gain of the curated arm
// over the random arm (> 0: curated is closer to the target), measured with a bootstrap interval
// over the target's documents (signals.h). By `mode`:
//   "point":    curate if the gain is > 0, random if < 0 (uncertain only at exactly 0)
//   "interval": curate if the interval lies above 0, random if at or below 0, else uncertain
// Either way the forecast says how strong the call is: "clear" when the interval excludes 0,
// "weak" when it straddles 0.
// The predicted net saving is a line through the origin (no gain, no saving) fitted on trials
// already run: saving = slope * gain, and its interval is the signal's interval through the
// line. Every trial that tested a forecast is a labelled example; one whose curated arm never
// caught up within its budget is labelled 0: it saved at most nothing (the true value is lower
// and unknown), so the fit errs towards curating, never away.
//
// Calibrating (Calibrate) chooses the signal and mode whose verdicts scored best on the examples
// (right minus wrong; fewer abstentions break ties, then the order of the candidates) and fits
// the signal's slope.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::forecast {

struct SignalValue {
  double value = 0, lo = 0, hi = 0;  // lo == hi == value when the signal has no interval
};

struct Example {
  std::string name;                            // the target, for tables
  std::map<std::string, SignalValue> signals;  // what the forecast measured
  std::optional<double> net;                   // the trial's net saving; nullopt: never caught up
  double Label() const { return net ? *net : 0.0; }
};

struct Prediction {
  double saving = 0, lo = 0, hi = 0;
  std::string verdict;   // curate | random | uncertain
  std::string strength;  // clear | weak
};

struct Calibration {
  std::string signal = "byte_bigram_gain";
  std::string mode = "point";  // point | interval
  double slope = 0;
  double residual_sd = 0;  // of the labels around the line: how far a saving may fall from it
  int examples = 0;
  std::string source;  // where the fit came from, in words

  Prediction Predict(const SignalValue& x) const;
  nlohmann::json ToJson() const;
  static Result<Calibration> FromJson(const nlohmann::json& j);
};

// The verdict by the sign of the signal's point value or interval (mode).
std::string VerdictFor(const SignalValue& x, const std::string& mode);

// The slope of `signal` through the origin, on the examples that have it (at least 3, not all 0).
Result<Calibration> Fit(const std::vector<Example>& examples, const std::string& signal,
                        const std::string& mode, const std::string& source);

// Chooses the signal (see above) and fits it.
Result<Calibration> Calibrate(const std::vector<Example>& examples,
                              const std::vector<std::string>& candidates,
                              const std::string& source);

// Each example predicted by Calibrate on all the others (what the forecast would have said had
// that target been new): the honest accuracy of the whole procedure, choice of signal included.
Result<std::vector<Prediction>> LeaveOneOut(const std::vector<Example>& examples,
                                            const std::vector<std::string>& candidates);

// Right or wrong by DESIGN.md's rule; nullopt for an abstention.
std::optional<bool> Correct(const std::string& verdict, std::optional<double> net);

// The signals Calibrate chooses among, in order of preference.
const std::vector<std::string>& CandidateSignals();

// The line fitted on the built-in Brown battery (tiny model, 300 steps, 4 seeds, dsir, keep
// 0.25); how it was made is in doc/forecast.md.
Calibration DefaultCalibration();

// The labelled examples in a ledger's receipts: each trial receipt whose config names a forecast
// receipt present in the same ledger.
std::vector<Example> ExamplesFromReceipts(const std::vector<nlohmann::json>& receipts);

// A signal as a forecast receipt stores it: {"value", "interval": [lo, hi]}.
nlohmann::json SignalToJson(const SignalValue& x);
std::optional<SignalValue> SignalFromJson(const nlohmann::json& j);

}  // namespace preflight::forecast
