#include "select/write_pass.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "select/group_codec.h"

namespace preflight::select {
namespace {

using corpus::Record;

constexpr size_t kFlushBytes = 1 << 20;

// One annotation line: {"id":...,"score":...,"kept":...} (score null where there is none).
void AppendAnnotation(std::string& out, const std::string& id, double score, bool kept) {
  out += "{\"id\":";
  out += nlohmann::json(id).dump();
  out += ",\"score\":";
  out += std::isfinite(score) ? nlohmann::json(score).dump() : std::string("null");
  out += kept ? ",\"kept\":true}\n" : ",\"kept\":false}\n";
}

// Walks the records of this process's part in order, telling each whether it was kept, and
// fills in the ids (and genres) of the explained documents.
class RecordWalker {
 public:
  RecordWalker(const SelectionContext& ctx, const PoolPass& pool, const Scores& scores,
               const std::vector<uint64_t>& kept, WrittenSelection* explained)
      : ctx_(ctx), pool_(pool), scores_(scores), kept_(kept), explained_(explained) {}

  // Whether `r` is one of the records the first pass counted (a pool grown since is not).
  Status Holds(const Record& r) const {
    if (r.index >= pool_.base && r.index - pool_.base < pool_.records) return Status::Ok();
    return Status::Internal("the pool changed while it was being read (re-run the selection)");
  }
  // Returns whether `r` is kept; appends its annotation to `notes` when annotating.
  bool Visit(const Record& r, std::string* notes) {
    const bool kept = next_ < kept_.size() && kept_[next_] == r.index;
    if (kept) ++next_;
    if (!explained_->top_kept.empty() || !explained_->lowest_in_pool.empty()) Describe(r);
    const uint64_t k = r.index - pool_.base;
    if (notes && pool_.valid[k]) AppendAnnotation(*notes, Id(r), scores_.score[k], kept);
    return kept;
  }
  // Every kept record was seen (else the pool changed between the passes).
  Status Check() const {
    if (next_ == kept_.size()) return Status::Ok();
    return Status::Internal("the pool changed while it was being read (re-run the selection)");
  }

 private:
  std::string Id(const Record& r) const {
    return DocumentId(r.line, ctx_.options->id_field, std::string(r.file), r.line_no);
  }
  void Describe(const Record& r) {
    for (auto* list :
         {&explained_->top_kept, &explained_->lowest_kept, &explained_->lowest_in_pool}) {
      for (ScoredDoc& d : *list) {
        if (d.index != r.index) continue;
        d.id = Id(r);
        auto j = nlohmann::json::parse(r.line, nullptr, false);
        if (j.is_object() && j.contains("genre") && j["genre"].is_string()) d.genre = j["genre"];
      }
    }
  }

