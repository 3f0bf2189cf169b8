#pragma once
// A selection's first reading passes made ahead of it, so that a caller that must check its
// inputs before writing anything (a trial) parses the pool and the target once and hands the
// passes to every selection it then makes from them (RunSelection's `prepared`). The pool pass
// holds O(records) (bytes and validity per record, and dsir's feature counts when a selector
// counts them), the target pass its summary and what the selectors need of it. One process only:
// a group of processes reads its own parts (pool_pass.h).

#include <string>
#include <vector>

#include "base/status.h"
#include "select/pool_pass.h"
#include "select/selector.h"

namespace preflight::select {

struct PreparedInputs {
  std::vector<std::string> pool, target;
  SelectOptions options;       // the read options, target fields, dsir options and threads used
  bool pool_features = false;  // pool_pass.counts holds dsir's feature counts
  bool target_counts = false, target_texts = false;  // what target holds beyond its summary
  PoolPass pool_pass;
  TargetPass target_pass;  // empty summary when no target was given

  // Whether the pool pass is what selections with `options` on `pool` would read first
  // (`pool_features`: with dsir's pool counts).
  bool ServesPool(const std::vector<std::string>& pool, const SelectOptions& options,
                  bool pool_features) const;
  // Whether the target pass is what a selection with `options` on `target` would read, for a
  // selector that needs `need` of it.
  bool ServesTarget(const std::vector<std::string>& target, const SelectOptions& options,
                    TargetNeed need) const;
};

// Reads the pool and then the target (when given), once each, as the selections by `selectors`
// (names of SelectorNames()) with `options` would read them first: every line is checked, and
// a bad one (without options.read.skip_bad) fails naming file and line, as the selection would.
// InvalidArgument for a pool or target without documents. options.selector is not used.
Result<PreparedInputs> PrepareInputs(const std::vector<std::string>& pool,
                                     const std::vector<std::string>& target,
                                     const SelectOptions& options,
                                     const std::vector<std::string>& selectors,
                                     const ProgressFn& progress = {});

}  // namespace preflight::select
