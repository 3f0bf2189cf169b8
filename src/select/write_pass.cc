#include "select/write_pass.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "corpus/shard_scan.h"
#include "base/file.h"
#include "select/group_codec.h"
#include "select/resume.h"

namespace preflight::select {
namespace {

// One annotation line: {"id":...,"score":...,"kept":...} (score null where there is none).
void AppendAnnotation(std::string& out, const std::string& id, double score, bool kept) {
  out += "{\"id\":";
  out += nlohmann::json(id).dump();
  out += ",\"score\":";
  out += std::isfinite(score) ? nlohmann::json(score).dump() : std::string("null");
  out += kept ? ",\"kept\":true}\n" : ",\"kept\":false}\n";
}

const char* const kChanged = "the pool changed while it was being read (re-run the selection)";

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

// What the write pass made of a shard, for a rerun: its pieces, counts and explained ids.
Status SavePieces(const WorkFolder& work, const PoolPass& pool, uint32_t shard,
                  const std::string& key, const KeptCounts& counts, WrittenSelection& w) {
  nlohmann::json explained = nlohmann::json::array();
  for (const ScoredDoc* d : ExplainedIn(pool, shard, w)) {
    explained.push_back({d->index, d->id, d->genre});
  }
  const nlohmann::json header = {{"kept", FactsJson(w.kept_pieces[shard])},
                                 {"notes", FactsJson(w.note_pieces[shard])},
                                 {"docs", counts.docs},
                                 {"text_bytes", counts.text_bytes},
                                 {"explained", explained}};
  return SaveResult(work, "piece-" + std::to_string(shard), key, header, {});
}

// The pieces a killed run finished for `shard`, if they are there whole.
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
      }
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

// What a shard's pieces depend on: its bytes, which of its records are kept, how the pieces
// are written, and (annotations) the scores.
std::string PieceKey(const SelectionContext& ctx, const PoolPass& pool, const Scores& scores,
                     const std::vector<uint8_t>& kept_flag, uint32_t shard) {
  const SelectOptions& o = *ctx.options;
  const uint64_t first = pool.shard_base[shard] - pool.base, n = pool.shards[shard].records;
  const std::string_view flags(reinterpret_cast<const char*>(kept_flag.data() + first), n);
  return KeyOf({"piece 1", pool.Identity(shard), flags,
                CompressionName(KeptCompressionOf(o.out_path, pool.plan, shard)),
                o.annotate_path.empty() ? "-" : CompressionName(CompressionFor(o.annotate_path)),
                o.id_field, o.read.text_field, scores.model});
}

// The write pass's work on this process's shards: a piece writer per shard for the kept lines
// and one for the annotations, the counts, and the explained documents' ids.
class WriteSink : public corpus::ShardSink {
 public:
  WriteSink(const SelectionContext& ctx, const PoolPass& pool, const Scores& scores,
            const std::vector<uint8_t>& kept_flag, const std::vector<std::string>& keys,
            const WorkFolder& work, WrittenSelection* out)
      : ctx_(ctx), pool_(pool), scores_(scores), out_(out), kept_flag_(kept_flag), keys_(keys),
        counts_(pool.end_shard - pool.first_shard) {
    const SelectOptions& o = *ctx.options;
    for (uint32_t s = pool.first_shard; s < pool.end_shard; ++s) {
      kept_.push_back(std::make_unique<PieceWriter>(KeptPiecePath(work, s),
                                                    KeptCompressionOf(o.out_path, pool.plan, s)));
      if (!o.annotate_path.empty()) {
        notes_.push_back(std::make_unique<PieceWriter>(NotesPiecePath(work, s),
                                                       CompressionFor(o.annotate_path)));
      }
    }
    for (auto* list : {&out->top_kept, &out->lowest_kept, &out->lowest_in_pool}) {
      for (ScoredDoc& d : *list) explained_[d.index].push_back(&d);
    }
  }

