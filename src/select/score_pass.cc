#include "select/score_pass.h"

#include <cstring>
#include <limits>
#include <map>

#include "select/dsir.h"
#include "select/resume.h"

namespace preflight::select {
namespace {

std::string ScoreKey(const SelectionContext& ctx, const PoolPass& pool, uint32_t shard,
                     const std::string& fingerprint) {
  const SelectOptions& o = *ctx.options;
  return KeyOf({"score 1", pool.Identity(shard), o.read.text_field,
                std::to_string(o.read.max_document_bytes), fingerprint});
}

// The distinct scorers of the jobs, dsir ones grouped by feature space so that one tokenization
// serves each group; each scorer writes into the first job that has it.
struct Plan {
  std::vector<std::vector<const DsirModel*>> dsir_groups;
  std::vector<std::vector<double*>> dsir_outs;  // [group][model]: score arrays
  std::vector<const TextScorer*> others;
  std::vector<double*> other_outs;
  std::vector<std::pair<size_t, size_t>> copies;  // (job, job computed) of repeated scorers
};

Plan MakePlan(const std::vector<ScoreJob>& jobs) {
  Plan plan;
  std::map<std::string, size_t> first;  // fingerprint -> job
  std::map<std::pair<uint32_t, int>, size_t> groups;
  for (size_t j = 0; j < jobs.size(); ++j) {
    auto [at, fresh] = first.emplace(jobs[j].scorer->fingerprint(), j);
    if (!fresh) {
      plan.copies.emplace_back(j, at->second);
      continue;
    }
    double* out = jobs[j].out->data();
    if (const DsirModel* m = jobs[j].scorer->dsir()) {
      const auto key = std::make_pair(m->options().buckets, m->options().ngrams);
      auto [g, made] = groups.emplace(key, plan.dsir_groups.size());
      if (made) {
        plan.dsir_groups.emplace_back();
        plan.dsir_outs.emplace_back();
      }
      plan.dsir_groups[g->second].push_back(m);
      plan.dsir_outs[g->second].push_back(out);
    } else {
      plan.others.push_back(jobs[j].scorer);
      plan.other_outs.push_back(out);
    }
  }
  return plan;
}

// Loads what every job saved for `shard`; false (nothing loaded) unless all of them have it.
bool LoadShard(const SelectionContext& ctx, const PoolPass& pool, uint32_t shard,
               const std::vector<ScoreJob>& jobs) {
  const uint64_t first = pool.shard_base[shard] - pool.base, n = pool.shards[shard].records;
  std::vector<std::string> blobs;
  for (const ScoreJob& job : jobs) {
    if (job.work == nullptr) return false;
    auto saved = LoadResult(*job.work, "score-" + std::to_string(shard),
                            ScoreKey(ctx, pool, shard, job.scorer->fingerprint()));
    if (!saved || saved->blobs.size() != 1 || saved->blobs[0].size() != n * sizeof(double)) {
      return false;
    }
    blobs.push_back(std::move(saved->blobs[0]));
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    std::memcpy(jobs[j].out->data() + first, blobs[j].data(), n * sizeof(double));
  }
  return true;
}

Status SaveShard(const SelectionContext& ctx, const PoolPass& pool, uint32_t shard,
                 const std::vector<ScoreJob>& jobs) {
  const uint64_t first = pool.shard_base[shard] - pool.base, n = pool.shards[shard].records;
  for (const ScoreJob& job : jobs) {
    if (job.work == nullptr) continue;
    const std::string_view blob(reinterpret_cast<const char*>(job.out->data() + first),
                                n * sizeof(double));
    PF_RETURN_IF_ERROR(SaveResult(*job.work, "score-" + std::to_string(shard),
                                  ScoreKey(ctx, pool, shard, job.scorer->fingerprint()),
                                  nlohmann::json::object(), {blob}));
  }
  return Status::Ok();
}

}  // namespace

Status ScorePool(const SelectionContext& ctx, const PoolPass& pool,
                 const std::vector<ScoreJob>& jobs) {
  for (const ScoreJob& job : jobs) {
    job.out->assign(pool.records, std::numeric_limits<double>::quiet_NaN());
  }
  std::vector<uint32_t> to_read;
  for (uint32_t s : pool.MyShards()) {
    if (!LoadShard(ctx, pool, s, jobs)) to_read.push_back(s);
  }
  const Plan plan = MakePlan(jobs);
  auto visit = [&plan, &pool](int, uint64_t index, std::string_view text) {
    const uint64_t k = index - pool.base;
    thread_local std::vector<double> weights;
    for (size_t g = 0; g < plan.dsir_groups.size(); ++g) {
      weights.resize(plan.dsir_groups[g].size());
      LogWeights(text, plan.dsir_groups[g].data(), weights.size(), weights.data());
      for (size_t m = 0; m < weights.size(); ++m) plan.dsir_outs[g][m][k] = weights[m];
    }
    for (size_t i = 0; i < plan.others.size(); ++i) plan.other_outs[i][k] = plan.others[i]->Score(text);
  };
  auto done = [&](uint32_t shard) -> Status {
    const uint64_t first = pool.shard_base[shard] - pool.base, n = pool.shards[shard].records;
    for (const auto& [j, from] : plan.copies) {
      std::memcpy(jobs[j].out->data() + first, jobs[from].out->data() + first, n * sizeof(double));
    }
    return SaveShard(ctx, pool, shard, jobs);
  };
  return RescanPool(ctx, pool, to_read, visit, "score", done);
}

}  // namespace preflight::select
