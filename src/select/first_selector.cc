// first: the first documents in pool order ("whatever came first"). It has no score: the key is
// minus the record index, so the cut takes a prefix of the pool.

#include "select/scorer.h"

namespace preflight::select {
namespace {

class FirstSelector : public Selector {
 public:
  Result<std::unique_ptr<TextScorer>> Prepare(const SelectionContext&, const PoolPass&,
                                              const TargetPass&, Scores* out) override {
    out->model = "first";
    return std::unique_ptr<TextScorer>();
  }

  void Keys(const SelectionContext&, const PoolPass& pool, Scores* out) const override {
    out->key.assign(pool.records, 0.0);
    out->score.assign(pool.records, kNoScore);
    for (uint64_t k = 0; k < pool.records; ++k) out->key[k] = -static_cast<double>(pool.base + k);
  }
};

}  // namespace

std::unique_ptr<Selector> MakeFirstSelector() { return std::make_unique<FirstSelector>(); }

}  // namespace preflight::select
