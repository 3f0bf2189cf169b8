#pragma once
// What the first pool pass found in one shard, kept in memory until the pass ends and saved in
// the work folder for a rerun (select/resume.h): its read (counts, hash, bad lines), its
// documents' bytes and validity, and dsir's feature counts.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "corpus/shard_scan.h"
#include "corpus/sharding.h"
#include "select/selector.h"
#include "select/work_folder.h"

namespace preflight::select {

struct ShardResult {
  bool done = false;
  corpus::ShardRead read;
  uint64_t docs = 0, text_bytes = 0;
  std::vector<uint64_t> bytes;   // [read.records]
  std::vector<uint8_t> valid;    // [read.records]
  std::vector<uint64_t> counts;  // [buckets] when the pass counted features
};

// The key of a first-pass result of `shard`: its identity and what the pass read it with.
std::string PoolResultKey(const corpus::Sharding& sharding, uint32_t shard, const SelectOptions& o,
                          bool count_features);

Status SaveShardResult(const WorkFolder& work, uint32_t shard, const std::string& key,
                       const ShardResult& result);
// nullopt when there is none under `key`.
std::optional<ShardResult> LoadShardResult(const WorkFolder& work, uint32_t shard,
                                           const std::string& key, bool count_features,
                                           uint32_t buckets);

// For every file whose whole-file hash a loaded result holds: the file read again and hashed.
// Returns the files whose bytes differ from what the killed run read (their results must go).
Result<std::vector<uint32_t>> ChangedFiles(const corpus::Sharding& sharding,
                                           const std::vector<uint32_t>& shards,
                                           const std::vector<ShardResult>& results, int threads);

}  // namespace preflight::select
