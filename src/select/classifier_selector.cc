// classifier: fastText P(target | document) (classifier.h), highest first. Positives are the
// target's documents; negatives a uniform sample of the pool by bytes. The leader trains; in a
// group it gathers every process's negatives and broadcasts the model, which every process (the
// leader too) then scores with, so the scores do not depend on the number of ranks.

#include <algorithm>
#include <mutex>
#include <optional>

#include "base/file.h"
#include "base/json.h"
#include "select/classifier.h"
#include "select/group_codec.h"
#include "select/gumbel.h"
#include "select/resume.h"
#include "select/scorer.h"
#include "select/work_folder.h"

namespace preflight::select {
namespace {

// The seed of the negatives' Gumbel keys: the selection seed with "nega" mixed in.
constexpr uint64_t kNegativeSeedMix = 0x6e656761ull;

// Where fastText's files go while it trains or saves: the work folder.
std::string ScratchDir(const SelectionContext& ctx) {
  return ctx.work != nullptr ? ctx.work->path() : DirName(ctx.options->ManifestPath());
}

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
      ctx, pool, pool.MyShards(),
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

// The model every process scores with, and how it was trained.
struct TrainedModel {
  std::string bytes;  // As fastText saves it: what the scores are a function of.
  std::optional<Classifier> classifier;
  uint64_t negative_docs = 0, negative_bytes = 0;  // On the leader.
};

// What the model depends on: the pool (every shard), how it is read, the target, the seed and
// fastText's options.
std::string ModelKey(const SelectionContext& ctx, const PoolPass& pool, const TargetPass& target) {
  const SelectOptions& o = *ctx.options;
  std::string shards, targets;
  for (uint32_t s = 0; s < pool.sharding.shards.size(); ++s) shards += pool.Identity(s) + "\n";
  for (const auto& in : target.summary.inputs) targets += in.sha256 + "\n";
  return KeyOf({"classifier model 1", shards, targets, o.read.text_field, o.TargetRead().text_field,
                o.read.skip_bad ? "skip" : "strict", std::to_string(o.seed),
                o.classifier.ToJson().dump()});
}

// Trains on the leader (`model->bytes` set there); every process then loads the bytes.
Status Train(const SelectionContext& ctx, const PoolPass& pool, const TargetPass& target,
             TrainedModel* model) {
  const SelectOptions& o = *ctx.options;
  PF_ASSIGN_OR_RETURN(std::vector<std::string> negatives,
                      SampleNegatives(ctx, pool, target.summary.text_bytes));
  SelectionGroup& g = *ctx.group;
  g.SetPhase("model");
  Status trained;
  if (ctx.leader()) {
    model->negative_docs = negatives.size();
    for (const std::string& t : negatives) model->negative_bytes += t.size();
    auto fitted = Classifier::Train(target.texts, negatives, o.classifier, o.seed, ScratchDir(ctx));
    auto bytes = fitted.ok() ? fitted->Serialize(ScratchDir(ctx)) : fitted.status();
    trained = bytes.status();
    if (bytes.ok()) model->bytes = std::move(*bytes);
  }
  return g.Agree(trained);
}

// The model a killed run saved under `key`, into `model` (its bytes and negative counts); false
// when there is none or it does not read whole, its header included: it is then trained again,
// as LoadResult's unreadable results are.
bool LoadSavedModel(const WorkFolder& work, const std::string& key, TrainedModel* model) {
  std::optional<SavedResult> saved = LoadResult(work, "classifier-model", key);
  if (!saved || saved->blobs.size() != 1) return false;
  const JsonReader header(saved->header, work.File("classifier-model"), "$.header");
  Result<int64_t> docs = header.Int("negative_docs", 0);
  Result<int64_t> bytes = header.Int("negative_bytes", 0);
  if (!docs.ok() || !bytes.ok()) return false;
  model->bytes = std::move(saved->blobs[0]);
  model->negative_docs = static_cast<uint64_t>(*docs);
  model->negative_bytes = static_cast<uint64_t>(*bytes);
  return true;
}

// The killed run's model when it serves (on the leader), else a new one; every process ends
// with it loaded. Collective.
Status ModelFor(const SelectionContext& ctx, const PoolPass& pool, const TargetPass& target,
                TrainedModel* model) {
  SelectionGroup& g = *ctx.group;
  std::string key;
  bool saved = false;
  if (ctx.leader() && ctx.work) {
    key = ModelKey(ctx, pool, target);
    saved = LoadSavedModel(*ctx.work, key, model);
  }
  PF_ASSIGN_OR_RETURN(std::vector<uint64_t> reuse, BroadcastU64(g, {saved ? 1u : 0u}));
  if (!reuse[0]) {
    PF_RETURN_IF_ERROR(Train(ctx, pool, target, model));
    if (ctx.leader() && ctx.work) {
      PF_RETURN_IF_ERROR(SaveResult(
          *ctx.work, "classifier-model", key,
          {{"negative_docs", model->negative_docs}, {"negative_bytes", model->negative_bytes}},
          {model->bytes}));
    }
  }
  if (ctx.distributed()) PF_RETURN_IF_ERROR(g.Broadcast(&model->bytes));
  auto loaded = Classifier::Deserialize(model->bytes);
  PF_RETURN_IF_ERROR(g.Agree(loaded.status()));
  model->classifier = std::move(*loaded);
  return Status::Ok();
}

class ClassifierScorer : public TextScorer {
 public:
  explicit ClassifierScorer(TrainedModel model)
      : TextScorer(KeyOf({"classifier 1", model.bytes})), model_(std::move(model)) {}
  double Score(std::string_view text) const override {
    return model_.classifier->PositiveProbability(text);
  }

 private:
  TrainedModel model_;
};

class ClassifierSelector : public Selector {
 public:
  TargetNeed target_need() const override { return TargetNeed::kTexts; }

  Result<std::unique_ptr<TextScorer>> Prepare(const SelectionContext& ctx, const PoolPass& pool,
                                              const TargetPass& target, Scores* out) override {
    const SelectOptions& o = *ctx.options;
    TrainedModel model;
    PF_RETURN_IF_ERROR(ModelFor(ctx, pool, target, &model));
    out->params = o.classifier.ToJson();
    out->params["training"] = {
        {"positives_docs", target.texts.size()},
        {"positives_bytes", target.summary.text_bytes},
        {"negatives_docs", model.negative_docs},
        {"negatives_bytes", model.negative_bytes},
        {"negatives", "uniform sample of the pool by bytes (Gumbel keys, seed ^ 0x6e656761)"}};
    out->explains = true;
    auto scorer = std::make_unique<ClassifierScorer>(std::move(model));
    out->model = scorer->fingerprint();
    return std::unique_ptr<TextScorer>(std::move(scorer));
  }

  void Keys(const SelectionContext&, const PoolPass& pool, Scores* out) const override {
    for (uint64_t k = 0; k < pool.records; ++k)
      if (!pool.valid[k]) out->score[k] = kNoScore;
    out->key = out->score;
  }
};

}  // namespace

std::unique_ptr<Selector> MakeClassifierSelector() {
  return std::make_unique<ClassifierSelector>();
}

}  // namespace preflight::select
