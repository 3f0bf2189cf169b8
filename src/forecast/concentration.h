#pragma once
// How concentrated the curated quarter is, against a random quarter of the same pool:
// does it keep the pool's kinds of text, or a few of them? A pool carries no reliable source
// label, so its kinds are found: each document's profile is its hashed byte-bigram counts,
// L2-normalised, and the random quarter's documents (a sample of the pool) are grouped into k
// clusters of near profiles (spherical k-means: cosine similarity, seeded k-means++ start, a
// fixed number of rounds). Every document of both arms then joins its nearest cluster, by bytes.
//
//   largest_source_random   the share of the random quarter in its largest cluster (the pool's
//                           largest kind of text)
//   largest_source_kept     the curated quarter's share in that same cluster over the random
//                           quarter's: 1 keeps it as a random quarter does, 0 drops it all
//   curated_top, random_top each arm's share in its own largest cluster
//   top_gain                curated_top - random_top: > 0, the curated quarter is more of one kind
//
// Deterministic for fixed inputs and seed; at most kMaxDocuments of each arm are read (evenly
// spaced), so the cost is bounded.

#include <cstdint>
#include <string>
#include <vector>

namespace preflight::forecast {

struct Concentration {
  int clusters = 0;
  double largest_source_random = 0, largest_source_kept = 1;
  double curated_top = 0, random_top = 0, top_gain = 0;
};

Concentration MeasureConcentration(const std::vector<std::string>& curated,
                                   const std::vector<std::string>& random, int k = 8,
                                   uint64_t seed = 1);

}  // namespace preflight::forecast
