#include "select/write_pass.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/file.h"
#include "corpus/shard_scan.h"
#include "select/group_codec.h"
#include "select/piece_results.h"
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

// One selection's state in the pass: its kept flags, a piece writer per shard for its kept lines
// and one for its annotations, its counts, the shards it already has from a killed run, and its
// explained documents.
struct JobState {
  const WriteJob* job = nullptr;
  std::vector<uint8_t> kept_flag;                         // [records]
  std::vector<std::string> keys;                          // [my shards]
  std::vector<uint8_t> reused;                            // [my shards]
  std::vector<std::unique_ptr<PieceWriter>> kept, notes;  // [my shards]
  std::vector<KeptCounts> counts;                         // [my shards]
  std::map<uint64_t, std::vector<ScoredDoc*>> explained;
};

// The write pass's work on this process's shards, for every selection of the batch.
class WriteSink : public corpus::ShardSink {
 public:
  WriteSink(const SelectionContext& ctx, const PoolPass& pool, std::vector<JobState>& jobs)
      : ctx_(ctx), pool_(pool), jobs_(jobs) {}

  Status OnChunk(corpus::ChunkWork& work) override {
    const corpus::Chunk& chunk = work.chunk();
    const uint32_t mine = chunk.shard - pool_.first_shard;
    const uint64_t first = pool_.shard_base[chunk.shard] + chunk.first_record;
    if (first - pool_.base + chunk.records.size() > pool_.records ||
        chunk.first_record + chunk.records.size() > pool_.shards[chunk.shard].records) {
      return Status::Internal(kChanged);
    }
    for (JobState& job : jobs_) {
      if (!job.reused[mine]) PF_RETURN_IF_ERROR(Write(job, chunk, first, mine));
    }
    return Status::Ok();
  }

  Status OnShardDone(const corpus::ShardRead& read) override {
    if (read.records != pool_.shards[read.shard].records) return Status::Internal(kChanged);
    const uint32_t mine = read.shard - pool_.first_shard;
    for (JobState& job : jobs_) {
      if (job.reused[mine]) continue;
      PF_ASSIGN_OR_RETURN(PieceFacts kept, job.kept[mine]->Finish());
      PieceFacts notes;
      if (!job.notes.empty()) {
        PF_ASSIGN_OR_RETURN(notes, job.notes[mine]->Finish());
      }
      std::lock_guard<std::mutex> lock(mu_);
      WrittenSelection& w = *job.job->out;
      w.kept_pieces[read.shard] = std::move(kept);
      w.note_pieces[read.shard] = std::move(notes);
      if (job.job->work != nullptr) {
        PF_RETURN_IF_ERROR(
            SavePieces(*job.job->work, pool_, read.shard, job.keys[mine], job.counts[mine], w));
      }
    }
    return Status::Ok();
  }

  // Whether any selection reads the line of a shard's record: kept, explained or annotated (a
  // Parquet row's line is built only then).
  bool WantsLine(uint32_t shard, uint64_t record) const {
    const uint64_t k = pool_.shard_base[shard] + record - pool_.base;
    if (k >= pool_.records) return true;  // OnChunk reports the change.
    const uint32_t mine = shard - pool_.first_shard;
    for (const JobState& job : jobs_) {
      if (job.reused[mine]) continue;
      if (!job.notes.empty() || job.kept_flag[k] != 0 || job.explained.count(k + pool_.base) > 0) {
        return true;
      }
    }
    return false;
  }

