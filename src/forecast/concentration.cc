#include "forecast/concentration.h"

#include <algorithm>
#include <cmath>

#include "select/gumbel.h"

namespace preflight::forecast {
namespace {

constexpr size_t kMaxDocuments = 2000;
constexpr int kDims = 256;  // hashed byte-bigram buckets
constexpr int kRounds = 12;

struct Profiles {
  std::vector<std::vector<float>> rows;  // unit length (all zero for an empty document)
  std::vector<double> bytes;
};

// At most kMaxDocuments documents, evenly spaced, each a normalised hashed bigram profile.
Profiles Profile(const std::vector<std::string>& docs) {
  Profiles p;
  const size_t n = docs.size(), take = std::min(n, kMaxDocuments);
  for (size_t k = 0; k < take; ++k) {
    const std::string& d = docs[k * n / take];
    std::vector<float> row(kDims, 0.f);
    for (size_t i = 1; i < d.size(); ++i) {
      const uint32_t pair = static_cast<unsigned char>(d[i - 1]) * 256u +
                            static_cast<unsigned char>(d[i]);
      row[(pair * 2654435761u) >> 24] += 1.f;
    }
    double norm = 0;
    for (float v : row) norm += static_cast<double>(v) * v;
    if (norm > 0) {
      for (float& v : row) v = static_cast<float>(v / std::sqrt(norm));
    }
    p.rows.push_back(std::move(row));
    p.bytes.push_back(static_cast<double>(d.size()));
  }
  return p;
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (int i = 0; i < kDims; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

size_t Nearest(const std::vector<std::vector<float>>& centres, const std::vector<float>& row) {
  size_t best = 0;
  double best_sim = -2;
  for (size_t c = 0; c < centres.size(); ++c) {
    const double sim = Dot(centres[c], row);
    if (sim > best_sim) {
      best_sim = sim;
      best = c;
    }
  }
  return best;
}

// k-means++ start: the first centre by the seed, each next one with probability proportional to
// 1 - (its best similarity to the centres so far), drawn with the seeded generator.
std::vector<std::vector<float>> Start(const Profiles& p, int k, uint64_t seed) {
  std::vector<std::vector<float>> centres;
  const size_t n = p.rows.size();
  centres.push_back(p.rows[std::min(n - 1, static_cast<size_t>(select::UniformFor(seed, 0) * n))]);
  std::vector<double> far(n, 2.0);
  for (int c = 1; c < k; ++c) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      far[i] = std::min(far[i], std::max(0.0, 1 - Dot(centres.back(), p.rows[i])));
      total += far[i];
    }
    if (total <= 0) break;  // every document sits on a centre already
    double u = select::UniformFor(seed, static_cast<uint64_t>(c)) * total;
    size_t pick = n - 1;
    for (size_t i = 0; i < n; ++i) {
      if ((u -= far[i]) <= 0) {
        pick = i;
        break;
      }
    }
    centres.push_back(p.rows[pick]);
  }
  return centres;
}

// Spherical k-means rounds: assign by cosine, each centre the normalised mean of its members.
std::vector<std::vector<float>> Cluster(const Profiles& p, int k, uint64_t seed) {
  std::vector<std::vector<float>> centres = Start(p, k, seed);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::vector<double>> sum(centres.size(), std::vector<double>(kDims, 0.0));
    for (const auto& row : p.rows) {
      std::vector<double>& s = sum[Nearest(centres, row)];
      for (int i = 0; i < kDims; ++i) s[i] += row[i];
    }
    for (size_t c = 0; c < centres.size(); ++c) {
      double norm = 0;
      for (double v : sum[c]) norm += v * v;
      if (norm <= 0) continue;  // an empty cluster keeps its centre
      for (int i = 0; i < kDims; ++i) centres[c][i] = static_cast<float>(sum[c][i] / std::sqrt(norm));
    }
  }
  return centres;
}

// Each cluster's share of the documents' bytes.
std::vector<double> Shares(const std::vector<std::vector<float>>& centres, const Profiles& p) {
  std::vector<double> share(centres.size(), 0.0);
  double total = 0;
  for (size_t i = 0; i < p.rows.size(); ++i) {
    share[Nearest(centres, p.rows[i])] += p.bytes[i];
    total += p.bytes[i];
  }
  if (total > 0) {
    for (double& s : share) s /= total;
  }
  return share;
}

}  // namespace

Concentration MeasureConcentration(const std::vector<std::string>& curated,
                                   const std::vector<std::string>& random, int k, uint64_t seed) {
  Concentration out;
  const Profiles r = Profile(random), c = Profile(curated);
  if (r.rows.empty() || c.rows.empty() || k < 1) return out;
  const std::vector<std::vector<float>> centres = Cluster(r, k, seed);
  const std::vector<double> rs = Shares(centres, r), cs = Shares(centres, c);
  const size_t largest = static_cast<size_t>(std::max_element(rs.begin(), rs.end()) - rs.begin());
  out.clusters = static_cast<int>(centres.size());
  out.largest_source_random = rs[largest];
  out.largest_source_kept = rs[largest] > 0 ? cs[largest] / rs[largest] : 1;
  out.random_top = rs[largest];
  out.curated_top = *std::max_element(cs.begin(), cs.end());
  out.top_gain = out.curated_top - out.random_top;
  return out;
}

}  // namespace preflight::forecast
