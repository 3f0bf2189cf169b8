// dsir: importance resampling over hashed n-grams (dsir.h). The target's and the whole pool's
// feature counts (summed over a group) fit the log importance weights; a second pool pass scores
// each document; the key adds Gumbel noise, so the cut is a weighted sample without replacement.

#include "select/dsir.h"
#include "select/gumbel.h"
#include "select/resume.h"
#include "select/scorer.h"

namespace preflight::select {
namespace {

nlohmann::json DsirParams(const DsirOptions& o) {
  return {{"buckets", o.buckets},
          {"ngrams", o.ngrams},
          {"smoothing", o.smoothing},
          {"length", o.length},
          {"reference_features", o.reference_features},
          {"tokenizer", "ascii-lowercase wordpunct"},
          {"hash", "fnv1a-64+splitmix64, bigram splitmix"}};
}

// What LogWeight computes: the log ratios and the rules that apply them.
std::string ModelFingerprint(const DsirModel& model) {
  const DsirOptions& o = model.options();
  const std::vector<double>& r = model.log_ratio();
  return KeyOf({"dsir 1", o.length, std::to_string(o.reference_features),
                std::to_string(o.ngrams), std::to_string(o.buckets),
                std::string_view(reinterpret_cast<const char*>(r.data()), r.size() * sizeof(double))});
}

class DsirScorer : public TextScorer {
 public:
  explicit DsirScorer(DsirModel model)
      : TextScorer(ModelFingerprint(model)), model_(std::move(model)) {}
  double Score(std::string_view text) const override { return model_.LogWeight(text); }
  const DsirModel* dsir() const override { return &model_; }

 private:
  DsirModel model_;
};

class DsirSelector : public Selector {
 public:
  TargetNeed target_need() const override { return TargetNeed::kFeatureCounts; }
  bool counts_pool_features() const override { return true; }

  Result<std::unique_ptr<TextScorer>> Prepare(const SelectionContext& ctx, const PoolPass& pool,
                                              const TargetPass& target, Scores* out) override {
    const SelectOptions& o = *ctx.options;
    ctx.group->SetPhase("dsir-counts");
    std::vector<uint64_t> pool_counts = pool.counts;
    PF_RETURN_IF_ERROR(ctx.group->SumU64(&pool_counts));
    PF_ASSIGN_OR_RETURN(DsirModel model, DsirModel::Fit(target.counts, pool_counts, o.dsir));
    out->params = DsirParams(o.dsir);
    out->explains = true;
    auto scorer = std::make_unique<DsirScorer>(std::move(model));
    out->model = scorer->fingerprint();
    return std::unique_ptr<TextScorer>(std::move(scorer));
  }

  void Keys(const SelectionContext& ctx, const PoolPass& pool, Scores* out) const override {
    out->key.assign(pool.records, 0.0);
    for (uint64_t k = 0; k < pool.records; ++k) {
      if (!pool.valid[k]) {
        out->score[k] = kNoScore;
        continue;
      }
      out->key[k] = out->score[k] + GumbelFor(ctx.options->seed, pool.base + k);
    }
  }
};

}  // namespace

std::unique_ptr<Selector> MakeDsirSelector() { return std::make_unique<DsirSelector>(); }

}  // namespace preflight::select
