#pragma once
// The last pass of a selection: copy the kept lines byte for byte, in pool order, into the
// output; write one annotation line per pool document; name the documents that explain the
// choice. Alone, one sequential read. In a group, each process copies its own part, hashes the
// inputs whose first byte it holds, and streams its lines to the leader in rank order, so the
// leader writes the same bytes as one process would.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "select/output.h"
#include "select/pool_pass.h"
#include "select/scorer.h"

namespace preflight::select {

// What the write pass found (on the leader; in a group the others hold the counts only).
struct WrittenSelection {
  uint64_t kept_docs = 0, kept_bytes = 0;
  // Empty unless the scores explain.
  std::vector<ScoredDoc> top_kept, lowest_kept, lowest_in_pool;
};

// The documents that explain the choice, among this process's: the `count` highest- and
// lowest-scoring kept ones and the `count` lowest-scoring in the pool (ids are filled in by the
// write pass).
void PickExplained(const PoolPass& pool, const Scores& scores,
                   const std::vector<uint64_t>& kept_local, size_t count, WrittenSelection* out);

// The id a document is known by: its `id_field` (a string as is, anything else as JSON text),
// else "<file>:<line>".
std::string DocumentId(std::string_view line, const std::string& id_field, const std::string& file,
                       int64_t line_no);

// Writes the kept lines (and annotations) into `outputs` (leader only; nullptr elsewhere) and
// completes `pool->summary`'s hashes in a group. Collective.
Status WriteKept(const SelectionContext& ctx, PoolPass* pool, const Scores& scores,
                 const std::vector<uint64_t>& kept_local, SelectionOutputs* outputs,
                 WrittenSelection* out);

}  // namespace preflight::select
