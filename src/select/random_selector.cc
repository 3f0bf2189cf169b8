// random: a uniform sample without replacement, by Gumbel keys with equal weights (gumbel.h).
// A record's key depends only on (seed, index): the same sample on any thread or rank count.

#include "select/gumbel.h"
#include "select/scorer.h"

namespace preflight::select {
namespace {

class RandomSelector : public Selector {
 public:
  Result<std::unique_ptr<TextScorer>> Prepare(const SelectionContext& ctx, const PoolPass&,
                                              const TargetPass&, Scores* out) override {
    out->model = "random " + std::to_string(ctx.options->seed);
    return std::unique_ptr<TextScorer>();
  }

  void Keys(const SelectionContext& ctx, const PoolPass& pool, Scores* out) const override {
    out->key.assign(pool.records, 0.0);
    out->score.assign(pool.records, kNoScore);
    for (uint64_t k = 0; k < pool.records; ++k) {
      if (!pool.valid[k]) continue;
      out->key[k] = out->score[k] = GumbelFor(ctx.options->seed, pool.base + k);
    }
  }
};

}  // namespace

std::unique_ptr<Selector> MakeRandomSelector() { return std::make_unique<RandomSelector>(); }

}  // namespace preflight::select
