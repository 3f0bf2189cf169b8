#include "select/pool_pass.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "base/file.h"
#include "corpus/shard_scan.h"
#include "corpus/text_document.h"
#include "select/dsir.h"
#include "select/features.h"
#include "select/group_codec.h"
#include "select/resume.h"
#include "select/shard_results.h"

namespace preflight::select {
namespace {

using corpus::ScanSummary;

// Scans the target on this process, with its own read options: its summary, and feature counts
// (dsir) and/or texts (classifier).
Result<ScanSummary> ScanTarget(const SelectionContext& ctx, bool counts, bool texts,
                               TargetPass* out) {
  const SelectOptions& o = *ctx.options;
  const int threads = ctx.threads();
  std::vector<std::vector<uint64_t>> per_thread;
  if (counts) per_thread.assign(threads, std::vector<uint64_t>(o.dsir.buckets, 0));
  std::vector<std::pair<uint64_t, std::string>> collected;
  std::mutex mu;
  auto summary = corpus::ScanDocuments(
      *ctx.target, o.TargetRead(),
      [&](int t, const corpus::Record& r, std::string_view text) {
        if (counts) CountFeatures(text, o.dsir, per_thread[t].data());
        if (texts) {
          std::lock_guard<std::mutex> lock(mu);
          collected.emplace_back(r.index, std::string(text));
        }
      },
      [&](const ProgressReport& read) { ctx.Report("target", read); });
  if (!summary.ok()) return summary.status();
  if (summary->docs == 0) {
    return Status::InvalidArgument(
        "the target has no documents (" +
        (ctx.target->empty() ? std::string("no --target given") : ctx.target->front()) + ")");
  }
  if (counts) out->counts = SumCounts(per_thread, o.dsir.buckets);
  if (texts) {
    std::sort(collected.begin(), collected.end());
    for (auto& [i, t] : collected) out->texts.push_back(std::move(t));
  }
  return summary;
}

// Rank `rank` of `size` reads the shards whose first byte lies in its part
// [rank * T / size, (rank + 1) * T / size) of the pool's bytes (T: their sum), so that ranks hold
// contiguous blocks of shards, and so of records, in rank order.
std::pair<uint32_t, uint32_t> DealShards(const corpus::Sharding& sharding, int rank, int size) {
  uint64_t total = 0;
  for (const auto& s : sharding.shards) total += s.disk_bytes();
  auto part = [&](int r) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * r / size);
  };
  const uint64_t lo = part(rank), hi = part(rank + 1);
  uint32_t first = 0, end = 0;
  uint64_t at = 0;
  bool found = false;
  for (uint32_t s = 0; s < sharding.shards.size(); ++s) {
    // A shard at the very end (or an empty pool's) goes to the last rank.
    const bool mine = (at >= lo && at < hi) || (at == total && rank == size - 1);
    if (mine && !found) first = s, found = true;
    if (mine) end = s + 1;
    at += sharding.shards[s].disk_bytes();
  }
  if (!found) first = end = 0;
  return {first, end};
}

// One chunk's part of the first pass.
struct ChunkPart {
  std::vector<uint64_t> bytes;
  std::vector<uint8_t> valid;
  uint64_t docs = 0, text_bytes = 0;
};

// The first pass over this process's shards: per record bytes and validity, per shard dsir
// counts and what was read, each shard saved to the work folder (if any) once it is done.
class PoolSink : public corpus::ShardSink {
 public:
  PoolSink(const SelectionContext& ctx, const PoolPass& pool, bool count_features,
           std::vector<ShardResult>* results)
      : ctx_(ctx),
        pool_(pool),
        count_(count_features),
        results_(*results),
        parts_(results->size()) {}

