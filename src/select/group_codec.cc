#include "select/group_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace preflight::select {

void PutU64(std::string& out, uint64_t value) {
  out.append(reinterpret_cast<const char*>(&value), 8);
}

uint64_t GetU64(const std::string& in, size_t pos) {
  uint64_t value = 0;
  std::memcpy(&value, in.data() + pos, 8);
  return value;
}

Result<std::vector<uint64_t>> BroadcastU64(SelectionGroup& group,
                                           const std::vector<uint64_t>& values) {
  std::string bytes;
  if (group.leader())
    for (uint64_t v : values) PutU64(bytes, v);
  PF_RETURN_IF_ERROR(group.Broadcast(&bytes));
  std::vector<uint64_t> out(bytes.size() / 8);
  for (size_t i = 0; i < out.size(); ++i) out[i] = GetU64(bytes, i * 8);
  return out;
}

std::string PackStrings(const std::vector<std::string>& strings) {
  std::string out;
  for (const std::string& s : strings) {
    PutU64(out, s.size());
    out += s;
  }
  return out;
}

Result<std::vector<std::string>> UnpackStrings(const std::string& bytes) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < 8) return Status::Internal("group message: truncated");
    const uint64_t n = GetU64(bytes, pos);
    pos += 8;
    if (bytes.size() - pos < n) return Status::Internal("group message: truncated");
    out.push_back(bytes.substr(pos, n));
    pos += n;
  }
  return out;
}

Result<std::vector<std::string>> GatherStrings(SelectionGroup& group,
                                               const std::vector<std::string>& mine) {
  PF_ASSIGN_OR_RETURN(std::string all, group.GatherToLeader(PackStrings(mine)));
  return UnpackStrings(all);
}

namespace {

std::string EncodeScored(const std::vector<ScoredDoc>& docs) {
  std::string bytes;
  for (const ScoredDoc& d : docs) {
    PutU64(bytes, d.index);
    PutU64(bytes, std::bit_cast<uint64_t>(d.score));
    PutU64(bytes, d.bytes);
    PutU64(bytes, d.id.size());
    bytes += d.id;
    PutU64(bytes, d.genre.size());
    bytes += d.genre;
    PutU64(bytes, d.excerpt.size());
    bytes += d.excerpt;
  }
  return bytes;
}

Result<std::vector<ScoredDoc>> DecodeScored(const std::string& all) {
  std::vector<ScoredDoc> docs;
  for (size_t pos = 0; pos + 32 <= all.size();) {
    ScoredDoc d;
    d.index = GetU64(all, pos);
    d.score = std::bit_cast<double>(GetU64(all, pos + 8));
    d.bytes = GetU64(all, pos + 16);
    const uint64_t id_len = GetU64(all, pos + 24);
    pos += 32;
    d.id = all.substr(pos, id_len);
    pos += id_len;
    if (pos + 8 > all.size()) return Status::Internal("explained documents: truncated message");
    const uint64_t genre_len = GetU64(all, pos);
    pos += 8;
    d.genre = all.substr(pos, genre_len);
    pos += genre_len;
    if (pos + 8 > all.size()) return Status::Internal("explained documents: truncated message");
    const uint64_t excerpt_len = GetU64(all, pos);
    pos += 8;
    d.excerpt = all.substr(pos, excerpt_len);
    pos += excerpt_len;
    docs.push_back(std::move(d));
  }
  return docs;
}

}  // namespace

Result<std::vector<ScoredDoc>> MergeExplained(SelectionGroup& group,
                                              const std::vector<ScoredDoc>& mine, size_t count,
                                              bool lowest) {
  PF_ASSIGN_OR_RETURN(std::string all, group.GatherToLeader(EncodeScored(mine)));
  PF_ASSIGN_OR_RETURN(std::vector<ScoredDoc> docs, DecodeScored(all));
  auto higher = [](const ScoredDoc& a, const ScoredDoc& b) {
    return a.score != b.score ? a.score > b.score : a.index < b.index;
  };
  std::sort(docs.begin(), docs.end(), higher);
  if (lowest) std::reverse(docs.begin(), docs.end());
  if (docs.size() > count) docs.resize(count);
  return docs;
}

}  // namespace preflight::select
