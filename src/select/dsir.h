#pragma once
// DSIR: data selection with importance resampling over hashed n-gram features (Xie et al. 2023).
//
// Fit: bag-of-features distributions of the target and of the pool over `buckets` hashed buckets
// (features.h), each smoothed with an additive pseudo-count per bucket:
//     p(b) = (count(b) + smoothing) / (total + smoothing * buckets).
// Log importance weight of a document with feature counts c(b):
//     log w = sum_b c(b) * (log p_target(b) - log p_pool(b)).
// Length: that sum grows with the document's length, so long documents would get extreme weights
// and the Gumbel noise of the resampling step would not matter for them. The reference
// implementation avoids this by cutting documents into chunks of about 128 words. We keep whole
// documents (the unit a user keeps or drops) and scale instead:
//     length = "normalize" (default): log w = mean over the document's features of the log ratio
//         times `reference_features` (255 = the 128 unigrams + 127 bigrams of a 128-word chunk),
//         i.e. the log weight of a typical 128-word chunk of this document;
//     length = "sum": the raw sum, as the formula above (documents of similar length only).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight::select {

struct DsirOptions {
  uint32_t buckets = 10000;
  int ngrams = 2;                    // 1: unigrams; 2: unigrams and bigrams.
  double smoothing = 1.0;            // Pseudo-count added to every bucket.
  std::string length = "normalize";  // "normalize" or "sum".
  double reference_features = 255;   // Features of a 128-word chunk.

  Status Validate() const;
};

// Adds the document's feature counts into counts[0, buckets).
void CountFeatures(std::string_view text, const DsirOptions& options, uint64_t* counts);

// The bucket-wise sum of per-thread count vectors (each of `buckets` entries).
std::vector<uint64_t> SumCounts(const std::vector<std::vector<uint64_t>>& per_thread,
                                uint32_t buckets);

class DsirModel;

// The log weights of `text` under `n` models of one feature space (the same buckets and
// n-grams), in one tokenization: out[m] is models[m]->LogWeight(text), bit for bit.
void LogWeights(std::string_view text, const DsirModel* const* models, size_t n, double* out);

class DsirModel {
 public:
  // Fails when either side has no features at all.
  static Result<DsirModel> Fit(const std::vector<uint64_t>& target_counts,
                               const std::vector<uint64_t>& pool_counts,
                               const DsirOptions& options);
  double LogWeight(std::string_view text) const;
  // log w from a document's sum of log ratios over its `features` features (the length rule).
  double Weigh(double sum, uint64_t features) const;
  const std::vector<double>& log_ratio() const { return log_ratio_; }
  const DsirOptions& options() const { return options_; }

 private:
  DsirOptions options_;
  std::vector<double> log_ratio_;  // [buckets]: log p_target(b) - log p_pool(b).
};

}  // namespace preflight::select
