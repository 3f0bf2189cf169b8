#pragma once
// Keeps the part of a pool most like a target, or a baseline, to a byte budget.
//
//   random      uniform sample without replacement (Gumbel keys, equal weights)
//   first       the first documents in input order ("whatever came first")
//   dsir        importance resampling over hashed n-grams (dsir.h), Gumbel top-k
//   classifier  fastText P(target | document), highest first (classifier.h)
//
// Budget, one of: keep a fraction of the pool's text bytes (`keep`, the default), `keep_docs`
// documents, or `keep_bytes` text bytes; documents are taken in key order until it is reached; the
// last document taken may cross a byte budget (within one document). A budget larger than the
// pool keeps all of it. Output: the kept lines byte for byte,
// in pool order, and a manifest. Both are written atomically; on any error neither exists. The
// manifest is named first and the kept lines last (select/output.h), with the caller's receipt
// (before_naming_output) between them.
// Deterministic: the same inputs, options and seed give the same bytes for any thread count
// (only the manifest's "cost" block, a measurement, differs), and for any number of MPI ranks.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "corpus/record.h"
#include "select/classifier.h"
#include "select/dsir.h"
#include "select/group.h"

namespace preflight::select {

struct PreparedInputs;   // select/prepared.h
struct SelectionResult;  // below

struct SelectOptions {
  std::string selector = "dsir";
  double keep = 0.25;       // Fraction of the pool's text bytes, in (0, 1].
  uint64_t keep_docs = 0;   // If > 0: keep this many documents instead.
  uint64_t keep_bytes = 0;  // If > 0: keep this many text bytes instead.
  uint64_t seed = 0;
  int threads = 1;
  // A plain JSONL file larger than this is read as several shards (corpus/sharding.h). The kept
  // lines do not depend on it (a compressed output's frames do); tests make it small.
  uint64_t split_bytes = 64ull << 20;
  corpus::ReadOptions read;  // How the pool is read; the target too, but for its fields below.
  // The target files' fields when they differ from the pool's ("" = the pool's: read.text_field,
  // id_field). The kept lines are the pool's, byte for byte; only the target is read with these.
  std::string target_text_field, target_id_field;
  DsirOptions dsir;
  ClassifierOptions classifier;
  std::string mpi_cut = "radix";  // Budget cut across MPI ranks: radix | gather (cut.h).
  // Kept documents: a file (JSONL; ".zst" or ".gz" compresses), or with a trailing '/' (or an
  // existing folder) a folder of one file per pool file, named and compressed as it.
  std::string out_path;
  std::string manifest_path;    // Default: ManifestPath().
  std::string annotate_path;    // One {"id","score","kept"} line per pool document; "": none.
  std::string id_field = "id";  // A document's id (else "<file>:<line>").
  // Called by the leader once the manifest is named and before the kept documents are (the
  // last step): the caller's record of the selection, its receipt. An error stops the
  // selection: the manifest is removed, no output is named, and the error is returned.
  std::function<Status(const SelectionResult&)> before_naming_output;

  Status Validate() const;
  // How the target is read: `read` with the target's text field.
  corpus::ReadOptions TargetRead() const;
  // The target's id field (target_id_field, else id_field).
  const std::string& TargetIdField() const;
  // Where the manifest goes: manifest_path, else --out (without a trailing '/') +
  // ".manifest.json".
  std::string ManifestPath() const;
  // The budget asked for, as the manifest records it: "keep", "keep_docs" or "keep_bytes".
  const char* BudgetFlag() const;
};

// A kept document and the score that chose it (dsir: log importance weight; classifier: P(target)).
struct ScoredDoc {
  uint64_t index = 0;
  std::string id;     // The line's "id", or "<file>:<line>" when it has none.
  std::string genre;  // The line's "genre" field, if any (the Brown battery has one).
  double score = 0;
  uint64_t bytes = 0;
  std::string excerpt;  // The start of its text on one line (select/write_pass.h, Excerpt).
};

// A bad line skipped under --skip-bad: where ("<file>:<line>", or a folder's file) and why.
struct SkippedLine {
  std::string where;
  std::string why;
};

struct SelectionResult {
  nlohmann::json manifest;             // As written (doc/select.md).
  std::vector<ScoredDoc> top_kept;     // The highest-scoring kept documents (dsir, classifier).
  std::vector<ScoredDoc> bottom_kept;  // The lowest-scoring kept documents, lowest first (same).
  std::vector<ScoredDoc> bottom_pool;  // The lowest-scoring pool documents (dsir, classifier).
  uint64_t pool_docs = 0, pool_bytes = 0, kept_docs = 0, kept_bytes = 0;
  uint64_t budget_bytes = 0;  // The byte budget (0 under a document budget).
  uint64_t budget_docs = 0;   // The document budget (0 under a byte budget).
  double core_seconds = 0, wall_seconds = 0;
  // Typed, for callers that reuse one selection (e.g. a forecast and a trial's arms). Alone they
  // cover the whole pool; in a group of processes, only this process's records, from
  // `first_index` on. Indices are Record::index (pool records, bad lines included).
  uint64_t first_index = 0;
  std::vector<uint64_t> kept;  // Kept record indices, increasing.
  // [records]: the selector's score of record first_index + i (dsir: log importance weight;
  // classifier: P(target); random: Gumbel key); NaN for bad lines and for the `first` selector.
  std::vector<double> scores;
  // Skipped bad lines of the pool, then of the target, in file order (on the leader): the first
  // few only (kSkippedListed); skipped_bad_lines in the manifest counts them all.
  std::vector<SkippedLine> skipped;
  uint64_t skipped_count = 0;
  // --out held an output without its manifest (an interrupted run's), now replaced (leader).
  bool replaced_orphan = false;
};

// How many skipped lines a selection lists (it counts them all).
inline constexpr size_t kSkippedListed = 10;

// `progress` hears each pass as a stage ("target", "pool", "score", "write"): bytes read from
// disk of the pass's total, from the reading threads one at a time (corpus/shard_scan.h).
// `group`: the processes that run this selection together (group.h; nullptr: this process
// alone). In a group of several, each reads its own line-aligned byte range of the pool, and the
// leader (rank 0) reads the target, trains the classifier, reads the whole pool once more to copy
// the kept lines and hash the inputs, and writes both outputs after every process succeeded;
// the other processes return a result with only the counts filled in. The outputs are the same
// bytes as this process alone would write, except the manifest's "cost" block.
// `prepared`: the pool's and the target's first passes, made ahead (select/prepared.h); used
// instead of reading them again when they serve this selection (same inputs and read options,
// what the selector needs), alone only. The outputs are the same bytes either way.
Result<SelectionResult> RunSelection(const std::vector<std::string>& pool,
                                     const std::vector<std::string>& target,
                                     const SelectOptions& options, const ProgressFn& progress = {},
                                     SelectionGroup* group = nullptr,
                                     const PreparedInputs* prepared = nullptr);

// The selectors by name, for --help and validation.
const std::vector<std::string>& SelectorNames();

// A manifest's "inputs" as a receipt lists them: one {"role" ("pool" or "target_select"),
// "path", "sha256", "docs", "bytes"} per pool file, then per target file.
nlohmann::json ReceiptInputs(const nlohmann::json& manifest_inputs);

}  // namespace preflight::select
