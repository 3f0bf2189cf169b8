#pragma once
// The Selector interface: given the pool pass and the target, a key per document (the budget
// cut takes the largest keys first) and, where the selector has one, a score a person can read.
// One implementation per file: random_selector.cc, first_selector.cc, dsir_selector.cc,
// classifier_selector.cc. The driver (selector.cc) does the reading, the cut and the writing.

#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "select/dsir.h"
#include "select/pool_pass.h"

namespace preflight::select {

struct Scores {
  // [records] of this process: the cut's key (larger is taken first; only valid records count).
  std::vector<double> key;
  // [records]: the selector's score (dsir: log importance weight; classifier: P(target);
  // random: the Gumbel key); NaN where there is none (bad lines, and every record of `first`).
  std::vector<double> score;
  // True when the score explains the choice (the manifest's "explain" block): dsir, classifier.
  bool explains = false;
  nlohmann::json params = nlohmann::json::object();  // The manifest's "params".
  // What the scores are a function of (a model's fingerprint, the seed): saved results of a
  // killed run are reused only under the same (select/resume.h).
  std::string model;
};

// What a selector scores documents with, a function of their text alone: the selections of a
// batch share one scoring pass (score_pass.h). Thread-safe.
class TextScorer {
 public:
  explicit TextScorer(std::string fingerprint) : fingerprint_(std::move(fingerprint)) {}
  virtual ~TextScorer() = default;
  virtual double Score(std::string_view text) const = 0;
  // What the scores are a function of: two scorers with the same give the same scores (one is
  // computed for both), and a killed run's saved scores are reused under the same.
  const std::string& fingerprint() const { return fingerprint_; }
  // The dsir model behind it, if any: dsir scorers of one feature space share one tokenization.
  virtual const DsirModel* dsir() const { return nullptr; }

 private:
  std::string fingerprint_;
};

class Selector {
 public:
  virtual ~Selector() = default;
  // What the target pass must collect (kNothing: the selector does not read the target).
  virtual TargetNeed target_need() const { return TargetNeed::kNothing; }
  // Whether the first pool pass counts dsir features.
  virtual bool counts_pool_features() const { return false; }
  // Fits what the selector scores with (dsir's weights; the classifier's model, which reads the
  // pool for its negatives) and fills out->params, explains and model. Returns the scorer of
  // documents by their text, or nullptr for a selector that scores without reading them
  // (random, first). Collective in a group.
  virtual Result<std::unique_ptr<TextScorer>> Prepare(const SelectionContext& ctx,
                                                      const PoolPass& pool,
                                                      const TargetPass& target, Scores* out) = 0;
  // The cut's keys for this process's records, once out->score holds the scorer's scores (NaN
  // for bad lines; a selector without a scorer fills score here).
  virtual void Keys(const SelectionContext& ctx, const PoolPass& pool, Scores* out) const = 0;
};

// The selector named by options.selector (one of SelectorNames()); nullptr for another name.
std::unique_ptr<Selector> MakeRandomSelector();
std::unique_ptr<Selector> MakeFirstSelector();
std::unique_ptr<Selector> MakeDsirSelector();
std::unique_ptr<Selector> MakeClassifierSelector();
std::unique_ptr<Selector> MakeSelector(const std::string& name);

inline constexpr double kNoScore = std::numeric_limits<double>::quiet_NaN();

}  // namespace preflight::select
