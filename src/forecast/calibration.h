#pragma once
// From a signal to a bounded, calibrated forecast.
//
// The model (monotone_fit.h): the net saving of curating, y, against one gain signal x (chosen
// below; x > 0: the curated quarter is closer to the target than a random quarter), fitted on
// trials already run as a non-decreasing least-squares curve that is at most 0 wherever x <= 0.
// Predictions are clipped to [-1, 1]. The spread comes from the curve's own misses on corpora
// it was not fitted on: `residuals` hold, for each example, its x and y minus the prediction of
// the curve fitted without that example's group (its corpus). A forecast at x uses the misses of
// the calibration's examples nearest in x (the `neighbours` nearest: max(10, n / 3), at most n),
// because the misses are not alike along x: near x = 0 some targets pay and some never catch
// up, far above it almost all pay. Its outcomes are prediction + residual_i (each clipped); then
//   probability       that a new outcome exchangeable with these k outcomes is > 0, between
//                     m / (k + 1) and (m + 1) / (k + 1) (m of them > 0): the midpoint
//                     (m + 1/2) / (k + 1), never 0 or 1 from a finite calibration
//   predicted_saving  the clipped curve
//   interval          80%: the split-conformal ranks of the outcomes (ceil((k + 1) * 0.9)-th
//                     from either end; the extremes when k < 9)
//   expected          the outcomes' mean: the expected saving of curating, in the trial's units
// The decision minimises expected compute with the forecast's own cost c (a fraction of the
// trial's compute) counted, and curates only on a signal that says the curated quarter is
// closer. First the gate: when the signal's own interval covers 0, the curated quarter is not
// measurably closer to the target than a random one, so curating would pay for a selection
// that bought nothing measurable: random, whatever the curve says (the simplest thing wins
// until the selection shows it found something). Past the gate: curate when x > 0, its
// interval (when it has one) lies above 0, and expected > c; random when expected < -c;
// otherwise `uncertain` (the expected gain of deciding is below what the forecast cost).
// A trial whose curated arm never caught up is labelled y = -1: curating spent its whole budget
// and then needed the random run (twice the random arm's compute to L* at these pilots, where
// the random arm reaches L* near the budget's end), the same price held_out.h charges it.
//
// Scale: the calibration records the pilot scale its trials ran at (model, steps, tokens, how
// many the regime check called informative). A forecast for another model or step count widens
// the residuals twofold (so its interval, and usually its verdict, say how little it knows).
//
// Calibrate chooses the signal with the smallest squared error of its out-of-group predictions.
// LeaveOneGroupOut (held_out.h) redoes the whole procedure (choice, fit, residuals) without each
// group in turn.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "forecast/monotone_fit.h"

namespace preflight::forecast {

struct SignalValue {
  double value = 0, lo = 0, hi = 0;  // lo == hi == value when the signal has no interval
};

// The pilot a trial ran at.
struct PilotScale {
  std::string model;    // tiny | small | medium | custom
  int64_t steps = 0;    // per run
  double tokens = 0;    // per run
  int trials = 0;       // how many trials the calibration holds at this scale
  int informative = 0;  // of them, how many the regime check called informative
  bool Matches(const std::string& other_model, int64_t other_steps) const {
    return model == other_model && steps == other_steps;
  }
};

struct Example {
  std::string name;   // the target, for tables
  std::string group;  // its corpus: leave-one-corpus-out leaves a whole group out
  std::map<std::string, SignalValue> signals;  // what the forecast measured
  std::optional<double> net;                   // the trial's net saving; nullopt: never caught up
  double forecast_cost = 0;  // the forecast's cost as a fraction of the trial's compute
  int seeds = 4;             // runs per arm of the trial
  PilotScale scale;          // the trial's (trials = 1, informative = 0 or 1)
  // SizeNames(): what the case held (its forecast receipt's pool inputs and arms); a size the
  // receipt does not carry is absent.
  std::map<std::string, double> sizes;
  double Label() const { return net ? *net : -1.0; }  // never caught up: see above
};

// What the calibration's examples covered: the range [lo, hi] of a signal over them.
struct Covered {
  double lo = 0, hi = 0;
};

// A signal of a forecast outside the range its calibration covered.
struct OutsideSignal {
  std::string signal;
  double value = 0;
  Covered covered;
};

struct Prediction {
  double saving = 0, lo = 0, hi = 0;  // bounded to [-1, 1]; lo/hi: the 80% interval
  double probability = 0.5;           // that curating pays (net > 0)
  double expected = 0;                // the expected net saving of curating
  double decision_cost = 0;           // the forecast's cost the decision weighed
  bool scale_matches = true;
  std::string verdict;   // curate | random | uncertain
  std::string strength;  // clear: curate at p >= 0.9, random at p <= 0.1, uncertain at either | weak
  // The signals outside what the calibration covered (Calibration::Outside); any makes it weak.
  std::vector<OutsideSignal> outside;
  // The case's sizes far below the smallest its calibration saw (Calibration::FarSmaller); any
  // makes it weak (forecast.cc).
  std::vector<OutsideSignal> far_smaller;
};

// An example's miss by the curve fitted without its group, at its signal x.
struct Residual {
  double x = 0, r = 0;
};

struct Calibration {
  std::string signal = "byte_bigram_gain";
  std::vector<Knot> curve;          // the anchored monotone fit (monotone_fit.h)
  std::vector<Residual> residuals;  // out-of-group misses, sorted by x
  int examples = 0, groups = 0;
  PilotScale scale;
  std::string source;         // where the fit came from, in words
  double held_out_error = 0;  // mean squared out-of-group miss (Fit's; not saved)
  // Per signal of CoverageSignals() measured on every example: the range the examples covered.
  // Empty for a calibration saved before 2026-12-05 (nothing can then be said to be outside).
  std::map<std::string, Covered> covered;
  // Per size of SizeNames() that every example carried: the range of the cases it was fitted on.
  // Empty for a calibration saved without it (nothing can then be said to be too small).
  std::map<std::string, Covered> sizes_seen;