  Status OnChunk(corpus::ChunkWork& work) override {
    const corpus::Chunk& chunk = work.chunk();
    ChunkPart part;
    const size_t n = chunk.records.size();
    part.bytes.assign(n, 0);
    part.valid.assign(n, 0);
    // 32-bit counts for one chunk (fewer features than bytes): half the cache of 64-bit ones.
    const DsirOptions& dsir = ctx_.options->dsir;
    std::vector<uint32_t> counts(count_ ? dsir.buckets : 0, 0);
    for (size_t i = 0; i < n; ++i) {
      std::string_view text;
      if (!work.Text(i, &text)) continue;
      part.bytes[i] = text.size();
      part.valid[i] = 1;
      ++part.docs;
      part.text_bytes += text.size();
      if (count_) {
        ForEachFeature(text, dsir.buckets, dsir.ngrams, [&counts](uint32_t b) { ++counts[b]; });
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    const uint32_t slot = chunk.shard - pool_.first_shard;
    ShardResult& r = results_[slot];
    if (count_) {
      if (r.counts.empty()) r.counts.assign(counts.size(), 0);
      for (size_t b = 0; b < counts.size(); ++b) r.counts[b] += counts[b];
    }
    auto& parts = parts_[slot];
    if (parts.size() <= chunk.seq) parts.resize(chunk.seq + 1);
    parts[chunk.seq] = std::move(part);
    return Status::Ok();
  }

  Status OnShardDone(const corpus::ShardRead& read) override {
    const uint32_t slot = read.shard - pool_.first_shard;
    std::vector<ChunkPart> parts;
    {
      std::lock_guard<std::mutex> lock(mu_);
      parts = std::move(parts_[slot]);
    }
    ShardResult& r = results_[slot];  // Only this call touches it now.
    r.read = read;
    for (ChunkPart& c : parts) {
      r.bytes.insert(r.bytes.end(), c.bytes.begin(), c.bytes.end());
      r.valid.insert(r.valid.end(), c.valid.begin(), c.valid.end());
      r.docs += c.docs;
      r.text_bytes += c.text_bytes;
    }
    if (count_ && r.counts.empty()) r.counts.assign(ctx_.options->dsir.buckets, 0);
    r.done = true;
    if (ctx_.work == nullptr) return Status::Ok();
    return SaveShardResult(*ctx_.work, read.shard,
                           PoolResultKey(pool_.sharding, read.shard, *ctx_.options, count_), r);
  }

 private:
  const SelectionContext& ctx_;
  const PoolPass& pool_;
  bool count_;
  std::vector<ShardResult>& results_;  // [my shard]
  std::mutex mu_;
  std::vector<std::vector<ChunkPart>> parts_;  // [my shard][chunk]
};

// The results a killed run saved for this process's shards, but for files changed since.
// Returns the shards still to read.
Result<std::vector<uint32_t>> LoadSaved(const SelectionContext& ctx, const PoolPass& pool,
                                        bool count_features, std::vector<ShardResult>* results) {
  const std::vector<uint32_t> mine = pool.MyShards();
  if (ctx.work != nullptr) {
    for (size_t i = 0; i < mine.size(); ++i) {
      auto saved = LoadShardResult(
          *ctx.work, mine[i], PoolResultKey(pool.sharding, mine[i], *ctx.options, count_features),
          count_features, ctx.options->dsir.buckets);
      if (saved) (*results)[i] = std::move(*saved);
    }
    PF_ASSIGN_OR_RETURN(std::vector<uint32_t> changed,
                        ChangedFiles(pool.sharding, mine, *results, ctx.threads()));
    // Each file whose hash was checked was read once more, all its shards.
    std::vector<uint32_t> checked;
    for (size_t i = 0; i < mine.size(); ++i) {
      if ((*results)[i].done && !(*results)[i].read.file_sha256.empty()) {
        const corpus::ShardedFile& f = pool.sharding.FileOf(mine[i]);
        for (uint32_t k = f.first_shard; k < f.first_shard + f.shards; ++k) checked.push_back(k);
      }
    }
    pool.CountReads(checked);
    for (uint32_t f : changed) {
      for (size_t i = 0; i < mine.size(); ++i) {
        if (pool.sharding.shards[mine[i]].file == f) (*results)[i] = ShardResult();
      }
    }
  }
  std::vector<uint32_t> to_read;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (!(*results)[i].done) to_read.push_back(mine[i]);
  }
  return to_read;
}

// Lines per shard over the group, then each shard's lines before it in its file.
Result<std::vector<int64_t>> LinesBefore(SelectionGroup& g, const corpus::Sharding& sharding,
                                         std::vector<uint64_t> lines) {
  PF_RETURN_IF_ERROR(g.SumU64(&lines));
  std::vector<int64_t> before(sharding.shards.size(), 0);
  for (uint32_t s = 0; s < sharding.shards.size(); ++s) {
    const corpus::ShardedFile& f = sharding.FileOf(s);
    if (s > f.first_shard) before[s] = before[s - 1] + static_cast<int64_t>(lines[s - 1]);
  }
  return before;
}

// The shards' counts summed over the group, and each shard's first global index.
Status ShareCounts(SelectionGroup& g, PoolPass* out, const std::vector<ShardResult>& results) {
  const size_t n = out->sharding.shards.size();
  std::vector<uint64_t> v(6 * n, 0);
  for (uint32_t s = out->first_shard; s < out->end_shard; ++s) {
    const ShardResult& r = results[s - out->first_shard];
    const uint64_t row[6] = {r.read.records, r.read.lines,      r.docs,
                             r.text_bytes,   r.read.bad.size(), r.read.blank};
    std::copy(row, row + 6, v.begin() + 6 * s);
  }
  PF_RETURN_IF_ERROR(g.SumU64(&v));
  out->shards.assign(n, {});
  out->shard_base.assign(n, 0);
  uint64_t at = 0;
  for (size_t s = 0; s < n; ++s) {
    out->shards[s] = {v[6 * s],     v[6 * s + 1], v[6 * s + 2],
                      v[6 * s + 3], v[6 * s + 4], v[6 * s + 5]};
    out->shard_base[s] = at;
    at += out->shards[s].records;
  }
  out->base = out->first_shard < n ? out->shard_base[out->first_shard] : at;
  return Status::Ok();
}

// Every file's SHA-256, from the process whose shard hashed it, on every process.
Status ShareHashes(SelectionGroup& g, PoolPass* out, const std::vector<ShardResult>& results) {
  std::vector<std::string> mine;
  for (const ShardResult& r : results) {
    if (r.read.file_sha256.empty()) continue;
    mine.push_back(std::to_string(out->sharding.shards[r.read.shard].file));
    mine.push_back(r.read.file_sha256);
  }
  PF_ASSIGN_OR_RETURN(std::vector<std::string> all, GatherStrings(g, mine));
  if (g.size() > 1) {  // Every process names its shards' results by their files' hashes.
    std::string packed = PackStrings(all);
    PF_RETURN_IF_ERROR(g.Broadcast(&packed));
    PF_ASSIGN_OR_RETURN(all, UnpackStrings(packed));
  }
  out->file_sha256.assign(out->sharding.files.size(), "");
  for (size_t i = 0; i + 1 < all.size(); i += 2) out->file_sha256[std::stoul(all[i])] = all[i + 1];
  return Status::Ok();
}

// The whole pool's summary per input (hashes on the leader).
void SummarizeInputs(PoolPass* out) {
  const corpus::Sharding& sharding = out->sharding;
  ScanSummary& s = out->summary;
  s = ScanSummary();
  for (const corpus::ShardedInput& in : sharding.inputs) {
    corpus::InputSummary sum;
    sum.path = in.path;
    sum.files = in.files;
    std::vector<std::string> rels, shas;
    for (uint32_t f = in.first_file; f < in.first_file + in.files; ++f) {
      const corpus::ShardedFile& file = sharding.files[f];
      sum.file_bytes += file.size;
      rels.push_back(file.rel);
      shas.push_back(out->file_sha256[f]);
      for (uint32_t k = file.first_shard; k < file.first_shard + file.shards; ++k) {
        const ShardCounts& c = out->shards[k];
        sum.records += c.records;
        sum.docs += c.docs;
        sum.text_bytes += c.text_bytes;
        sum.bad += c.bad;
        sum.blank += c.blank;
      }
    }
    sum.sha256 = in.folder ? corpus::FolderSha256(rels, shas) : shas.front();
    s.records += sum.records;
    s.docs += sum.docs;
    s.text_bytes += sum.text_bytes;
    s.bad += sum.bad;
    s.inputs.push_back(std::move(sum));
  }
}

// The pool's bad lines (this process's) and notes, and the first few of the group's.
Status SummarizeBadLines(SelectionGroup& g, PoolPass* out,
                         const std::vector<ShardResult>& results) {
  ScanSummary& s = out->summary;
  std::vector<std::string> examples;
  for (const ShardResult& r : results) {
    if (r.read.skipped_bom)
      s.notes.push_back(corpus::BomNote(out->sharding.FileOf(r.read.shard).path));
    for (const corpus::BadRecord& b : r.read.bad) {
      corpus::BadLine line = corpus::ToBadLine(b, out->sharding, out->lines_before[b.shard],
                                               out->shard_base[b.shard] + b.record);
      if (examples.size() < kSkippedListed) examples.push_back(line.Message());
      s.bad_lines.push_back(std::move(line));
    }
  }
  // In rank order the processes' first bad lines begin with the whole pool's first ones.
  PF_ASSIGN_OR_RETURN(s.bad_examples, GatherStrings(g, examples));
  if (s.bad_examples.size() > kSkippedListed) s.bad_examples.resize(kSkippedListed);
  return Status::Ok();
}

// This process's records in shard order, and its shards' feature counts summed.
void Flatten(std::vector<ShardResult>& results, bool count_features, uint32_t buckets,
             PoolPass* out) {
  out->bytes.clear();
  out->valid.clear();
  out->bytes.reserve(out->records);
  out->valid.reserve(out->records);
  if (count_features) out->counts.assign(buckets, 0);
  for (ShardResult& r : results) {
    out->bytes.insert(out->bytes.end(), r.bytes.begin(), r.bytes.end());
    out->valid.insert(out->valid.end(), r.valid.begin(), r.valid.end());
    for (size_t b = 0; b < r.counts.size() && count_features; ++b) out->counts[b] += r.counts[b];
    r.bytes = {};
    r.valid = {};
    r.counts = {};
  }
}

corpus::ScanRequest RequestFor(const SelectionContext& ctx, const PoolPass& pool,
                               const char* stage) {
  corpus::ScanRequest req;
  req.sharding = &pool.sharding;
  req.shards = pool.MyShards();
  req.read = &ctx.options->read;
  req.threads = ctx.threads();
  if (stage) {
    req.progress = [&ctx, stage](const ProgressReport& read) { ctx.Report(stage, read); };
  }
  return req;
}

}  // namespace

