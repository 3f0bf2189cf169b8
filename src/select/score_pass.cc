#include "select/score_pass.h"

#include <cmath>
#include <limits>

#include "select/resume.h"

namespace preflight::select {
namespace {

std::string ScoreKey(const SelectionContext& ctx, const PoolPass& pool, uint32_t shard,
                     const std::string& model) {
  const SelectOptions& o = *ctx.options;
  return KeyOf({"score 1", pool.Identity(shard), o.read.text_field,
                std::to_string(o.read.max_document_bytes), model});
}

}  // namespace

Status ScorePool(const SelectionContext& ctx, const PoolPass& pool, const std::string& model,
                 const std::function<double(std::string_view)>& score, std::vector<double>* out) {
  out->assign(pool.records, std::numeric_limits<double>::quiet_NaN());
  std::vector<uint32_t> to_read;
  for (uint32_t s : pool.MyShards()) {
    const uint64_t first = pool.shard_base[s] - pool.base, n = pool.shards[s].records;
    std::optional<SavedResult> saved;
    if (ctx.work) saved = LoadResult(*ctx.work, "score-" + std::to_string(s), ScoreKey(ctx, pool, s, model));
    if (saved && saved->blobs.size() == 1 && saved->blobs[0].size() == n * sizeof(double)) {
      std::memcpy(out->data() + first, saved->blobs[0].data(), n * sizeof(double));
    } else {
      to_read.push_back(s);
    }
  }
  double* scores = out->data();
  auto save = [&](uint32_t s) -> Status {
    if (!ctx.work) return Status::Ok();
    const uint64_t first = pool.shard_base[s] - pool.base, n = pool.shards[s].records;
    const std::string_view blob(reinterpret_cast<const char*>(scores + first), n * sizeof(double));
    return SaveResult(*ctx.work, "score-" + std::to_string(s), ScoreKey(ctx, pool, s, model),
                      nlohmann::json::object(), {blob});
  };
  return RescanPool(
      ctx, pool, to_read,
      [&](int, uint64_t index, std::string_view text) { scores[index - pool.base] = score(text); },
      "score", save);
}

}  // namespace preflight::select