  Status OnChunk(corpus::ChunkWork& work) override {
    const corpus::Chunk& chunk = work.chunk();
    const uint32_t mine = chunk.shard - pool_.first_shard;
    const uint64_t first = pool_.shard_base[chunk.shard] + chunk.first_record;
    const std::string& file = pool_.plan.FileOf(chunk.shard).path;
    std::string content, notes;
    uint64_t docs = 0, bytes = 0;
    for (size_t i = 0; i < chunk.records.size(); ++i) {
      const corpus::ChunkRecord& r = chunk.records[i];
      const uint64_t k = first + i - pool_.base;
      if (k >= pool_.records || chunk.first_record + i >= pool_.shards[chunk.shard].records) {
        return Status::Internal(kChanged);
      }
      const bool kept = kept_flag_[k] != 0;
      if (kept) {
        content.append(r.line);
        content.push_back('\n');
        ++docs;
        bytes += pool_.bytes[k];
      }
      if (!notes_.empty() && pool_.valid[k]) {
        AppendAnnotation(notes, Id(r, file), scores_.score[k], kept);
      }
      if (!explained_.empty()) Describe(first + i, r, file);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      counts_[mine].docs += docs;
      counts_[mine].text_bytes += bytes;
    }
    PF_RETURN_IF_ERROR(kept_[mine]->Add(chunk.seq, std::move(content)));
    if (!notes_.empty()) PF_RETURN_IF_ERROR(notes_[mine]->Add(chunk.seq, std::move(notes)));
    return Status::Ok();
  }

  Status OnShardDone(const corpus::ShardRead& read) override {
    if (read.records != pool_.shards[read.shard].records) return Status::Internal(kChanged);
    const uint32_t mine = read.shard - pool_.first_shard;
    PF_ASSIGN_OR_RETURN(PieceFacts kept, kept_[mine]->Finish());
    PieceFacts notes;
    if (!notes_.empty()) {
      PF_ASSIGN_OR_RETURN(notes, notes_[mine]->Finish());
    }
    std::lock_guard<std::mutex> lock(mu_);
    out_->kept_pieces[read.shard] = std::move(kept);
    out_->note_pieces[read.shard] = std::move(notes);
    if (ctx_.work == nullptr) return Status::Ok();
    return SavePieces(*ctx_.work, pool_, read.shard, keys_[mine], counts_[mine], *out_);
  }

  std::vector<KeptCounts>& counts() { return counts_; }
  // Whether the line of a shard's record is read: kept, explained or annotated (a Parquet row's
  // line is built only then).
  bool WantsLine(uint32_t shard, uint64_t record) const {
    const uint64_t index = pool_.shard_base[shard] + record;
    if (!notes_.empty() || index - pool_.base >= pool_.records) return true;
    return kept_flag_[index - pool_.base] != 0 || explained_.count(index) > 0;
  }

 private:
  std::string Id(const corpus::ChunkRecord& r, const std::string& file) const {
    return DocumentId(r.line, ctx_.options->id_field, file, r.line_no, r.row_group,
                      r.row_in_group);
  }
  void Describe(uint64_t index, const corpus::ChunkRecord& r, const std::string& file) {
    auto it = explained_.find(index);
    if (it == explained_.end()) return;
    const std::string id = Id(r, file);
    std::string genre;
    auto j = nlohmann::json::parse(r.line, nullptr, false);
    if (j.is_object() && j.contains("genre") && j["genre"].is_string()) genre = j["genre"];
    std::lock_guard<std::mutex> lock(mu_);
    for (ScoredDoc* d : it->second) {
      d->id = id;
      d->genre = genre;
    }
  }