std::string PoolPass::Identity(uint32_t shard) const {
  return ShardIdentity(sharding, shard) + "\n" + file_sha256[sharding.shards[shard].file];
}

void PoolPass::CountReads(const std::vector<uint32_t>& shards) const {
  if (reads.size() != sharding.shards.size()) reads.assign(sharding.shards.size(), 0);
  for (uint32_t s : shards) ++reads[s];
}

std::vector<uint32_t> PoolPass::MyShards() const {
  std::vector<uint32_t> out;
  for (uint32_t s = first_shard; s < end_shard; ++s) out.push_back(s);
  return out;
}

Status ReadTarget(const SelectionContext& ctx, TargetNeed need, TargetPass* out) {
  if (need == TargetNeed::kNothing) return Status::Ok();
  SelectionGroup& g = *ctx.group;
  g.SetPhase("target");
  Status scanned;
  if (ctx.leader()) {
    auto summary =
        ScanTarget(ctx, need == TargetNeed::kFeatureCounts, need == TargetNeed::kTexts, out);
    if (summary.ok()) {
      out->summary = std::move(*summary);
    } else {
      scanned = summary.status();
    }
  }
  PF_RETURN_IF_ERROR(g.Agree(scanned));
  if (ctx.distributed()) {
    // A dsir group receives the target's feature counts, a classifier group its byte count.
    std::vector<uint64_t> shared = out->counts;
    shared.push_back(out->summary.text_bytes);
    PF_ASSIGN_OR_RETURN(shared, BroadcastU64(g, shared));
    out->summary.text_bytes = shared.back();
    shared.pop_back();
    out->counts = std::move(shared);
  }
  return Status::Ok();
}

