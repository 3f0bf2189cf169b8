#pragma once
// Internal to app/: the pieces of a trial job's output that the job, `report` and `battery`
// share.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "report/trial_report.h"
#include "trial/runner.h"

namespace preflight::app {

struct TrialJob;

// The words of a finished trial (narrate/): its lab record, and a schedule trial's verdict
// sentence (which its result JSON carries).
Status Narrate(TrialJob& job);

// The forecast under test as the trial's result records it: the job's own forecast, else the one
// result.json recorded (a loaded trial), else only the receipt the config names; null for none.
nlohmann::json ForecastUnderTestJson(const TrialJob& job);

// The report's pieces (trial_page.cc). A target file's name without its folder and its endings
// (".jsonl", ".json", ".txt", each optionally ".gz", ".zst", ...): "/x/targets/cj.jsonl.zst" is
// "cj".
std::string TargetStem(const std::string& path);
// The forecast the trial tested; nullopt for a schedule trial or when it tested none.
std::optional<report::ForecastTested> ForecastTestedOf(const TrialJob& job);
// The receipt hash (empty before it is appended) and every input's SHA-256.
report::Provenance ProvenanceOf(const TrialJob& job);
// The selected arm's highest- and lowest-scored documents (its manifest's "explain", with
// excerpts read from the pool) and its documents' share by a source-like field, both read within
// a bound; nullopt when no arm was selected by a scoring selector's name or its file is gone.
// An error only for an unreadable selection manifest.
Result<std::optional<report::Selection>> SelectionOf(const TrialJob& job);

// The held-out file's text bytes, from the outcome's inputs (0 if absent).
int64_t EvalBytes(const trial::TrialOutcome& outcome);

}  // namespace preflight::app