 private:
  // One selection's part of one chunk: its kept lines and annotations.
  Status Write(JobState& job, const corpus::Chunk& chunk, uint64_t first, uint32_t mine) {
    const SelectOptions& o = *job.job->options;
    const std::string& file = pool_.sharding.FileOf(chunk.shard).path;
    std::string content, notes;
    uint64_t docs = 0, bytes = 0;
    for (size_t i = 0; i < chunk.records.size(); ++i) {
      const corpus::ChunkRecord& r = chunk.records[i];
      const uint64_t k = first + i - pool_.base;
      const bool kept = job.kept_flag[k] != 0;
      if (kept) {
        content.append(r.line);
        content.push_back('\n');
        ++docs;
        bytes += pool_.bytes[k];
      }
      if (!job.notes.empty() && pool_.valid[k]) {
        const std::string id =
            DocumentId(r.line, o.id_field, file, r.line_no, r.row_group, r.row_in_group);
        AppendAnnotation(notes, id, job.job->scores->score[k], kept);
      }
      if (!job.explained.empty()) Describe(job, first + i, r, file);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      job.counts[mine].docs += docs;
      job.counts[mine].text_bytes += bytes;
    }
    PF_RETURN_IF_ERROR(job.kept[mine]->Add(chunk.seq, std::move(content)));
    if (!job.notes.empty()) PF_RETURN_IF_ERROR(job.notes[mine]->Add(chunk.seq, std::move(notes)));
    return Status::Ok();
  }

  void Describe(JobState& job, uint64_t index, const corpus::ChunkRecord& r,
                const std::string& file) {
    auto it = job.explained.find(index);
    if (it == job.explained.end()) return;
    const std::string id = DocumentId(r.line, job.job->options->id_field, file, r.line_no,
                                      r.row_group, r.row_in_group);
    std::string genre, excerpt;
    auto j = nlohmann::json::parse(r.line, nullptr, false);
    if (j.is_object() && j.contains("genre") && j["genre"].is_string()) genre = j["genre"];
    const std::string& field = job.job->options->read.text_field;
    if (r.has_text) {
      excerpt = Excerpt(r.text);
    } else if (j.is_object() && j.contains(field) && j[field].is_string()) {
      excerpt = Excerpt(j[field].get_ref<const std::string&>());
    }
    std::lock_guard<std::mutex> lock(mu_);
    for (ScoredDoc* d : it->second) {
      d->id = id;
      d->genre = genre;
      d->excerpt = excerpt;
    }
  }

  const SelectionContext& ctx_;
  const PoolPass& pool_;
  std::vector<JobState>& jobs_;
  std::mutex mu_;
};

// Packs a piece's facts for the leader.
void PackFacts(uint32_t shard, const PieceFacts& f, std::vector<std::string>* out) {
  for (const std::string& s : {std::to_string(shard), f.path, f.file_sha256, f.content_sha256,
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
  const size_t files = pool.sharding.files.size();
  std::vector<uint64_t> v(2 * files, 0);
  for (uint32_t s = pool.first_shard; s < pool.end_shard; ++s) {
    const uint32_t f = pool.sharding.shards[s].file;
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
    const corpus::ShardedFile& file = pool.sharding.files[f];
    for (uint32_t s = file.first_shard; s < file.first_shard + file.shards; ++s) {
      c.pool_docs += pool.shards[s].docs;
    }
    out->kept_docs += c.docs;
    out->kept_bytes += c.text_bytes;
  }
  return Status::Ok();
}

}  // namespace

std::string Excerpt(std::string_view text, size_t bytes) {
  std::string out;
  bool space = false;
  for (char ch : text) {
    const bool blank = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
    if (blank) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
    if (out.size() >= bytes) break;
  }
  if (out.size() < bytes) return out;
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80)) out.pop_back();
  return out + "\u2026";
}

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

