#pragma once
// A measured compute saving read from a trial's result.json (or its ledger receipt, where the
// same object sits under "result"), with what a dollar projection from it must say beside it:
// the pilot's scale (model, parameters, steps, tokens) and its regime check (did the pilot learn
// more than byte n-gram statistics? doc/design.md, "The metrics, exactly"). A pilot whose regime
// check is missing or says uninformative gets no dollar interval; an informative one gets dollar
// figures rounded to two significant figures, because a small pilot does not support more.
//
// The file is read through base/json.h: a damaged file is Corruption naming the file and the
// JSON path ("trial/result.json: $.compute_saved.net: expected a number, found a string").

#include <optional>
#include <string>

#include "base/status.h"
#include "cost/cost_estimate.h"

namespace preflight::cost {

// What the pilot was; each field is absent when the file does not record it.
struct PilotScale {
  std::optional<std::string> model;  // model.name, or config.model
  std::optional<double> params;      // model.params, or params
  std::optional<double> steps;       // budget_steps, steps, or config.steps
  std::optional<double> tokens;      // tokens, or compute.runs[0].tokens: one run's tokens
};

struct PilotRegime {
  std::optional<bool> informative;  // absent: the file has no regime check
  std::optional<double> margin;     // best n-gram bits/byte minus the pilot's, when recorded
};

struct PilotSaving {
  MeasuredSaving saving;
  PilotScale scale;
  PilotRegime regime;
};

// Reads result.compute_saved.net (a number below 1; "ci95" [lo, hi] beside it when present),
// the scale and the regime. NotFound for a missing file; Corruption for a file that is not JSON
// or a field of the wrong type (naming the JSON path); InvalidArgument for a receipt of another
// kind, an arm that never caught up, or a fraction outside (-inf, 1).
Result<PilotSaving> ReadPilotSaving(const std::string& path);

// Empty when a dollar interval may be drawn from this pilot; otherwise the reason there is none:
// "no dollar interval: the pilot's regime check calls it uninformative" or "... has no regime
// check".
std::string DollarIntervalWithheld(const PilotRegime& regime);

// "the tiny pilot (1.2M params, 400 steps, 3.28M tokens per run)"; unrecorded fields are left
// out, and a pilot with none says "the pilot (scale not recorded)".
std::string DescribePilotScale(const PilotScale& scale);

// "informative (margin 0.21 bits/byte)", "uninformative (margin -0.03 bits/byte)" or "not checked
// (no regime in the file)".
std::string DescribeRegime(const PilotRegime& regime);

// x rounded to `digits` significant figures (1234567 -> 1200000 with 2); 0 and non-finite
// values are returned unchanged.
double RoundSignificant(double x, int digits);

}  // namespace preflight::cost
