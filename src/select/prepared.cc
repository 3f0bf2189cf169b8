#include "select/prepared.h"

#include <algorithm>

namespace preflight::select {
namespace {

bool SameRead(const corpus::ReadOptions& a, const corpus::ReadOptions& b) {
  return a.text_field == b.text_field && a.skip_bad == b.skip_bad &&
         a.max_document_bytes == b.max_document_bytes && a.threads == b.threads;
}

bool SameFeatures(const DsirOptions& a, const DsirOptions& b) {
  return a.buckets == b.buckets && a.ngrams == b.ngrams;
}

bool Any(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

bool PreparedInputs::ServesPool(const std::vector<std::string>& pool_paths,
                                const SelectOptions& o, bool features) const {
  if (pool_paths != pool || !SameRead(o.read, options.read)) return false;
  if (o.split_bytes != options.split_bytes) return false;
  if (features && (!pool_features || !SameFeatures(o.dsir, options.dsir))) return false;
  return true;
}

bool PreparedInputs::ServesTarget(const std::vector<std::string>& target_paths,
                                  const SelectOptions& o, TargetNeed need) const {
  if (need == TargetNeed::kNothing) return true;
  if (target_paths != target || !SameRead(o.TargetRead(), options.TargetRead())) return false;
  if (need == TargetNeed::kFeatureCounts) {
    return target_counts && SameFeatures(o.dsir, options.dsir);
  }
  return target_texts;
}

Result<PreparedInputs> PrepareInputs(const std::vector<std::string>& pool,
                                     const std::vector<std::string>& target,
                                     const SelectOptions& options,
                                     const std::vector<std::string>& selectors,
                                     const ProgressFn& progress) {
  if (pool.empty()) return Status::InvalidArgument("no --pool given");
  PreparedInputs p;
  p.pool = pool;
  p.target = target;
  p.options = options;
  p.pool_features = Any(selectors, "dsir");
  p.target_counts = p.pool_features && !target.empty();
  p.target_texts = Any(selectors, "classifier") && !target.empty();
  SelectionGroup alone;
  SelectionContext ctx{&p.pool, &p.target, &p.options, &progress, &alone, CutMethod::kRadix};
  // The pool first: a bad line in it is named before one in the target, as a trial always did.
  PF_RETURN_IF_ERROR(ReadPool(ctx, p.pool_features, &p.pool_pass));
  if (!target.empty()) {
    PF_RETURN_IF_ERROR(ScanTargetHere(ctx, p.target_counts, p.target_texts, &p.target_pass));
  }
  return p;
}

}  // namespace preflight::select
