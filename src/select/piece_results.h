#pragma once
// What the write pass (select/write_pass.h) keeps in a selection's work folder for each shard
// it finished, so that a rerun after a kill does not write it again (select/resume.h): the facts
// of its pieces, what was kept, and the ids of the explained documents among its records.

#include <string>
#include <vector>

#include "base/status.h"
#include "select/pool_pass.h"
#include "select/scorer.h"
#include "select/work_folder.h"
#include "select/write_pass.h"

namespace preflight::select {

// What a shard's pieces depend on: its bytes, which of its records are kept, how the pieces are
// written, and (annotations) the scores.
std::string PieceKey(const SelectOptions& o, const PoolPass& pool, const Scores& scores,
                     const std::vector<uint8_t>& kept_flag, uint32_t shard);

// The explained documents of `w` among shard `shard`'s records.
std::vector<ScoredDoc*> ExplainedIn(const PoolPass& pool, uint32_t shard, WrittenSelection& w);

// Saves what the write pass made of `shard` under `key`.
Status SavePieces(const WorkFolder& work, const PoolPass& pool, uint32_t shard,
                  const std::string& key, const KeptCounts& counts, WrittenSelection& w);
// The pieces a killed run finished for `shard`, if they are there whole: fills w's pieces and
// explained ids, and `counts`.
bool LoadPieces(const WorkFolder& work, const PoolPass& pool, uint32_t shard,
                const std::string& key, KeptCounts* counts, WrittenSelection& w);

}  // namespace preflight::select
