#include "select/resume.h"

#include <cstring>

#include "base/file.h"
#include "base/json.h"
#include "base/sha256.h"

namespace preflight::select {
namespace {

constexpr std::string_view kMagic = "preflight-pass-result 1\n";

void PutSize(std::string& out, uint64_t n) { out.append(reinterpret_cast<const char*>(&n), 8); }

bool GetSize(const std::string& in, size_t& at, uint64_t* n) {
  if (in.size() - at < 8) return false;
  std::memcpy(n, in.data() + at, 8);
  at += 8;
  return true;
}

}  // namespace

std::string KeyOf(std::initializer_list<std::string_view> parts) {
  Sha256 sha;
  for (std::string_view p : parts) {
    sha.Update(p);
    sha.Update(std::string_view("\0", 1));
  }
  return sha.HexDigest();
}

std::string ShardIdentity(const corpus::Sharding& sharding, uint32_t shard) {
  const corpus::Shard& s = sharding.shards[shard];
  const corpus::ShardedFile& f = sharding.files[s.file];
  return f.path + "\n" + std::to_string(f.size) + "\n" + std::to_string(f.mtime_ns) + "\n" +
         std::to_string(s.begin) + "-" + std::to_string(s.end);
}

Status SaveResult(const WorkFolder& work, const std::string& name, const std::string& key,
                  const nlohmann::json& header, const std::vector<std::string_view>& blobs) {
  std::string out(kMagic);
  const std::string head = nlohmann::json{{"key", key}, {"header", header}}.dump();
  PutSize(out, head.size());
  out += head;
  PutSize(out, blobs.size());
  for (std::string_view b : blobs) {
    PutSize(out, b.size());
    out.append(b);
  }
  return WriteScratchFile(work.File(name), out);
}

std::optional<SavedResult> LoadResult(const WorkFolder& work, const std::string& name,
                                      const std::string& key) {
  auto bytes = ReadFileToString(work.File(name));
  if (!bytes.ok() || bytes->compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
  const std::string& in = *bytes;
  size_t at = kMagic.size();
  uint64_t n = 0;
  if (!GetSize(in, at, &n) || in.size() - at < n) return std::nullopt;
  auto head = nlohmann::json::parse(in.substr(at, n), nullptr, false);
  at += n;
  Result<std::string> saved_key = JsonReader(head, work.File(name)).String("key", "");
  if (!saved_key.ok() || *saved_key != key || !head.contains("header")) return std::nullopt;
  SavedResult r;
  r.header = head["header"];
  uint64_t count = 0;
  if (!GetSize(in, at, &count) || count > in.size()) return std::nullopt;
  for (uint64_t i = 0; i < count; ++i) {
    if (!GetSize(in, at, &n) || in.size() - at < n) return std::nullopt;
    r.blobs.push_back(in.substr(at, n));
    at += n;
  }
  if (at != in.size()) return std::nullopt;
  return r;
}

}  // namespace preflight::select
