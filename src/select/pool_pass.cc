#include "select/pool_pass.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "base/file.h"
#include "corpus/shard_scan.h"
#include "corpus/text_document.h"
#include "select/dsir.h"
#include "select/group_codec.h"

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
      [&](uint64_t done, uint64_t total) { ctx.Report("target", done, total); });
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
std::pair<uint32_t, uint32_t> DealShards(const corpus::ReadPlan& plan, int rank, int size) {
  uint64_t total = 0;
  for (const auto& s : plan.shards) total += s.disk_bytes();
  auto part = [&](int r) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * r / size);
  };
  const uint64_t lo = part(rank), hi = part(rank + 1);
  uint32_t first = 0, end = 0;
  uint64_t at = 0;
  bool found = false;
  for (uint32_t s = 0; s < plan.shards.size(); ++s) {
    // A shard at the very end (or an empty pool's) goes to the last rank.
    const bool mine = (at >= lo && at < hi) || (at == total && rank == size - 1);
    if (mine && !found) first = s, found = true;
    if (mine) end = s + 1;
    at += plan.shards[s].disk_bytes();
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

// The first pass over this process's shards: per record bytes and validity, per thread dsir
// counts, per shard what was read.
class PoolSink : public corpus::ShardSink {
 public:
  PoolSink(const SelectionContext& ctx, PoolPass* pool, bool count_features)
      : ctx_(ctx), pool_(pool), count_(count_features),
        parts_(pool->end_shard - pool->first_shard),
        reads_(pool->end_shard - pool->first_shard) {
    for (uint32_t i = 0; i < reads_.size(); ++i) reads_[i].shard = pool->first_shard + i;
  }

  Status OnChunk(corpus::ChunkWork& work) override {
    const corpus::Chunk& chunk = work.chunk();
    ChunkPart part;
    const size_t n = chunk.records.size();
    part.bytes.assign(n, 0);
    part.valid.assign(n, 0);
    uint64_t* counts = count_ ? pool_->counts_by_thread[work.thread()].data() : nullptr;
    for (size_t i = 0; i < n; ++i) {
      std::string_view text;
      if (!work.Text(i, &text)) continue;
      part.bytes[i] = text.size();
      part.valid[i] = 1;
      ++part.docs;
      part.text_bytes += text.size();
      if (counts) CountFeatures(text, ctx_.options->dsir, counts);
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = parts_[chunk.shard - pool_->first_shard];
    if (slot.size() <= chunk.seq) slot.resize(chunk.seq + 1);
    slot[chunk.seq] = std::move(part);
    return Status::Ok();
  }

  Status OnShardDone(const corpus::ShardRead& read) override {
    std::lock_guard<std::mutex> lock(mu_);
    reads_[read.shard - pool_->first_shard] = read;
    return Status::Ok();
  }

  std::vector<std::vector<ChunkPart>>& parts() { return parts_; }
  std::vector<corpus::ShardRead>& reads() { return reads_; }

 private:
  const SelectionContext& ctx_;
  PoolPass* pool_;
  bool count_;
  std::mutex mu_;
  std::vector<std::vector<ChunkPart>> parts_;  // [my shard][chunk]
  std::vector<corpus::ShardRead> reads_;       // [my shard]
};

// Lines per shard over the group, then each shard's lines before it in its file.
Result<std::vector<int64_t>> LinesBefore(SelectionGroup& g, const corpus::ReadPlan& plan,
                                         std::vector<uint64_t> lines) {
  PF_RETURN_IF_ERROR(g.SumU64(&lines));
  std::vector<int64_t> before(plan.shards.size(), 0);
  for (uint32_t s = 0; s < plan.shards.size(); ++s) {
    const corpus::PlannedFile& f = plan.FileOf(s);
    if (s > f.first_shard) before[s] = before[s - 1] + static_cast<int64_t>(lines[s - 1]);
  }
  return before;
}

// The shards' counts summed over the group, and each shard's first global index.
Status ShareCounts(SelectionGroup& g, PoolPass* out, const std::vector<corpus::ShardRead>& reads,
                   const std::vector<ChunkPart>& totals) {
  const size_t n = out->plan.shards.size();
  std::vector<uint64_t> v(6 * n, 0);
  for (uint32_t s = out->first_shard; s < out->end_shard; ++s) {
    const corpus::ShardRead& r = reads[s - out->first_shard];
    const ChunkPart& t = totals[s - out->first_shard];
    const uint64_t row[6] = {r.records, r.lines, t.docs, t.text_bytes, r.bad.size(), r.blank};
    std::copy(row, row + 6, v.begin() + 6 * s);
  }
  PF_RETURN_IF_ERROR(g.SumU64(&v));
  out->shards.assign(n, {});
  out->shard_base.assign(n, 0);
  uint64_t at = 0;
  for (size_t s = 0; s < n; ++s) {
    out->shards[s] = {v[6 * s], v[6 * s + 1], v[6 * s + 2], v[6 * s + 3], v[6 * s + 4],
                      v[6 * s + 5]};
    out->shard_base[s] = at;
    at += out->shards[s].records;
  }
  out->base = out->first_shard < n ? out->shard_base[out->first_shard] : at;
  return Status::Ok();
}

// Every file's SHA-256 on the leader, from the process whose shard hashed it.
Status ShareHashes(SelectionGroup& g, PoolPass* out, const std::vector<corpus::ShardRead>& reads) {
  std::vector<std::string> mine;
  for (const corpus::ShardRead& r : reads) {
    if (r.file_sha256.empty()) continue;
    mine.push_back(std::to_string(out->plan.shards[r.shard].file));
    mine.push_back(r.file_sha256);
  }
  PF_ASSIGN_OR_RETURN(std::vector<std::string> all, GatherStrings(g, mine));
  out->file_sha256.assign(out->plan.files.size(), "");
  for (size_t i = 0; i + 1 < all.size(); i += 2) out->file_sha256[std::stoul(all[i])] = all[i + 1];
  return Status::Ok();
}

// The whole pool's summary per input (hashes on the leader), its bad lines and notes.
Status Summarize(SelectionGroup& g, PoolPass* out, const std::vector<corpus::ShardRead>& reads) {
  const corpus::ReadPlan& plan = out->plan;
  ScanSummary& s = out->summary;
  s = ScanSummary();
  for (const corpus::PlannedInput& in : plan.inputs) {
    corpus::InputSummary sum;
    sum.path = in.path;
    sum.files = in.files;
    std::vector<std::string> rels, shas;
    for (uint32_t f = in.first_file; f < in.first_file + in.files; ++f) {
      const corpus::PlannedFile& file = plan.files[f];
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
  std::vector<std::string> examples;
  for (const corpus::ShardRead& r : reads) {
    if (r.skipped_bom) s.notes.push_back(corpus::BomNote(plan.FileOf(r.shard).path));
    for (const corpus::BadRecord& b : r.bad) {
      corpus::BadLine line = corpus::ToBadLine(b, plan, out->lines_before[b.shard],
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

// This process's records, flattened in shard and chunk order.
void Flatten(std::vector<std::vector<ChunkPart>>& parts, PoolPass* out) {
  out->bytes.clear();
  out->valid.clear();
  out->bytes.reserve(out->records);
  out->valid.reserve(out->records);
  for (auto& shard : parts) {
    for (ChunkPart& c : shard) {
      out->bytes.insert(out->bytes.end(), c.bytes.begin(), c.bytes.end());
      out->valid.insert(out->valid.end(), c.valid.begin(), c.valid.end());
      c = ChunkPart();
    }
  }
}

corpus::ScanRequest RequestFor(const SelectionContext& ctx, const PoolPass& pool,
                               const char* stage) {
  corpus::ScanRequest req;
  req.plan = &pool.plan;
  req.shards = pool.MyShards();
  req.read = &ctx.options->read;
  req.threads = ctx.threads();
  if (stage) {
    req.progress = [&ctx, stage](uint64_t done, uint64_t total) {
      ctx.Report(stage, done, total);
    };
  }
  return req;
}

}  // namespace

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
  g.SetPhase("plan");
  auto planned = corpus::PlanRead(*ctx.pool);
  PF_RETURN_IF_ERROR(g.Agree(planned.status()));
  out->plan = std::move(*planned);
  std::tie(out->first_shard, out->end_shard) = DealShards(out->plan, g.rank(), g.size());
  g.SetPhase("pool");
  if (count_features) {
    out->counts_by_thread.assign(ctx.threads(),
                                 std::vector<uint64_t>(ctx.options->dsir.buckets, 0));
  }
  PoolSink sink(ctx, out, count_features);
  const std::optional<corpus::ScanFailure> failure =
      corpus::ScanShards(RequestFor(ctx, *out, "pool"), sink);
  // Lines are counted first even on a failure: a bad line is named by its line in its file.
  std::vector<uint64_t> lines(out->plan.shards.size(), 0);
  for (const corpus::ShardRead& r : sink.reads()) lines[r.shard] = r.lines;
  PF_ASSIGN_OR_RETURN(out->lines_before, LinesBefore(g, out->plan, lines));
  Status local;
  if (failure) local = corpus::FailureStatus(*failure, out->plan, out->lines_before);
  PF_RETURN_IF_ERROR(g.Agree(local));
  std::vector<ChunkPart> totals;
  for (auto& shard : sink.parts()) {
    ChunkPart t;
    for (const ChunkPart& c : shard) {
      t.docs += c.docs;
      t.text_bytes += c.text_bytes;
    }
    totals.push_back(t);
  }
  PF_RETURN_IF_ERROR(ShareCounts(g, out, sink.reads(), totals));
  for (uint32_t s = out->first_shard; s < out->end_shard; ++s) out->records += out->shards[s].records;
  Flatten(sink.parts(), out);
  PF_RETURN_IF_ERROR(ShareHashes(g, out, sink.reads()));
  PF_RETURN_IF_ERROR(Summarize(g, out, sink.reads()));
  if (out->summary.docs == 0) {
    return Status::InvalidArgument("the pool has no documents (" + ctx.pool->front() + ")");
  }
  return Status::Ok();
}

namespace {

// A later pass: every document of this process's shards, by global index.
class VisitSink : public corpus::ShardSink {
 public:
  VisitSink(const PoolPass& pool, const PoolVisitor& visit) : pool_(pool), visit_(visit) {}

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

 private:
  const PoolPass& pool_;
  const PoolVisitor& visit_;
};

}  // namespace

Status RescanPool(const SelectionContext& ctx, const PoolPass& pool, const PoolVisitor& visit,
                  const char* stage) {
  corpus::ScanRequest req = RequestFor(ctx, pool, stage);
  req.lines_before = pool.lines_before;
  req.hash = false;
  VisitSink sink(pool, visit);
  const std::optional<corpus::ScanFailure> failure = corpus::ScanShards(req, sink);
  Status local;
  if (failure) local = corpus::FailureStatus(*failure, pool.plan, {});
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