  const SelectionContext& ctx_;
  const PoolPass& pool_;
  const Scores& scores_;
  WrittenSelection* out_;
  const std::vector<uint8_t>& kept_flag_;  // [records]
  const std::vector<std::string>& keys_;   // [my shards]
  std::vector<std::unique_ptr<PieceWriter>> kept_, notes_;  // [my shards]
  std::map<uint64_t, std::vector<ScoredDoc*>> explained_;
  std::mutex mu_;
  std::vector<KeptCounts> counts_;  // [my shards]
};

// Packs a piece's facts for the leader.
void PackFacts(uint32_t shard, const PieceFacts& f, std::vector<std::string>* out) {
  for (const std::string& s :
       {std::to_string(shard), f.path, f.file_sha256, f.content_sha256,
        std::to_string(f.file_bytes), std::to_string(f.content_bytes)}) {
    out->push_back(s);
  }
}

// Every process's piece facts, on the leader.
Status GatherPieces(SelectionGroup& g, const PoolPass& pool, std::vector<PieceFacts>* pieces) {
  if (g.size() == 1) return Status::Ok();
  std::vector<std::string> mine;
  for (uint32_t s = pool.first_shard; s < pool.end_shard; ++s) PackFacts(s, (*pieces)[s], &mine);
  PF_ASSIGN_OR_RETURN(std::vector<std::string> all, GatherStrings(g, mine));
  for (size_t i = 0; i + 5 < all.size(); i += 6) {
    PieceFacts& f = (*pieces)[std::stoul(all[i])];
    f.path = all[i + 1];
    f.file_sha256 = all[i + 2];
    f.content_sha256 = all[i + 3];
    f.file_bytes = std::stoull(all[i + 4]);
    f.content_bytes = std::stoull(all[i + 5]);
  }
  return Status::Ok();
}

// Per pool file: the kept counts (summed over the group) and its documents in the pool.
Status CountPerFile(SelectionGroup& g, const PoolPass& pool, const std::vector<KeptCounts>& mine,
                    WrittenSelection* out) {
  const size_t files = pool.plan.files.size();
  std::vector<uint64_t> v(2 * files, 0);
  for (uint32_t s = pool.first_shard; s < pool.end_shard; ++s) {
    const uint32_t f = pool.plan.shards[s].file;
    v[2 * f] += mine[s - pool.first_shard].docs;
    v[2 * f + 1] += mine[s - pool.first_shard].text_bytes;
  }
  PF_RETURN_IF_ERROR(g.SumU64(&v));
  out->per_file.assign(files, {});
  out->kept_docs = out->kept_bytes = 0;
  for (size_t f = 0; f < files; ++f) {
    KeptCounts& c = out->per_file[f];
    c.docs = v[2 * f];
    c.text_bytes = v[2 * f + 1];
    const corpus::PlannedFile& file = pool.plan.files[f];
    for (uint32_t s = file.first_shard; s < file.first_shard + file.shards; ++s) {
      c.pool_docs += pool.shards[s].docs;
    }
    out->kept_docs += c.docs;
    out->kept_bytes += c.text_bytes;
  }
  return Status::Ok();
}

}  // namespace

std::string DocumentId(std::string_view line, const std::string& id_field, const std::string& file,
                       int64_t line_no, int32_t row_group, uint64_t row_in_group) {
  // The common case, a string id named once, through simdjson's on-demand parser: it skips over
  // the text instead of building it (--annotate on a 100 MB pool: +0.37 core-seconds against
  // +0.66 with the full parse, for a 0.95 core-second dsir selection). Anything else (no id,
  // another type, the key written twice) takes the full parse below, which defines the result.
  thread_local simdjson::ondemand::parser parser;
  const simdjson::padded_string padded(line);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  std::string_view id;
  if (parser.iterate(padded).get(doc) == simdjson::SUCCESS &&
      doc.get_object().get(object) == simdjson::SUCCESS &&
      object.find_field_unordered(id_field).get_string().get(id) == simdjson::SUCCESS &&
      line.find("\"" + id_field + "\"") == line.rfind("\"" + id_field + "\"")) {
    return std::string(id);
  }
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_object()) {
    auto it = j.find(id_field);
    if (it != j.end()) return it->is_string() ? it->get<std::string>() : it->dump();
  }
  return corpus::DefaultId(file, line_no, row_group, row_in_group);
}

