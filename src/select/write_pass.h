#pragma once
// The last pass of a selection: copy the kept lines byte for byte, in pool order, into one piece
// per shard (select/piece.h), and the annotations into another; name the documents that explain
// the choice. Every shard of this process is read on all its threads at once, each chunk copied
// and compressed on its own; in a group each process writes its own shards' pieces, and the
// leader gathers only their facts and the counts (the outputs are joined from the pieces by
// select/output.h).

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "select/output.h"
#include "select/piece.h"
#include "select/pool_pass.h"
#include "select/scorer.h"

namespace preflight::select {

// What the write pass found (on the leader; in a group the others hold the counts only).
struct WrittenSelection {
  uint64_t kept_docs = 0, kept_bytes = 0;
  // Empty unless the scores explain.
  std::vector<ScoredDoc> top_kept, lowest_kept, lowest_in_pool;
  std::vector<PieceFacts> kept_pieces, note_pieces;  // [plan shards]
  std::vector<KeptCounts> per_file;                  // [plan files]
};

// The documents that explain the choice, among this process's: the `count` highest- and
// lowest-scoring kept ones and the `count` lowest-scoring in the pool (ids are filled in by the
// write pass).
void PickExplained(const PoolPass& pool, const Scores& scores,
                   const std::vector<uint64_t>& kept_local, size_t count, WrittenSelection* out);

// The first `bytes` bytes of `text` on one line (runs of blanks as one space), cut at a
// character boundary, with "…" when cut: how a page or a manifest shows a document.
std::string Excerpt(std::string_view text, size_t bytes = 160);

// The id a document is known by: its `id_field` (a string as is, anything else as JSON text),
// else "<file>:<line>", or for a Parquet row (`row_group` >= 0) "<file>:rg<group>:<row>"
// (corpus::DefaultId).
std::string DocumentId(std::string_view line, const std::string& id_field, const std::string& file,
                       int64_t line_no, int32_t row_group = -1, uint64_t row_in_group = 0);

// One selection's part of the write pass.
struct WriteJob {
  const SelectOptions* options = nullptr;        // its outputs and id field
  const Scores* scores = nullptr;
  const std::vector<uint64_t>* kept = nullptr;   // this process's kept records (global indices)
  const WorkFolder* work = nullptr;              // where its pieces go
  WrittenSelection* out = nullptr;
};

// Writes every job's pieces of this process's shards in one read of them (a shard every job
// already has from a killed run is not read), and gathers what the leader needs. `ctx` gives the
// group, the threads, the read options and the progress. Collective.
Status WriteKept(const SelectionContext& ctx, const PoolPass& pool,
                 const std::vector<WriteJob>& jobs);

}  // namespace preflight::select
