#pragma once
// The scoring pass that the selections of a batch share (select/batch.h): every document of this
// process's shards read once, on all its threads, and scored by every selection's scorer
// (scorer.h). Scorers with one fingerprint are computed once; dsir scorers of one feature space
// share one tokenization. A shard whose scores every selection already has from a killed run
// (select/resume.h) is not read; each shard's new scores are saved once it is done.

#include <string>
#include <vector>

#include "base/status.h"
#include "select/pool_pass.h"
#include "select/scorer.h"
#include "select/work_folder.h"

namespace preflight::select {

// One selection's part of the pass.
struct ScoreJob {
  const TextScorer* scorer = nullptr;
  const WorkFolder* work = nullptr;  // Where its scores are kept for a rerun (nullptr: nowhere).
  std::vector<double>* out = nullptr;  // [records]: its scores, NaN for bad lines.
};

// `ctx` gives the group, the threads, the read options and the progress. Collective.
Status ScorePool(const SelectionContext& ctx, const PoolPass& pool,
                 const std::vector<ScoreJob>& jobs);

}  // namespace preflight::select