Status ScanTargetHere(const SelectionContext& ctx, bool counts, bool texts, TargetPass* out) {
  PF_ASSIGN_OR_RETURN(out->summary, ScanTarget(ctx, counts, texts, out));
  return Status::Ok();
}

Status ReadPool(const SelectionContext& ctx, bool count_features, PoolPass* out) {
  SelectionGroup& g = *ctx.group;
  g.SetPhase("sharding");
  auto sharding = corpus::ShardInputs(*ctx.pool, ctx.options->split_bytes);
  PF_RETURN_IF_ERROR(g.Agree(sharding.status()));
  out->sharding = std::move(*sharding);
  out->reads.assign(out->sharding.shards.size(), 0);
  std::tie(out->first_shard, out->end_shard) = DealShards(out->sharding, g.rank(), g.size());
  g.SetPhase("pool");
  std::vector<ShardResult> results(out->end_shard - out->first_shard);
  auto to_read = LoadSaved(ctx, *out, count_features, &results);
  std::optional<corpus::ScanFailure> failure;
  if (to_read.ok()) {
    PoolSink sink(ctx, *out, count_features, &results);
    corpus::ScanRequest req = RequestFor(ctx, *out, "pool");
    req.shards = std::move(*to_read);
    out->CountReads(req.shards);
    failure = corpus::ScanShards(req, sink);
  }
  // Lines are counted first even on a failure: a bad line is named by its line in its file.
  std::vector<uint64_t> lines(out->sharding.shards.size(), 0);
  for (const ShardResult& r : results) {
    if (r.done) lines[r.read.shard] = r.read.lines;
  }
  PF_ASSIGN_OR_RETURN(out->lines_before, LinesBefore(g, out->sharding, lines));
  Status local = to_read.status();
  if (failure) local = corpus::FailureStatus(*failure, out->sharding, out->lines_before);
  PF_RETURN_IF_ERROR(g.Agree(local));
  PF_RETURN_IF_ERROR(ShareCounts(g, out, results));
  out->records = 0;
  for (uint32_t s = out->first_shard; s < out->end_shard; ++s)
    out->records += out->shards[s].records;
  Flatten(results, count_features, ctx.options->dsir.buckets, out);
  PF_RETURN_IF_ERROR(ShareHashes(g, out, results));
  SummarizeInputs(out);
  PF_RETURN_IF_ERROR(SummarizeBadLines(g, out, results));
  if (out->summary.docs == 0) {
    return Status::InvalidArgument("the pool has no documents (" + ctx.pool->front() + ")");
  }
  return Status::Ok();
}

