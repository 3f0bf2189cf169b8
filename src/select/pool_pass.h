#pragma once
// The reading passes of a selection, on one process or on each process of a group (group.h):
// the target pass (leader only; what a selector needs of the target is shared with the group),
// and the first pool pass over this process's part of the pool (bytes and validity per record,
// and per-thread feature counts for dsir). The selectors (scorer.h) and the write pass
// (write_pass.h) work on what these return.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"
#include "corpus/scanner.h"
#include "select/cut.h"
#include "select/group.h"
#include "select/selector.h"

namespace preflight::select {

// What one selection run shares with every step: the request and the processes running it.
struct SelectionContext {
  const std::vector<std::string>* pool = nullptr;
  const std::vector<std::string>* target = nullptr;
  const SelectOptions* options = nullptr;
  const StageProgress* progress = nullptr;
  SelectionGroup* group = nullptr;
  CutMethod cut_method = CutMethod::kRadix;

  bool distributed() const { return group->size() > 1; }
  bool leader() const { return group->leader(); }
  int threads() const { return options->threads < 1 ? 1 : options->threads; }
  void Report(const char* stage, uint64_t done, uint64_t total) const {
    if (progress && *progress) (*progress)(stage, done, total);
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

// What the first pool pass keeps of each of this process's records: O(records), never O(bytes).
// Record i of the pool (global index) is local record i - base.
struct PoolPass {
  corpus::ShardSpec shard;         // This process's part (unused alone).
  std::vector<uint8_t> hash_here;  // Inputs this process hashes in a group's write pass.
  uint64_t base = 0;               // Global index of the first local record.
  uint64_t records = 0;            // Local records (documents and bad lines).
  std::vector<uint64_t> bytes;     // [records] text bytes (0 for a bad line).
  std::vector<uint8_t> valid;      // [records] 1 for a document, 0 for a skipped bad line.
  std::vector<std::vector<uint64_t>> counts_by_thread;  // dsir: [threads][buckets].
  corpus::ScanSummary summary;  // Counts of the whole pool (summed over a group).

  // The shard to pass to the corpus scanners: nullptr when this process reads everything.
  const corpus::ShardSpec* ShardOrNull(const SelectionContext& ctx) const {
    return ctx.distributed() ? &shard : nullptr;
  }
};

// Plans this process's part, then reads it once: bytes, validity and (with `count_features`)
// dsir feature counts. Fails (on every process) when the pool has no documents. Collective.
Status ReadPool(const SelectionContext& ctx, bool count_features, PoolPass* out);

// Reads this process's part of the pool again, visiting every document; progress is reported as
// `stage` (none if nullptr). The status is agreed over the group. Collective.
Status RescanPool(const SelectionContext& ctx, const PoolPass& pool,
                  const corpus::DocumentVisitor& visit, const char* stage);

// The budget cut of `local` candidates to `budget` (bytes, or documents when every candidate
// costs 1): TakeByBudget alone, the exact distributed cut in a group. Returns this process's
// taken records as global indices, in increasing order. Collective.
Result<std::vector<uint64_t>> CutCandidates(const SelectionContext& ctx,
                                            std::vector<Candidate> local, uint64_t budget);

}  // namespace preflight::select
