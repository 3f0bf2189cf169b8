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
#include <vector>

#include "base/status.h"
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

class Selector {
 public:
  virtual ~Selector() = default;
  // What the target pass must collect (kNothing: the selector does not read the target).
  virtual TargetNeed target_need() const { return TargetNeed::kNothing; }
  // Whether the first pool pass counts dsir features.
  virtual bool counts_pool_features() const { return false; }
  // Fills `out` for this process's records. Collective in a group.
  virtual Status Score(const SelectionContext& ctx, const PoolPass& pool, const TargetPass& target,
                       Scores* out) = 0;
};

// The selector named by options.selector (one of SelectorNames()); nullptr for another name.
std::unique_ptr<Selector> MakeRandomSelector();
std::unique_ptr<Selector> MakeFirstSelector();
std::unique_ptr<Selector> MakeDsirSelector();
std::unique_ptr<Selector> MakeClassifierSelector();
std::unique_ptr<Selector> MakeSelector(const std::string& name);

inline constexpr double kNoScore = std::numeric_limits<double>::quiet_NaN();

}  // namespace preflight::select
