#pragma once
// Several selections from one pool that read it together: a trial's arms, a forecast's
// cross-fitted halves, a ladder's fractions. The pool is read once for the first pass (or not at
// all, when `prepared` holds it), once for the scoring pass of every selector that scores by text
// (each distinct model computed once, dsir models of one feature space in one tokenization), and
// once for the write pass that writes every selection's outputs. The classifier alone reads the
// pool once more, for its negatives. Each selection's outputs, manifest and receipt
// (SelectOptions::before_naming_output) are those it would have alone, but for the manifest's
// cost block, where each selection is charged its own steps and an equal share of the passes it
// shared, and its "passes" count what the batch read.

#include <string>
#include <vector>

#include "base/status.h"
#include "select/group.h"
#include "select/selector.h"

namespace preflight::select {

struct PreparedInputs;  // select/prepared.h

// One selection of a batch: its target and options.
struct SelectionRequest {
  std::vector<std::string> target;
  SelectOptions options;
};

// The requests' pool read options (fields, limits, --skip-bad), threads and shard size must
// agree (InvalidArgument otherwise). Results in the requests' order. Collective in a group.
Result<std::vector<SelectionResult>> RunSelections(const std::vector<std::string>& pool,
                                                   const std::vector<SelectionRequest>& requests,
                                                   const ProgressFn& progress = {},
                                                   SelectionGroup* group = nullptr,
                                                   const PreparedInputs* prepared = nullptr);

}  // namespace preflight::select
