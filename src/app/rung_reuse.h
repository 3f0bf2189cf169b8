#pragma once
// A ladder rung that a finished trial already ran (doc/ladder.md, "Reuse"): before a rung's
// folder is started, a finished trial of the same fingerprint lends the rung its arms and its
// finished runs, so that no training run is done twice (the demo's trial is its ladder's rung 2;
// `ladder` after a `trial` of the same arms and config). The rung's trial then runs as a resumed
// one (trial/runner.h): it finds every run done, computes its numbers with its own accounting
// (no forecast is charged to a rung) and writes its own result, report and receipt.
//
// Same fingerprint: TrialConfig::ToJson() equal but for "forecast" (the folder is not part of
// it): the inputs, selector, keep, seeds, model, steps, evals, learning rate and threads.
// A finished trial that differs only in those training settings (model, steps, seeds, evals,
// lr, threads) lends its arms alone, with their regime scores when its eval windows (context
// and window count) are the same: the rung selects nothing, and trains its own runs.
// Where it looks, in this order: the ladder's folder DIR itself (`trial --out DIR`), then every
// folder directly inside DIR's parent (a trial beside the ladder: `trial --out runs/t`,
// `ladder --out runs/l`), in sorted order; the first finished trial that lends runs wins,
// else the first that lends arms. Folders that hold no finished trial, or a damaged or foreign
// trial.json, are passed over.

#include <string>

#include "base/status.h"
#include "trial/run_folder.h"
#include "trial/runner.h"

namespace preflight::app {

// Whether a finished trial of `a` would lend a rung of `b` its runs: the same fingerprint.
bool SameRuns(const trial::TrialConfig& a, const trial::TrialConfig& b);

// Starts the trial folder `config.out_dir` with the arms of the trial folder `from_dir` (whose
// manifest is `from`): the arm files and their selection manifests as hard links (else copies
// renamed into place) and their records, the regime scores kept only when the eval windows
// (context, window count) are the same; with `with_runs`, also every finished run's record.
// The folder's config is `config`'s; nothing is charged for a forecast.
Status LendTrial(const std::string& from_dir, const trial::RunFolderManifest& from,
                 const trial::TrialConfig& config, bool with_runs);

// When `config.out_dir` holds no trial.json yet and a donor is found: starts the rung's folder
// with the donor's arms (hard links, else copies renamed into place) and records, and, with a
// full match, its finished runs' records. Returns what was reused, for the progress line
// ("the runs of the finished trial in out/demo/trial-cj"), or "" when nothing was.
Result<std::string> SeedRungFromFinishedTrial(const std::string& ladder_dir,
                                              const trial::TrialConfig& config);

}  // namespace preflight::app