void PickExplained(const PoolPass& pool, const Scores& scores,
                   const std::vector<uint64_t>& kept_local, size_t count, WrittenSelection* out) {
  if (!scores.explains) return;
  const uint64_t base = pool.base;
  auto higher = [&](uint64_t a, uint64_t b) {
    const double sa = scores.score[a - base], sb = scores.score[b - base];
    return sa != sb ? sa > sb : a < b;
  };
  auto describe = [&](uint64_t i) {
    return ScoredDoc{i, "", "", scores.score[i - base], pool.bytes[i - base]};
  };
  std::vector<uint64_t> by_score = kept_local;
  std::sort(by_score.begin(), by_score.end(), higher);
  for (size_t k = 0; k < std::min(count, by_score.size()); ++k)
    out->top_kept.push_back(describe(by_score[k]));
  for (size_t k = 0; k < std::min(count, by_score.size()); ++k)
    out->lowest_kept.push_back(describe(by_score[by_score.size() - 1 - k]));
  std::vector<uint64_t> all;
  for (uint64_t k = 0; k < pool.records; ++k)
    if (pool.valid[k]) all.push_back(base + k);
  std::sort(all.begin(), all.end(), higher);
  for (size_t k = 0; k < std::min(count, all.size()); ++k)
    out->lowest_in_pool.push_back(describe(all[all.size() - 1 - k]));
}

Status WriteKept(const SelectionContext& ctx, const PoolPass& pool, const Scores& scores,
                 const std::vector<uint64_t>& kept_local, const WorkFolder& work,
                 WrittenSelection* out) {
  SelectionGroup& g = *ctx.group;
  g.SetPhase("write");
  out->kept_pieces.assign(pool.plan.shards.size(), {});
  out->note_pieces.assign(pool.plan.shards.size(), {});
  std::vector<uint8_t> kept_flag(pool.records, 0);
  for (uint64_t i : kept_local) kept_flag[i - pool.base] = 1;
  std::vector<std::string> keys;
  corpus::ScanRequest req;
  std::vector<KeptCounts> reused(pool.end_shard - pool.first_shard);
  for (uint32_t s = pool.first_shard; s < pool.end_shard; ++s) {
    keys.push_back(PieceKey(ctx, pool, scores, kept_flag, s));
    if (!ctx.work || !LoadPieces(work, pool, s, keys.back(), &reused[s - pool.first_shard], *out)) {
      req.shards.push_back(s);
    }
  }
  req.plan = &pool.plan;
  req.lines_before = pool.lines_before;
  req.read = &ctx.options->read;
  req.threads = ctx.threads();
  req.hash = false;
  req.lines = true;  // The kept lines are copied out (a Parquet row's built as JSON).
  req.progress = [&ctx](uint64_t done, uint64_t total) { ctx.Report("write", done, total); };
  pool.CountReads(req.shards);
  WriteSink sink(ctx, pool, scores, kept_flag, keys, work, out);
  req.wants_line = [&sink](uint32_t shard, uint64_t record) {
    return sink.WantsLine(shard, record);
  };
  const std::optional<corpus::ScanFailure> failure = corpus::ScanShards(req, sink);
  Status local;
  if (failure) local = corpus::FailureStatus(*failure, pool.plan, {});
  uint64_t written = 0;
  for (size_t i = 0; i < reused.size(); ++i) {
    sink.counts()[i].docs += reused[i].docs;
    sink.counts()[i].text_bytes += reused[i].text_bytes;
    written += sink.counts()[i].docs;
  }
  if (local.ok() && written != kept_local.size()) local = Status::Internal(kChanged);
  PF_RETURN_IF_ERROR(g.Agree(local));
  PF_RETURN_IF_ERROR(CountPerFile(g, pool, sink.counts(), out));
  PF_RETURN_IF_ERROR(GatherPieces(g, pool, &out->kept_pieces));
  if (!ctx.options->annotate_path.empty()) {
    PF_RETURN_IF_ERROR(GatherPieces(g, pool, &out->note_pieces));
  }
  if (scores.explains && ctx.distributed()) {
    g.SetPhase("explain");
    PF_ASSIGN_OR_RETURN(out->top_kept, MergeExplained(g, out->top_kept, 5, /*lowest=*/false));
    PF_ASSIGN_OR_RETURN(out->lowest_kept, MergeExplained(g, out->lowest_kept, 5, /*lowest=*/true));
    PF_ASSIGN_OR_RETURN(out->lowest_in_pool,
                        MergeExplained(g, out->lowest_in_pool, 5, /*lowest=*/true));
  }
  return Status::Ok();
}

}  // namespace preflight::select
