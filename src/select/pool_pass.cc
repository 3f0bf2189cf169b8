#include "select/pool_pass.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "base/file.h"
#include "select/dsir.h"
#include "select/group_codec.h"

namespace preflight::select {
namespace {

using corpus::Record;
using corpus::ScanSummary;
using corpus::ShardSpec;

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
      [&](int t, const Record& r, std::string_view text) {
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

// Rank `rank` of `size`: the byte range [rank * T / size, (rank + 1) * T / size) of the inputs
// concatenated in order (T: their total size on disk). A plain file is cut at the range's ends
// (ChunkReader moves each cut to the next line start, so the parts tile its lines); an input that
// cannot be cut (.zst, a folder) goes whole to the rank whose range holds its first byte. Either
// way ranks hold consecutive records in rank order.
// `hash_here`: 1 for each input whose first byte is in this rank's range (it hashes that input).
Result<ShardSpec> PlanShard(const std::vector<std::string>& paths, int rank, int size,
                            std::vector<uint8_t>* hash_here) {
  std::vector<uint64_t> sizes(paths.size(), 0);
  std::vector<bool> whole(paths.size(), false);
  uint64_t total = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    whole[i] = IsDirectory(paths[i]) ||
               (paths[i].size() >= 4 && paths[i].compare(paths[i].size() - 4, 4, ".zst") == 0);
    if (!IsDirectory(paths[i])) {
      auto bytes = FileSize(paths[i]);
      if (!bytes.ok()) {
        return PathExists(paths[i]) ? bytes.status()
                                    : Status::NotFound(paths[i] + ": no such file");
      }
      sizes[i] = *bytes;
    }
    total += sizes[i];
  }
  auto cut = [&](int r) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * r / size);
  };
  const uint64_t lo = cut(rank), hi = cut(rank + 1);
  ShardSpec shard;
  uint64_t start = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    ShardSpec::Part part;
    const uint64_t end = start + sizes[i];
    // The owner of the first byte; an input at the very end (or empty) goes to the rank whose
    // range ends there or, when every later range is empty, to the last one holding bytes.
    const bool first_byte_here =
        (start >= lo && start < hi) || (start == total && rank == size - 1);
    hash_here->push_back(first_byte_here);
    if (whole[i]) {
      part.read = first_byte_here;
    } else {
      part.begin = std::max(lo, start) - start;
      part.end = std::min(hi, end) - start;
      part.read = std::max(lo, start) < std::min(hi, end);
      if (!part.read) part.begin = part.end = 0;
    }
    shard.inputs.push_back(part);
    start = end;
  }
  return shard;
}

// Plans this process's part and numbers it as in a whole read (lines and records before it).
Status PlanAndNumberPart(const SelectionContext& ctx, PoolPass* out) {
  const std::vector<std::string>& pool = *ctx.pool;
  SelectionGroup& g = *ctx.group;
  auto planned = PlanShard(pool, g.rank(), g.size(), &out->hash_here);
  Status st = planned.status();
  std::vector<corpus::PartCount> counts;
  if (planned.ok()) {
    out->shard = std::move(*planned);
    auto counted = corpus::CountParts(pool, ctx.options->read, out->shard);
    if (counted.ok()) {
      counts = std::move(*counted);
    } else {
      st = counted.status();
    }
  }
  PF_RETURN_IF_ERROR(g.Agree(st));
  std::vector<uint64_t> before(2 * pool.size());
  for (size_t i = 0; i < pool.size(); ++i) {
    before[2 * i] = counts[i].lines;
    before[2 * i + 1] = counts[i].records;
    out->records += counts[i].records;
  }
  PF_RETURN_IF_ERROR(g.ExclusivePrefixU64(&before));
  out->shard.first_index = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    out->shard.inputs[i].lines_before = static_cast<int64_t>(before[2 * i]);
    out->shard.first_index += before[2 * i + 1];
  }
  out->base = out->shard.first_index;
  return Status::Ok();
}

// Sums each input's counts over the group (hashes and file sizes come from the write pass).
Status CombineSummaries(SelectionGroup& g, ScanSummary* s) {
  std::vector<uint64_t> v;
  for (const auto& in : s->inputs) {
    v.push_back(in.records);
    v.push_back(in.docs);
    v.push_back(in.text_bytes);
    v.push_back(in.bad);
    v.push_back(in.blank);
  }
  PF_RETURN_IF_ERROR(g.SumU64(&v));
  s->records = s->docs = s->text_bytes = s->bad = 0;
  for (size_t i = 0; i < s->inputs.size(); ++i) {
    auto& in = s->inputs[i];
    in.records = v[5 * i];
    in.docs = v[5 * i + 1];
    in.text_bytes = v[5 * i + 2];
    in.bad = v[5 * i + 3];
    in.blank = v[5 * i + 4];
    s->records += in.records;
    s->docs += in.docs;
    s->text_bytes += in.text_bytes;
    s->bad += in.bad;
  }
  return Status::Ok();
}

}  // namespace

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
  const SelectOptions& o = *ctx.options;
  SelectionGroup& g = *ctx.group;
  if (ctx.distributed()) {
    g.SetPhase("count");
    PF_RETURN_IF_ERROR(PlanAndNumberPart(ctx, out));
  }
  g.SetPhase("pool");
  if (count_features)
    out->counts_by_thread.assign(ctx.threads(), std::vector<uint64_t>(o.dsir.buckets, 0));
  const uint64_t base = out->base;
  auto grow = [out](uint64_t n) {
    if (out->bytes.size() < n) {
      out->bytes.resize(n, 0);
      out->valid.resize(n, 0);
    }
  };
  auto scanned = corpus::ScanDocuments(
      *ctx.pool, o.read,
      [&](int t, const corpus::Record& r, std::string_view text) {
        out->bytes[r.index - base] = text.size();
        out->valid[r.index - base] = 1;
        if (count_features) CountFeatures(text, o.dsir, out->counts_by_thread[t].data());
      },
      [&](uint64_t done, uint64_t total) { ctx.Report("pool", done, total); },
      [&](uint64_t records) { grow(records - base); }, out->ShardOrNull(ctx));
  PF_RETURN_IF_ERROR(g.Agree(scanned.status()));
  out->summary = std::move(*scanned);
  if (!ctx.distributed()) out->records = out->summary.records;
  grow(out->records);
  if (ctx.distributed()) {
    PF_RETURN_IF_ERROR(CombineSummaries(g, &out->summary));
    // Each process lists its part's first bad lines; in rank order their concatenation begins
    // with the whole pool's first ones.
    PF_ASSIGN_OR_RETURN(out->summary.bad_examples, GatherStrings(g, out->summary.bad_examples));
    if (out->summary.bad_examples.size() > kSkippedListed)
      out->summary.bad_examples.resize(kSkippedListed);
  }
  if (out->summary.docs == 0) {
    return Status::InvalidArgument("the pool has no documents (" + ctx.pool->front() + ")");
  }
  return Status::Ok();
}

Status RescanPool(const SelectionContext& ctx, const PoolPass& pool,
                  const corpus::DocumentVisitor& visit, const char* stage) {
  corpus::ProgressFn progress;
  if (stage) progress = [&](uint64_t done, uint64_t total) { ctx.Report(stage, done, total); };
  Status read = corpus::ScanDocuments(*ctx.pool, ctx.options->read, visit, progress, {},
                                      pool.ShardOrNull(ctx))
                    .status();
  return ctx.group->Agree(read);
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