namespace {

// A later pass: every document of the shards read, by global index.
class VisitSink : public corpus::ShardSink {
 public:
  VisitSink(const PoolPass& pool, const PoolVisitor& visit,
            const std::function<Status(uint32_t)>& shard_done)
      : pool_(pool), visit_(visit), shard_done_(shard_done) {}

  Status OnChunk(corpus::ChunkWork& work) override {
    const corpus::Chunk& chunk = work.chunk();
    const uint64_t first = pool_.shard_base[chunk.shard] + chunk.first_record;
    for (size_t i = 0; i < chunk.records.size(); ++i) {
      const uint64_t index = first + i;
      if (index - pool_.base >= pool_.records ||
          chunk.first_record + i >= pool_.shards[chunk.shard].records) {
        return Status::Internal("the pool changed while it was being read (re-run the selection)");
      }
      if (!pool_.valid[index - pool_.base]) continue;
      std::string_view text;
      if (!work.Text(i, &text)) continue;  // Changed since the first pass: reported as bad.
      visit_(work.thread(), index, text);
    }
    return Status::Ok();
  }

  Status OnShardDone(const corpus::ShardRead& read) override {
    if (read.records != pool_.shards[read.shard].records) {
      return Status::Internal("the pool changed while it was being read (re-run the selection)");
    }
    return shard_done_ ? shard_done_(read.shard) : Status::Ok();
  }

 private:
  const PoolPass& pool_;
  const PoolVisitor& visit_;
  const std::function<Status(uint32_t)>& shard_done_;
};

}  // namespace

Status RescanPool(const SelectionContext& ctx, const PoolPass& pool,
                  const std::vector<uint32_t>& shards, const PoolVisitor& visit, const char* stage,
                  const std::function<Status(uint32_t shard)>& shard_done) {
  corpus::ScanRequest req = RequestFor(ctx, pool, stage);
  req.shards = shards;
  req.lines_before = pool.lines_before;
  req.hash = false;
  pool.CountReads(shards);
  VisitSink sink(pool, visit, shard_done);
  const std::optional<corpus::ScanFailure> failure = corpus::ScanShards(req, sink);
  Status local;
  if (failure) local = corpus::FailureStatus(*failure, pool.sharding, {});
  return ctx.group->Agree(local);
}

Result<std::vector<uint64_t>> CutCandidates(const SelectionContext& ctx,
                                            std::vector<Candidate> local, uint64_t budget) {
  if (!ctx.distributed()) return TakeByBudget(std::move(local), budget);
  PF_ASSIGN_OR_RETURN(std::vector<uint8_t> taken,
                      CutByBudget(*ctx.group, local, budget, ctx.cut_method));
  std::vector<uint64_t> ids;
  for (size_t k = 0; k < local.size(); ++k)
    if (taken[k]) ids.push_back(local[k].index);
  return ids;
}

}  // namespace preflight::select
