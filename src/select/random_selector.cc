// random: a uniform sample without replacement, by Gumbel keys with equal weights (gumbel.h).
// A record's key depends only on (seed, index): the same sample on any thread or rank count.

#include "select/gumbel.h"
#include "select/scorer.h"

namespace preflight::select {
namespace {

class RandomSelector : public Selector {
 public:
  Status Score(const SelectionContext& ctx, const PoolPass& pool, const TargetPass&,
               Scores* out) override {
    out->model = "random " + std::to_string(ctx.options->seed);
    out->key.assign(pool.records, 0.0);
    out->score.assign(pool.records, kNoScore);
    for (uint64_t k = 0; k < pool.records; ++k) {
      if (!pool.valid[k]) continue;
      out->key[k] = out->score[k] = GumbelFor(ctx.options->seed, pool.base + k);
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Selector> MakeRandomSelector() { return std::make_unique<RandomSelector>(); }

}  // namespace preflight::select
