#pragma once
// What a selection's passes leave in its work folder (select/work_folder.h) so that a rerun after
// a kill reuses them instead of reading again: one file per shard and pass ("pool-17" the first
// pass's counts, "score-17" the selector's scores, "piece-17" the facts of its written pieces),
// each headed by a key, the SHA-256 of everything the result depends on: the shard's identity
// (file, size, modification time, byte range), the read options, and for scores the model, for
// pieces the kept set. A rerun uses a file only when its key is the one it computes now;
// anything else is recomputed and overwritten. Files are written atomically, so a kill leaves a
// whole file or none.
//
// A file that changed in place without changing its size or modification time is caught only
// through its SHA-256, which a rerun reads again for every file whose first pass it reuses
// (select/pool_pass.cc): a changed file's results are all dropped.

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "corpus/sharding.h"
#include "select/work_folder.h"

namespace preflight::select {

// SHA-256 (hex) of the parts, each followed by a NUL byte.
std::string KeyOf(std::initializer_list<std::string_view> parts);

// What names a shard's bytes: its file's path, size and modification time, and its range.
std::string ShardIdentity(const corpus::Sharding& sharding, uint32_t shard);

// A pass's saved result: a JSON header and binary blobs (native byte order: a rerun runs on the
// same kind of machine).
struct SavedResult {
  nlohmann::json header;
  std::vector<std::string> blobs;
};

// Writes `name` in `work` atomically.
Status SaveResult(const WorkFolder& work, const std::string& name, const std::string& key,
                  const nlohmann::json& header, const std::vector<std::string_view>& blobs);
// The result saved as `name` under `key`; nullopt when there is none, it has another key, or it
// cannot be read whole.
std::optional<SavedResult> LoadResult(const WorkFolder& work, const std::string& name,
                                      const std::string& key);

// A vector's bytes as a blob, and back (nullopt when the size does not fit).
template <typename T>
std::string_view BlobOf(const std::vector<T>& v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
template <typename T>
std::optional<std::vector<T>> VectorOf(const std::string& blob, size_t expected) {
  if (blob.size() != expected * sizeof(T)) return std::nullopt;
  std::vector<T> v(expected);
  if (expected > 0) std::memcpy(v.data(), blob.data(), blob.size());
  return v;
}

}  // namespace preflight::select