  const SelectionContext& ctx_;
  const PoolPass& pool_;
  const Scores& scores_;
  const std::vector<uint64_t>& kept_;
  WrittenSelection* explained_;
  size_t next_ = 0;
};

// Alone: one sequential read, copying kept lines into the output as they come.
Status WriteAlone(const SelectionContext& ctx, const PoolPass& pool, const Scores& scores,
                  const std::vector<uint64_t>& kept, SelectionOutputs* outputs,
                  WrittenSelection* out) {
  RecordWalker walker(ctx, pool, scores, kept, out);
  OutputFile* annotations = outputs->annotations();
  std::string buffer, notes;
  buffer.reserve(kFlushBytes);
  PF_RETURN_IF_ERROR(corpus::ScanLines(*ctx.pool, ctx.options->read, [&](const Record& r) {
    PF_RETURN_IF_ERROR(walker.Holds(r));
    if (!walker.Visit(r, annotations ? &notes : nullptr)) return Status::Ok();
    out->kept_bytes += pool.bytes[r.index];
    buffer.append(r.line);
    buffer.push_back('\n');
    if (buffer.size() >= kFlushBytes) {
      PF_RETURN_IF_ERROR(outputs->kept().Write(buffer));
      buffer.clear();
    }
    if (notes.size() >= kFlushBytes) {
      PF_RETURN_IF_ERROR(annotations->Write(notes));
      notes.clear();
    }
    return Status::Ok();
  }));
  PF_RETURN_IF_ERROR(outputs->kept().Write(buffer));
  if (annotations) PF_RETURN_IF_ERROR(annotations->Write(notes));
  out->kept_docs = kept.size();
  return walker.Check();
}

// Each input's SHA-256 (sequential by nature) on the process that holds its first byte, gathered
// into the leader's summary: a pool of many files is hashed in parallel.
Status HashInputs(const SelectionContext& ctx, PoolPass* pool) {
  SelectionGroup& g = *ctx.group;
  g.SetPhase("hash");
  std::string hashes;
  Status hashed;
  for (size_t i = 0; i < ctx.pool->size(); ++i) {
    if (!pool->hash_here[i]) continue;
    auto h = corpus::HashInput((*ctx.pool)[i]);
    if (!h.ok()) {
      hashed = h.status();
      break;
    }
    PutU64(hashes, i);
    PutU64(hashes, h->file_bytes);
    PutU64(hashes, h->sha256.size());
    hashes += h->sha256;
  }
  PF_RETURN_IF_ERROR(g.Agree(hashed));
  PF_ASSIGN_OR_RETURN(std::string all, g.GatherToLeader(hashes));
  auto& inputs = pool->summary.inputs;
  for (size_t pos = 0; pos + 24 <= all.size();) {
    const uint64_t i = GetU64(all, pos), bytes = GetU64(all, pos + 8), n = GetU64(all, pos + 16);
    pos += 24;
    if (i < inputs.size()) {
      inputs[i].file_bytes = bytes;
      inputs[i].sha256 = all.substr(pos, n);
    }
    pos += n;
  }
  return Status::Ok();
}

// In a group: each process copies its own kept lines (and annotations) in pool order, then
// streams them to the leader in rank order.
Status WriteInGroup(const SelectionContext& ctx, PoolPass* pool, const Scores& scores,
                    const std::vector<uint64_t>& kept, SelectionOutputs* outputs,
                    WrittenSelection* out) {
  SelectionGroup& g = *ctx.group;
  g.SetPhase("copy");
  const bool annotate = !ctx.options->annotate_path.empty();
  RecordWalker walker(ctx, *pool, scores, kept, out);
  std::string lines, notes;
  uint64_t kept_bytes = 0;
  Status copied = corpus::ScanLines(
      *ctx.pool, ctx.options->read,
      [&](const Record& r) -> Status {
        PF_RETURN_IF_ERROR(walker.Holds(r));
        if (!walker.Visit(r, annotate ? &notes : nullptr)) return Status::Ok();
        kept_bytes += pool->bytes[r.index - pool->base];
        lines.append(r.line);
        lines.push_back('\n');
        return Status::Ok();
      },
      nullptr, &pool->shard);
  if (copied.ok()) copied = walker.Check();
  PF_RETURN_IF_ERROR(g.Agree(copied));
  PF_RETURN_IF_ERROR(HashInputs(ctx, pool));
  if (scores.explains) {
    g.SetPhase("explain");
    PF_ASSIGN_OR_RETURN(out->top_kept, MergeExplained(g, out->top_kept, 5, /*lowest=*/false));
    PF_ASSIGN_OR_RETURN(out->lowest_kept,
                        MergeExplained(g, out->lowest_kept, 5, /*lowest=*/true));
    PF_ASSIGN_OR_RETURN(out->lowest_in_pool,
                        MergeExplained(g, out->lowest_in_pool, 5, /*lowest=*/true));
  }
  g.SetPhase("write");
  Status written =
      g.StreamToLeader(lines, [&](std::string_view piece) { return outputs->kept().Write(piece); });
  std::string().swap(lines);
  if (annotate) {
    g.SetPhase("annotate");
    Status noted = g.StreamToLeader(
        notes, [&](std::string_view piece) { return outputs->annotations()->Write(piece); });
    if (written.ok()) written = noted;
  }
  g.SetPhase("finish");
  PF_RETURN_IF_ERROR(g.Agree(written));
  std::vector<uint64_t> totals = {kept_bytes, kept.size()};
  PF_RETURN_IF_ERROR(g.SumU64(&totals));  // Every process reports the same counts.
  out->kept_bytes = totals[0];
  out->kept_docs = totals[1];
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

Status WriteKept(const SelectionContext& ctx, PoolPass* pool, const Scores& scores,
                 const std::vector<uint64_t>& kept_local, SelectionOutputs* outputs,
                 WrittenSelection* out) {
  if (!ctx.distributed()) return WriteAlone(ctx, *pool, scores, kept_local, outputs, out);
  return WriteInGroup(ctx, pool, scores, kept_local, outputs, out);
}

}  // namespace preflight::select
