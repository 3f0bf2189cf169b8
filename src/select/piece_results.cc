#include "select/piece_results.h"

#include <optional>

#include "base/file.h"
#include "select/output.h"
#include "select/resume.h"

namespace preflight::select {

namespace {

nlohmann::json FactsJson(const PieceFacts& f) {
  return {f.path, f.file_sha256, f.content_sha256, f.file_bytes, f.content_bytes};
}

// The facts of a piece saved by a killed run, if its file is there whole.
std::optional<PieceFacts> FactsOf(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 5) return std::nullopt;
  PieceFacts f{j[0], j[1], j[2], j[3], j[4]};
  if (f.path.empty()) return f;  // No piece (no annotations asked for).
  auto size = FileSize(f.path);
  if (!size.ok() || *size != f.file_bytes) return std::nullopt;
  return f;
}

}  // namespace

// The explained documents (select/write_pass.h) among shard `shard`'s records.
std::vector<ScoredDoc*> ExplainedIn(const PoolPass& pool, uint32_t shard, WrittenSelection& w) {
  std::vector<ScoredDoc*> out;
  const uint64_t first = pool.shard_base[shard], end = first + pool.shards[shard].records;
  for (auto* list : {&w.top_kept, &w.lowest_kept, &w.lowest_in_pool}) {
    for (ScoredDoc& d : *list) {
      if (d.index >= first && d.index < end) out.push_back(&d);
    }
  }
  return out;
}

Status SavePieces(const WorkFolder& work, const PoolPass& pool, uint32_t shard,
                  const std::string& key, const KeptCounts& counts, WrittenSelection& w) {
  nlohmann::json explained = nlohmann::json::array();
  for (const ScoredDoc* d : ExplainedIn(pool, shard, w)) {
    explained.push_back({d->index, d->id, d->genre, d->excerpt});
  }
  const nlohmann::json header = {{"kept", FactsJson(w.kept_pieces[shard])},
                                 {"notes", FactsJson(w.note_pieces[shard])},
                                 {"docs", counts.docs},
                                 {"text_bytes", counts.text_bytes},
                                 {"explained", explained}};
  return SaveResult(work, "piece-" + std::to_string(shard), key, header, {});
}

bool LoadPieces(const WorkFolder& work, const PoolPass& pool, uint32_t shard,
                const std::string& key, KeptCounts* counts, WrittenSelection& w) {
  auto saved = LoadResult(work, "piece-" + std::to_string(shard), key);
  if (!saved) return false;
  try {
    const nlohmann::json& h = saved->header;
    auto kept = FactsOf(h.at("kept"));
    auto notes = FactsOf(h.at("notes"));
    if (!kept || !notes) return false;
    w.kept_pieces[shard] = std::move(*kept);
    w.note_pieces[shard] = std::move(*notes);
    counts->docs = h.at("docs");
    counts->text_bytes = h.at("text_bytes");
    for (ScoredDoc* d : ExplainedIn(pool, shard, w)) {
      for (const auto& e : h.at("explained")) {
        if (e.at(0).get<uint64_t>() != d->index) continue;
        d->id = e.at(1);
        d->genre = e.at(2);
        d->excerpt = e.at(3);
      }
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

std::string PieceKey(const SelectOptions& o, const PoolPass& pool, const Scores& scores,
                     const std::vector<uint8_t>& kept_flag, uint32_t shard) {
  const uint64_t first = pool.shard_base[shard] - pool.base, n = pool.shards[shard].records;
  const std::string_view flags(reinterpret_cast<const char*>(kept_flag.data() + first), n);
  return KeyOf({"piece 1", pool.Identity(shard), flags,
                CompressionName(KeptCompressionOf(o.out_path, pool.sharding, shard)),
                o.annotate_path.empty() ? "-" : CompressionName(CompressionFor(o.annotate_path)),
                o.id_field, o.read.text_field, scores.model});
}

}  // namespace preflight::select
