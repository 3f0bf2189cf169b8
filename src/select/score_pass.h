#pragma once
// The scoring pass of a selector that scores documents by their text (dsir, classifier): every
// document of this process's shards, on all its threads; the scores a killed run saved under the
// same model are reused, and each shard's scores are saved once it is done (select/resume.h).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "select/pool_pass.h"

namespace preflight::select {

// Fills `out` [records] with `score(text)` (thread-safe, a function of the text alone) for every
// document, NaN for bad lines. `model` names what `score` computes: results saved under another
// model are not used. Collective.
Status ScorePool(const SelectionContext& ctx, const PoolPass& pool, const std::string& model,
                 const std::function<double(std::string_view)>& score, std::vector<double>* out);

}  // namespace preflight::select
