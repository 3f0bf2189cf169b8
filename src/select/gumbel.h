#pragma once
// Gumbel top-k: sampling without replacement in proportion to weights w_i, in one sort.
// key_i = log w_i + G_i with G_i ~ Gumbel(0, 1); taking the largest keys in order is the same in
// distribution as drawing documents one at a time with probability w_i / (sum of the rest).
// G_i comes from a counter-based generator keyed by (seed, record index), so a record's key does
// not depend on thread count, shard or rank.

#include <cstdint>
#include <vector>

namespace preflight::select {

// Uniform in (0, 1), never 0 or 1, from SplitMix64 of (seed, index).
double UniformFor(uint64_t seed, uint64_t index);
// Standard Gumbel: -log(-log U).
double GumbelFor(uint64_t seed, uint64_t index);

struct Candidate {
  uint64_t index;  // Record index.
  double key;      // Larger is taken first; ties go to the lower index.
  uint64_t bytes;  // Text bytes the record costs.
};

// Takes candidates in decreasing key order while the bytes taken are below `budget`; the last one
// taken may cross it, so the total is within one document of the budget. Returns the taken record
// indices in increasing (file) order.
std::vector<uint64_t> TakeByBudget(std::vector<Candidate> candidates, uint64_t budget);

}  // namespace preflight::select