namespace {

// A selection's state before the pass: its flags, its writers, and what a killed run left.
JobState StartJob(const PoolPass& pool, const WriteJob& job) {
  JobState s;
  s.job = &job;
  const SelectOptions& o = *job.options;
  WrittenSelection& w = *job.out;
  w.kept_pieces.assign(pool.sharding.shards.size(), {});
  w.note_pieces.assign(pool.sharding.shards.size(), {});
  s.kept_flag.assign(pool.records, 0);
  for (uint64_t i : *job.kept) s.kept_flag[i - pool.base] = 1;
  const uint32_t n = pool.end_shard - pool.first_shard;
  s.reused.assign(n, 0);
  s.counts.assign(n, {});
  for (uint32_t s_id = pool.first_shard; s_id < pool.end_shard; ++s_id) {
    const uint32_t mine = s_id - pool.first_shard;
    s.keys.push_back(PieceKey(o, pool, *job.scores, s.kept_flag, s_id));
    s.reused[mine] =
        job.work != nullptr && LoadPieces(*job.work, pool, s_id, s.keys[mine], &s.counts[mine], w);
    s.kept.push_back(std::make_unique<PieceWriter>(
        KeptPiecePath(*job.work, s_id), KeptCompressionOf(o.out_path, pool.sharding, s_id)));
    if (!o.annotate_path.empty()) {
      s.notes.push_back(std::make_unique<PieceWriter>(NotesPiecePath(*job.work, s_id),
                                                      CompressionFor(o.annotate_path)));
    }
  }
  for (auto* list : {&w.top_kept, &w.lowest_kept, &w.lowest_in_pool}) {
    for (ScoredDoc& d : *list) s.explained[d.index].push_back(&d);
  }
  return s;
}

// What the leader needs of one selection once every shard is written.
Status FinishJob(const SelectionContext& ctx, const PoolPass& pool, JobState& s) {
  SelectionGroup& g = *ctx.group;
  WrittenSelection& w = *s.job->out;
  PF_RETURN_IF_ERROR(CountPerFile(g, pool, s.counts, &w));
  PF_RETURN_IF_ERROR(GatherPieces(g, pool, &w.kept_pieces));
  if (!s.job->options->annotate_path.empty()) {
    PF_RETURN_IF_ERROR(GatherPieces(g, pool, &w.note_pieces));
  }
  if (s.job->scores->explains && ctx.distributed()) {
    g.SetPhase("explain");
    PF_ASSIGN_OR_RETURN(w.top_kept, MergeExplained(g, w.top_kept, 5, /*lowest=*/false));
    PF_ASSIGN_OR_RETURN(w.lowest_kept, MergeExplained(g, w.lowest_kept, 5, /*lowest=*/true));
    PF_ASSIGN_OR_RETURN(w.lowest_in_pool, MergeExplained(g, w.lowest_in_pool, 5, /*lowest=*/true));
  }
  return Status::Ok();
}

}  // namespace

Status WriteKept(const SelectionContext& ctx, const PoolPass& pool,
                 const std::vector<WriteJob>& jobs) {
  SelectionGroup& g = *ctx.group;
  g.SetPhase("write");
  std::vector<JobState> states;
  for (const WriteJob& job : jobs) states.push_back(StartJob(pool, job));
  corpus::ScanRequest req;
  for (uint32_t s = pool.first_shard; s < pool.end_shard; ++s) {
    bool all_reused = true;
    for (const JobState& st : states) all_reused = all_reused && st.reused[s - pool.first_shard];
    if (!all_reused) req.shards.push_back(s);
  }
  req.sharding = &pool.sharding;
  req.lines_before = pool.lines_before;
  req.read = &ctx.options->read;
  req.threads = ctx.threads();
  req.hash = false;
  req.lines = true;  // The kept lines are copied out (a Parquet row's built as JSON).
  req.progress = [&ctx](const ProgressReport& read) { ctx.Report("write", read); };
  pool.CountReads(req.shards);
  WriteSink sink(ctx, pool, states);
  req.wants_line = [&sink](uint32_t shard, uint64_t record) {
    return sink.WantsLine(shard, record);
  };
  const std::optional<corpus::ScanFailure> failure = corpus::ScanShards(req, sink);
  Status local;
  if (failure) local = corpus::FailureStatus(*failure, pool.sharding, {});
  for (const JobState& s : states) {
    uint64_t written = 0;
    for (const KeptCounts& c : s.counts) written += c.docs;
    if (local.ok() && written != s.job->kept->size()) local = Status::Internal(kChanged);
  }
  PF_RETURN_IF_ERROR(g.Agree(local));
  for (JobState& s : states) PF_RETURN_IF_ERROR(FinishJob(ctx, pool, s));
  return Status::Ok();
}

}  // namespace preflight::select
