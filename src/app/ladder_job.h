#pragma once
// The ladder a user runs (`preflight ladder`): the same two arms at >= 3 rungs of increasing
// compute, one trial per rung (app/trial_job.h), then the saving's trend against log compute
// (trial/ladder_trend.h), an optional projection, DIR/ladder.html and one "ladder" receipt.
// A keep ladder (--keep with two or more fractions) trains at every rung one keep trial: the
// whole pool in random order beside the selector's top fraction for each value; it adds each
// rung's best fraction and a recommendation of the fraction to keep at a compute
// (app/ladder_keeps.h, trial/keep_choice.h). One --keep value: the ladder of two arms, as ever.
//
// Layout: DIR/rung-<i>-<model>-<steps>/ is rung i's trial folder (1-based), DIR/ladder.json the
// --json document, DIR/ladder.html the page.
// Sharing: the arms are made once, by rung 1's trial; every later rung's folder starts with
// rung 1's arm files (hard links, else copies) and their records, so no rung selects again.
// Each rung's net saving still charges the selection's measured cost (what a trial at that
// scale alone would pay). No rung makes a forecast: every rung's net is charged alike, so the
// trend is not bent by a forecast's cost at one rung (run `preflight forecast` for a verdict).
// Resumable: a rung whose folder holds a finished trial of the same config with its receipt is
// read back (no training, no new trial receipt); an unfinished one resumes (trial/runner.h).
// Every rerun appends one new ladder receipt.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/ladder_keeps.h"
#include "app/trial_job.h"
#include "base/status.h"
#include "engine/config.h"
#include "trial/ladder_trend.h"

namespace preflight::app {

struct LadderRung {
  std::string model_name;
  engine::ModelConfig model;
  int64_t steps = 0;
};

// "tiny:150,tiny:300,small:600" -> [(tiny, 150), ...]; models not resolved here.
// InvalidArgument naming the bad item for anything else.
struct RungSpec {
  std::string model_name;
  int64_t steps = 0;
};
Result<std::vector<RungSpec>> ParseRungs(const std::string& text);

// "--keep 0.05,0.1,0.25,0.5" -> the fractions, in increasing order. One value as the trial's
// --keep reads it (any value in (0, 1]); two or more each in (0, 1) (the baseline keeps 1), each
// once. InvalidArgument naming the bad item otherwise.
Result<std::vector<double>> ParseKeeps(const std::string& text);

// One fraction: base.keep, as today's ladder; two or more: a keep ladder (base.keeps, and
// base.keep = 1, the baseline's).
void SetKeeps(const std::vector<double>& keeps, trial::TrialConfig& base);

// One training run's FLOPs at a rung: FLOPs per token x batch x context x steps.
double RungFlops(const LadderRung& rung);

// InvalidArgument unless there are at least 3 rungs, each of strictly more compute (RungFlops)
// than the one before.
Status CheckRungs(const std::vector<LadderRung>& rungs);

struct LadderRequest {
  trial::TrialConfig base;  // everything but model, steps and out_dir (set per rung)
  std::vector<LadderRung> rungs;
  std::string out_dir;
  std::string ledger_path;
  std::optional<double> project_to;  // FLOPs of one run, for the projection
  // A keep ladder (base.keeps holds two or more fractions): the FLOPs of one run to recommend a
  // fraction for; unset: the largest rung's.
  std::optional<double> at_flops;
  nlohmann::json plan = nullptr;  // the --budget plan, recorded when set
};

struct LadderRungOutcome {
  LadderRung rung;
  std::string out_dir;
  TrialJob trial;
  bool reused = false;  // read back from a finished folder
  double flops = 0;     // RungFlops
  trial::LadderPoint point;
  std::optional<KeepRung> keep;  // a keep ladder's fractions (app/ladder_keeps.h)
};

struct LadderJob {
  std::vector<LadderRungOutcome> rungs;
  trial::LadderTrend trend;
  std::optional<trial::LadderProjection> projection;
  // A keep ladder's trend of the best fraction and its recommendation (trial/keep_choice.h).
  std::optional<trial::KeepTrend> keep_trend;
  std::optional<trial::KeepRecommendation> recommendation;
  std::string page_path;
  std::string receipt_hash;
  double core_seconds = 0, flops = 0;  // all rungs' trials
};

// Rung i's folder name: "rung-<i>-<model>-<steps>" (i 1-based).
std::string RungFolderName(size_t index, const LadderRung& rung);

// Rung i's trial: the base config with the rung's model, steps and folder.
trial::TrialConfig RungConfig(const LadderRequest& request, size_t index);

Result<LadderJob> RunLadderJob(const LadderRequest& request, const TrialObserver& observer = {});

// The `ladder --json` document (doc/design.md, "The command-line contract"), without "receipt"
// (the receipt's result). A keep ladder adds each rung's fractions (KeepRungJson) and the
// top-level "keep_trend" and "recommendation".
nlohmann::json LadderResultJson(const LadderJob& job);
// The document with "receipt".
nlohmann::json LadderJson(const LadderJob& job);
// A table of rungs, the trend line and the projection under PROJECTION.
std::string LadderText(const LadderJob& job);

}  // namespace preflight::app