  // The forecast's signals that lie outside the covered ranges (a signal the calibration did not
  // cover, or the forecast did not measure, is not judged): the calibration has not seen the
  // like of this case, so its verdict is never clear (Predict's strength; forecast.cc).
  std::vector<OutsideSignal> Outside(const std::map<std::string, SignalValue>& signals) const;
  // The sizes of a case (SizeNames()) far smaller than the smallest its calibration saw: the
  // pool's documents and bytes when both are below kFarSmaller times the smallest pool's, and
  // likewise the smaller arm's. A pool or arm that small holds too little for the trials the
  // calibration was fitted on to say anything about it, so the verdict is never clear. Fewer
  // documents alone (a few long ones) or fewer bytes alone (many short ones) still give the
  // signals something to measure. A size the calibration did not record is not judged; nor is
  // a larger case (its selection has more to choose from).
  std::vector<OutsideSignal> FarSmaller(const std::map<std::string, double>& sizes) const;

  // How many residuals, nearest in x, a prediction uses.
  int Neighbours() const;
  // `decision_cost`: the forecast's cost as a fraction of the trial's compute.
  Prediction Predict(const SignalValue& x, double decision_cost, bool scale_matches = true) const;
  // Predict at this calibration's signal among `signals` (InvalidArgument naming it when they
  // lack it), with `outside` filled and the verdict weak whenever it is not empty.
  Result<Prediction> PredictFrom(const std::map<std::string, SignalValue>& signals,
                                 double decision_cost, bool scale_matches = true) const;
  nlohmann::json ToJson() const;
  // Corruption naming `source` (a file) and the JSON path for anything ToJson does not write.
  static Result<Calibration> FromJson(const nlohmann::json& j,
                                      const std::string& source = "calibration");
};

// The curve of `signal` on the examples that have it (at least 3), with out-of-group residuals
// (in-sample ones, widened by sqrt(n / (n - 2)), when fewer than 3 groups).
Result<Calibration> Fit(const std::vector<Example>& examples, const std::string& signal,
                        const std::string& source);

// Chooses among `candidates` (each measured on every example) and fits the winner.
Result<Calibration> Calibrate(const std::vector<Example>& examples,
                              const std::vector<std::string>& candidates,
                              const std::string& source);

// Right or wrong by doc/design.md's rule ("Forecast correct"); nullopt for an abstention.
std::optional<bool> Correct(const std::string& verdict, std::optional<double> net);

// The signals Calibrate chooses among, in order of preference (ties): gains, whose 0 means "the
// curated quarter is no closer than a random one", as the model form needs, and that carry their
// own interval, as the verdict needs (it does not curate on a signal whose interval covers 0).
const std::vector<std::string>& CandidateSignals();

// The signals whose covered range a calibration records (Calibration::covered): the candidates
// and the signals that say what kind of case a target is (how much of its byte pairs the pool
// holds, how separable it is, how concentrated the curated quarter is).
const std::vector<std::string>& CoverageSignals();

// The sizes of a case a calibration records (Calibration::sizes_seen): the pool's documents and
// text bytes (all its files), and the smaller arm's.
const std::vector<std::string>& SizeNames();

// A size under this fraction of the smallest a calibration saw (an order of magnitude) is "far
// smaller" (Calibration::FarSmaller).
inline constexpr double kFarSmaller = 0.1;

// The sizes of a case from its receipt's `inputs` (role "pool": summed) and the forecast's
// evidence `arms` ({"curated": {"kept_docs", "kept_bytes"}, "random": ...}); a size either lacks
// is absent.
std::map<std::string, double> CaseSizes(const nlohmann::json& inputs, const nlohmann::json& arms);

// Every gain signal, the candidates first: what the held-out figures report alone ("the signals
// that lost"), those without an interval included.
const std::vector<std::string>& GainSignals();

// The fit on the calibration battery (doc/forecast.md has the run).
Calibration DefaultCalibration();

// The labelled examples in a ledger's receipts: each trial receipt whose config names a forecast
// receipt present in the same ledger. A target run again (same name) keeps its latest trial.
std::vector<Example> ExamplesFromReceipts(const std::vector<nlohmann::json>& receipts);

// A signal as a forecast receipt stores it: {"value", "interval": [lo, hi]}.
nlohmann::json SignalToJson(const SignalValue& x);
std::optional<SignalValue> SignalFromJson(const nlohmann::json& j);

nlohmann::json ScaleToJson(const PilotScale& s);

}  // namespace preflight::forecast
