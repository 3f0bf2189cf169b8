#pragma once
// The reading passes of a selection, on one process or on each process of a group (group.h).
// The pool is cut into shards (corpus/sharding.h) and every pass reads its shards on all
// threads at once (corpus/shard_scan.h); in a group each process reads a contiguous block of
// shards. The target pass (leader only; what a selector needs of the target is shared with the
// group) and the first pool pass (bytes and validity per record, per-thread dsir feature counts,
// every file's SHA-256 in the same read) are here; the selectors (scorer.h) and the write pass
// (write_pass.h) work on what these return.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"
#include "corpus/scanner.h"
#include "corpus/sharding.h"
#include "select/cut.h"
#include "select/group.h"
#include "select/selector.h"

namespace preflight::select {

class WorkFolder;  // select/work_folder.h

// What one selection run shares with every step: the request and the processes running it.
struct SelectionContext {
  const std::vector<std::string>* pool = nullptr;
  const std::vector<std::string>* target = nullptr;
  const SelectOptions* options = nullptr;
  const ProgressFn* progress = nullptr;
  SelectionGroup* group = nullptr;
  CutMethod cut_method = CutMethod::kRadix;
  WorkFolder* work = nullptr;  // Where passes keep their results for a rerun; nullptr: nowhere.

  bool distributed() const { return group->size() > 1; }
  bool leader() const { return group->leader(); }
  int threads() const { return options->threads < 1 ? 1 : options->threads; }
  // A read's report (corpus's stage "read") passed on as this selection's stage `stage`.
  void Report(const char* stage, const ProgressReport& read) const {
    if (!progress || !*progress) return;
    ProgressReport r = read;
    r.stage = stage;
    (*progress)(r);
  }
};

// What the target pass keeps: its summary (on the leader; in a group the others hold only
// text_bytes), dsir's feature counts (on every process) and the classifier's texts (leader).
struct TargetPass {
  corpus::ScanSummary summary;
  std::vector<uint64_t> counts;
  std::vector<std::string> texts;
};

enum class TargetNeed { kNothing, kFeatureCounts, kTexts };

// Reads the target on the leader and shares what the others need of it. Collective.
Status ReadTarget(const SelectionContext& ctx, TargetNeed need, TargetPass* out);

// Reads the whole target on this process alone, every line checked whatever is needed of it:
// its summary, with dsir's feature counts (`counts`) and the classifier's texts (`texts`). For
// passes made ahead of a selection (prepared.h). InvalidArgument when it has no documents.
Status ScanTargetHere(const SelectionContext& ctx, bool counts, bool texts, TargetPass* out);

// What one shard of the pool held, as the first pass counted it.
struct ShardCounts {
  uint64_t records = 0, lines = 0, docs = 0, text_bytes = 0, bad = 0, blank = 0;
};

// What the first pool pass keeps: O(records + shards), never O(bytes). This process's records
// are the global indices [base, base + records): the records of its shards, which are
// contiguous.
struct PoolPass {
  corpus::Sharding sharding;
  uint32_t first_shard = 0, end_shard = 0;  // This process's shards: [first_shard, end_shard).
  std::vector<ShardCounts> shards;          // [sharding.shards], summed over a group.
  std::vector<uint64_t> shard_base;         // [sharding.shards]: global index of its first record.
  std::vector<int64_t> lines_before;        // [sharding.shards]: lines of its file before it.
  std::vector<std::string> file_sha256;     // [sharding.files].
  uint64_t base = 0;                        // Global index of this process's first record.
  uint64_t records = 0;                     // This process's records (documents and bad lines).
  std::vector<uint64_t> bytes;              // [records] text bytes (0 for a bad line).
  std::vector<uint8_t> valid;               // [records] 1 for a document, 0 for a bad line.
  std::vector<uint64_t> counts;             // dsir: [buckets], this process's shards.
  corpus::ScanSummary summary;  // Counts of the whole pool per input (summed over a group).
  // [sharding.shards]: how often this process read each shard, every pass counted (the first, a
  // rerun's hash checks, the selector's, the write pass): the manifest's cost.passes. Not part
  // of the pass's result, so passes that only read the pool count into it.
  mutable std::vector<uint64_t> reads;

  std::vector<uint32_t> MyShards() const;
  // What names shard `shard`'s bytes in the results of later passes (select/resume.h): its
  // identity and its file's SHA-256.
  std::string Identity(uint32_t shard) const;
  void CountReads(const std::vector<uint32_t>& shards) const;
};

// Shards the pool's shards, deals this process its block, and reads it once: bytes, validity and
// (with `count_features`) dsir feature counts, and the files' hashes. Fails (on every process)
// when the pool has no documents. Collective.
Status ReadPool(const SelectionContext& ctx, bool count_features, PoolPass* out);

// Called for every document of this process's shards: the thread (in [0, threads)), the record's
// global index and its text. Several threads at once; write to per-record or per-thread slots.
using PoolVisitor = std::function<void(int thread, uint64_t index, std::string_view text)>;

// Reads `shards` (some of this process's) again, visiting every document; progress is reported
// as `stage` (none if nullptr). `shard_done` (optional) is called once per shard read to its end,
// after all its documents were visited. The status is agreed over the group. Collective.
Status RescanPool(const SelectionContext& ctx, const PoolPass& pool,
                  const std::vector<uint32_t>& shards, const PoolVisitor& visit, const char* stage,
                  const std::function<Status(uint32_t shard)>& shard_done = {});

// The budget cut of `local` candidates to `budget` (bytes, or documents when every candidate
// costs 1): TakeByBudget alone, the exact distributed cut in a group. Returns this process's
// taken records as global indices, in increasing order. Collective.
Result<std::vector<uint64_t>> CutCandidates(const SelectionContext& ctx,
                                            std::vector<Candidate> local, uint64_t budget);

}  // namespace preflight::select
