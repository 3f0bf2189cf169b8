#include "select/write_pass.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "corpus/shard_scan.h"
#include "select/group_codec.h"

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

// The write pass's work on this process's shards: a piece writer per shard for the kept lines
// and one for the annotations, the counts, and the explained documents' ids.
class WriteSink : public corpus::ShardSink {
 public:
  WriteSink(const SelectionContext& ctx, const PoolPass& pool, const Scores& scores,
            const std::vector<uint64_t>& kept, const WorkFolder& work, WrittenSelection* out)
      : ctx_(ctx), pool_(pool), scores_(scores), out_(out), kept_flag_(pool.records, 0),
        counts_(pool.end_shard - pool.first_shard) {
    for (uint64_t i : kept) kept_flag_[i - pool.base] = 1;
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
    return Status::Ok();
  }

  const std::vector<KeptCounts>& counts() const { return counts_; }

 private:
  std::string Id(const corpus::ChunkRecord& r, const std::string& file) const {
    return DocumentId(r.line, ctx_.options->id_field, file, r.line_no);
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
  std::vector<uint8_t> kept_flag_;  // [records]
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
                       int64_t line_no) {
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
  return file + ":" + std::to_string(line_no);
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
  corpus::ScanRequest req;
  req.plan = &pool.plan;
  req.shards = pool.MyShards();
  req.lines_before = pool.lines_before;
  req.read = &ctx.options->read;
  req.threads = ctx.threads();
  req.hash = false;
  req.progress = [&ctx](uint64_t done, uint64_t total) { ctx.Report("write", done, total); };
  WriteSink sink(ctx, pool, scores, kept_local, work, out);
  const std::optional<corpus::ScanFailure> failure = corpus::ScanShards(req, sink);
  Status local;
  if (failure) local = corpus::FailureStatus(*failure, pool.plan, {});
  uint64_t written = 0;
  for (const KeptCounts& c : sink.counts()) written += c.docs;
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
