// classifier: fastText P(target | document) (classifier.h), highest first. Positives are the
// target's documents; negatives a uniform sample of the pool by bytes. The leader trains; in a
// group it gathers every process's negatives and broadcasts the model, which every process (the
// leader too) then scores with, so the scores do not depend on the number of ranks.

#include <algorithm>
#include <mutex>
#include <optional>

#include "base/file.h"
#include "select/classifier.h"
#include "select/group_codec.h"
#include "select/gumbel.h"
#include "select/scorer.h"

namespace preflight::select {
namespace {

// The seed of the negatives' Gumbel keys: the selection seed with "nega" mixed in.
constexpr uint64_t kNegativeSeedMix = 0x6e656761ull;

// The negatives' texts, in index order, on the leader (every process's in a group).
Result<std::vector<std::string>> SampleNegatives(const SelectionContext& ctx, const PoolPass& pool,
                                                 uint64_t target_bytes) {
  const SelectOptions& o = *ctx.options;
  ctx.group->SetPhase("negatives");
  std::vector<Candidate> uniform;
  for (uint64_t k = 0; k < pool.records; ++k)
    if (pool.valid[k])
      uniform.push_back(
          {pool.base + k, GumbelFor(o.seed ^ kNegativeSeedMix, pool.base + k), pool.bytes[k]});
  const auto budget = static_cast<uint64_t>(o.classifier.negative_ratio * target_bytes);
  PF_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, CutCandidates(ctx, std::move(uniform), budget));
  std::vector<uint8_t> is_negative(pool.records, 0);
  for (uint64_t i : ids) is_negative[i - pool.base] = 1;
  std::vector<std::pair<uint64_t, std::string>> found;
  std::mutex mu;
  PF_RETURN_IF_ERROR(RescanPool(
      ctx, pool,
      [&](int, uint64_t index, std::string_view text) {
        if (!is_negative[index - pool.base]) return;
        std::lock_guard<std::mutex> lock(mu);
        found.emplace_back(index, std::string(text));
      },
      nullptr));
  std::sort(found.begin(), found.end());
  std::vector<std::string> texts;
  for (auto& [i, t] : found) texts.push_back(std::move(t));
  if (!ctx.distributed()) return texts;
  // The leader trains on every process's negatives, in index order (= rank order).
  return GatherStrings(*ctx.group, texts);
}

// Trains on the leader; in a group every process gets the model as broadcast.
Result<Classifier> TrainOrReceive(const SelectionContext& ctx,
                                  const std::vector<std::string>& positives,
                                  const std::vector<std::string>& negatives) {
  const SelectOptions& o = *ctx.options;
  SelectionGroup& g = *ctx.group;
  g.SetPhase("model");
  Status trained;
  std::optional<Classifier> classifier;
  std::string model_bytes;
  if (ctx.leader()) {
    auto model = Classifier::Train(positives, negatives, o.classifier, o.seed, DirName(o.out_path));
    if (!model.ok()) {
      trained = model.status();
    } else if (ctx.distributed()) {
      auto bytes = model->Serialize(DirName(o.out_path));
      if (bytes.ok()) {
        model_bytes = std::move(*bytes);
      } else {
        trained = bytes.status();
      }
    } else {
      classifier = std::move(*model);
    }
  }
  PF_RETURN_IF_ERROR(g.Agree(trained));
  if (!ctx.distributed()) return std::move(*classifier);
  PF_RETURN_IF_ERROR(g.Broadcast(&model_bytes));
  auto model = Classifier::Deserialize(model_bytes);
  PF_RETURN_IF_ERROR(g.Agree(model.status()));
  return std::move(*model);
}

class ClassifierSelector : public Selector {
 public:
  TargetNeed target_need() const override { return TargetNeed::kTexts; }

  Status Score(const SelectionContext& ctx, const PoolPass& pool, const TargetPass& target,
               Scores* out) override {
    const SelectOptions& o = *ctx.options;
    PF_ASSIGN_OR_RETURN(std::vector<std::string> negatives,
                        SampleNegatives(ctx, pool, target.summary.text_bytes));
    uint64_t negative_bytes = 0;
    for (const std::string& t : negatives) negative_bytes += t.size();
    PF_ASSIGN_OR_RETURN(Classifier classifier, TrainOrReceive(ctx, target.texts, negatives));
    out->params = o.classifier.ToJson();
    out->params["training"] = {
        {"positives_docs", target.texts.size()},
        {"positives_bytes", target.summary.text_bytes},
        {"negatives_docs", negatives.size()},
        {"negatives_bytes", negative_bytes},
        {"negatives", "uniform sample of the pool by bytes (Gumbel keys, seed ^ 0x6e656761)"}};
    out->explains = true;

    ctx.group->SetPhase("score");
    out->score.assign(pool.records, 0.0);
    double* score = out->score.data();
    PF_RETURN_IF_ERROR(RescanPool(
        ctx, pool,
        [&](int, uint64_t index, std::string_view text) {
          score[index - pool.base] = classifier.PositiveProbability(text);
        },
        "score"));
    for (uint64_t k = 0; k < pool.records; ++k)
      if (!pool.valid[k]) out->score[k] = kNoScore;
    out->key = out->score;
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Selector> MakeClassifierSelector() {
  return std::make_unique<ClassifierSelector>();
}

}  // namespace preflight::select
