#include "select/dsir.h"

#include <cmath>

#include "select/features.h"

namespace preflight::select {

Status DsirOptions::Validate() const {
  if (buckets < 1) return Status::InvalidArgument("--dsir-buckets must be at least 1");
  if (ngrams != 1 && ngrams != 2) return Status::InvalidArgument("--dsir-ngrams must be 1 or 2");
  if (!(smoothing > 0)) return Status::InvalidArgument("--dsir-smoothing must be > 0");
  if (length != "normalize" && length != "sum") {
    return Status::InvalidArgument("--dsir-length must be 'normalize' or 'sum', not '" + length +
                                   "'");
  }
  return Status::Ok();
}

void CountFeatures(std::string_view text, const DsirOptions& options, uint64_t* counts) {
  ForEachFeature(text, options.buckets, options.ngrams, [counts](uint32_t b) { ++counts[b]; });
}

std::vector<uint64_t> SumCounts(const std::vector<std::vector<uint64_t>>& per_thread,
                                uint32_t buckets) {
  std::vector<uint64_t> sum(buckets, 0);
  for (const auto& v : per_thread)
    for (size_t b = 0; b < v.size() && b < buckets; ++b) sum[b] += v[b];
  return sum;
}

Result<DsirModel> DsirModel::Fit(const std::vector<uint64_t>& target_counts,
                                 const std::vector<uint64_t>& pool_counts,
                                 const DsirOptions& options) {
  PF_RETURN_IF_ERROR(options.Validate());
  const size_t buckets = options.buckets;
  if (target_counts.size() != buckets || pool_counts.size() != buckets) {
    return Status::Internal("DSIR fit: count vectors do not have the bucket count");
  }
  double target_total = 0, pool_total = 0;
  for (size_t b = 0; b < buckets; ++b) {
    target_total += static_cast<double>(target_counts[b]);
    pool_total += static_cast<double>(pool_counts[b]);
  }
  if (target_total == 0)
    return Status::InvalidArgument("the target has no tokens: nothing to select toward");
  if (pool_total == 0)
    return Status::InvalidArgument("the pool has no tokens: nothing to select from");
  DsirModel model;
  model.options_ = options;
  model.log_ratio_.resize(buckets);
  const double a = options.smoothing;
  const double t_den = target_total + a * buckets, p_den = pool_total + a * buckets;
  for (size_t b = 0; b < buckets; ++b) {
    double pt = (static_cast<double>(target_counts[b]) + a) / t_den;
    double pp = (static_cast<double>(pool_counts[b]) + a) / p_den;
    model.log_ratio_[b] = std::log(pt) - std::log(pp);
  }
  return model;
}

double DsirModel::Weigh(double sum, uint64_t features) const {
  if (options_.length == "sum" || features == 0) return sum;
  return sum / static_cast<double>(features) * options_.reference_features;
}

double DsirModel::LogWeight(std::string_view text) const {
  const double* ratio = log_ratio_.data();
  double sum = 0;
  uint64_t n = 0;
  ForEachFeature(text, options_.buckets, options_.ngrams, [&](uint32_t b) {
    sum += ratio[b];
    ++n;
  });
  return Weigh(sum, n);
}

void LogWeights(std::string_view text, const DsirModel* const* models, size_t n, double* out) {
  if (n == 1) {
    out[0] = models[0]->LogWeight(text);
    return;
  }
  thread_local std::vector<const double*> ratios;
  ratios.resize(n);
  for (size_t m = 0; m < n; ++m) {
    ratios[m] = models[m]->log_ratio().data();
    out[m] = 0;
  }
  uint64_t features = 0;
  const DsirOptions& o = models[0]->options();
  // Each model's sum takes the features in the same order as LogWeight: the same bits.
  ForEachFeature(text, o.buckets, o.ngrams, [&](uint32_t b) {
    for (size_t m = 0; m < n; ++m) out[m] += ratios[m][b];
    ++features;
  });
  for (size_t m = 0; m < n; ++m) out[m] = models[m]->Weigh(out[m], features);
}

}  // namespace preflight::select
