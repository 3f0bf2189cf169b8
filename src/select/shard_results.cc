#include "select/shard_results.h"

#include <atomic>
#include <thread>

#include "corpus/scanner.h"
#include "select/resume.h"

namespace preflight::select {

std::string PoolResultKey(const corpus::Sharding& sharding, uint32_t shard, const SelectOptions& o,
                          bool count_features) {
  const std::string features =
      count_features ? std::to_string(o.dsir.buckets) + "/" + std::to_string(o.dsir.ngrams) : "-";
  return KeyOf({"pool 1", ShardIdentity(sharding, shard), o.read.text_field,
                std::to_string(o.read.max_document_bytes), o.read.skip_bad ? "skip" : "strict",
                features});
}

Status SaveShardResult(const WorkFolder& work, uint32_t shard, const std::string& key,
                       const ShardResult& r) {
  nlohmann::json bad = nlohmann::json::array();
  for (const corpus::BadRecord& b : r.read.bad) bad.push_back({b.record, b.line_no, b.reason});
  const nlohmann::json header = {{"records", r.read.records},
                                 {"lines", r.read.lines},
                                 {"blank", r.read.blank},
                                 {"disk_bytes", r.read.disk_bytes},
                                 {"file_sha256", r.read.file_sha256},
                                 {"file_bytes", r.read.file_bytes},
                                 {"skipped_bom", r.read.skipped_bom},
                                 {"docs", r.docs},
                                 {"text_bytes", r.text_bytes},
                                 {"bad", bad}};
  return SaveResult(work, "pool-" + std::to_string(shard), key, header,
                    {BlobOf(r.bytes), BlobOf(r.valid), BlobOf(r.counts)});
}

std::optional<ShardResult> LoadShardResult(const WorkFolder& work, uint32_t shard,
                                           const std::string& key, bool count_features,
                                           uint32_t buckets) {
  auto saved = LoadResult(work, "pool-" + std::to_string(shard), key);
  if (!saved || saved->blobs.size() != 3) return std::nullopt;
  const nlohmann::json& h = saved->header;
  ShardResult r;
  try {
    r.read.shard = shard;
    r.read.records = h.at("records");
    r.read.lines = h.at("lines");
    r.read.blank = h.at("blank");
    r.read.disk_bytes = h.at("disk_bytes");
    r.read.file_sha256 = h.at("file_sha256");
    r.read.file_bytes = h.at("file_bytes");
    r.read.skipped_bom = h.at("skipped_bom");
    r.docs = h.at("docs");
    r.text_bytes = h.at("text_bytes");
    for (const auto& b : h.at("bad")) r.read.bad.push_back({shard, b.at(0), b.at(1), b.at(2)});
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // Not what this version writes: recomputed.
  }
  auto bytes = VectorOf<uint64_t>(saved->blobs[0], r.read.records);
  auto valid = VectorOf<uint8_t>(saved->blobs[1], r.read.records);
  auto counts = VectorOf<uint64_t>(saved->blobs[2], count_features ? buckets : 0);
  if (!bytes || !valid || !counts) return std::nullopt;
  r.bytes = std::move(*bytes);
  r.valid = std::move(*valid);
  r.counts = std::move(*counts);
  r.done = true;
  return r;
}

Result<std::vector<uint32_t>> ChangedFiles(const corpus::Sharding& sharding,
                                           const std::vector<uint32_t>& shards,
                                           const std::vector<ShardResult>& results, int threads) {
  std::vector<size_t> check;  // positions in `shards` of loaded results that hash their file
  for (size_t i = 0; i < shards.size(); ++i) {
    if (results[i].done && !results[i].read.file_sha256.empty()) check.push_back(i);
  }
  std::vector<Status> failed(check.size());
  std::vector<uint8_t> changed(check.size(), 0);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < check.size(); k = next++) {
      const ShardResult& r = results[check[k]];
      auto hashed = corpus::HashInput(sharding.FileOf(shards[check[k]]).path);
      if (!hashed.ok()) {
        failed[k] = hashed.status();
      } else {
        changed[k] =
            hashed->sha256 != r.read.file_sha256 || hashed->file_bytes != r.read.file_bytes;
      }
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < std::max(1, threads); ++t) helpers.emplace_back(work);
  work();
  for (std::thread& h : helpers) h.join();
  std::vector<uint32_t> out;
  for (size_t k = 0; k < check.size(); ++k) {
    PF_RETURN_IF_ERROR(failed[k]);
    if (changed[k]) out.push_back(sharding.shards[shards[check[k]]].file);
  }
  return out;
}

}  // namespace preflight::select
