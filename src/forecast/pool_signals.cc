#include "forecast/pool_signals.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace preflight::forecast {
namespace {

constexpr size_t kPassageBytes = 4096;
constexpr size_t kMaxPassages = 4000;
constexpr int kCoverageBits = 24;    // 2 MiB of bits: few collisions for a few million 4-grams
constexpr int kClassifierBits = 18;  // naive Bayes buckets per class

// The byte 4-gram ending at `i` (i >= 3), hashed to `bits` bits (multiplicative hashing).
uint32_t Hash4(std::string_view text, size_t i, int bits) {
  const uint32_t gram = static_cast<uint32_t>(static_cast<unsigned char>(text[i - 3])) |
                        static_cast<uint32_t>(static_cast<unsigned char>(text[i - 2])) << 8 |
                        static_cast<uint32_t>(static_cast<unsigned char>(text[i - 1])) << 16 |
                        static_cast<uint32_t>(static_cast<unsigned char>(text[i])) << 24;
  return static_cast<uint32_t>((gram * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

// The documents cut into passages of at most kPassageBytes, then at most `max` of them, evenly
// spaced (so a large arm costs no more than a small one).
std::vector<std::string_view> Passages(const std::vector<std::string>& docs, size_t max) {
  std::vector<std::string_view> all;
  for (const std::string& d : docs) {
    for (size_t at = 0; at < d.size(); at += kPassageBytes) {
      all.emplace_back(std::string_view(d).substr(at, kPassageBytes));
    }
  }
  if (all.size() <= max) return all;
  std::vector<std::string_view> kept;
  for (size_t k = 0; k < max; ++k) kept.push_back(all[k * all.size() / max]);
  return kept;
}

// Naive Bayes counts of one class.
struct ClassCounts {
  std::vector<double> counts = std::vector<double>(size_t{1} << kClassifierBits, 0.0);
  double total = 0;
  void Add(std::string_view text) {
    for (size_t i = 3; i < text.size(); ++i) counts[Hash4(text, i, kClassifierBits)] += 1;
    total += text.size() > 3 ? static_cast<double>(text.size() - 3) : 0;
  }
};

// log P(bucket | positive) - log P(bucket | negative), add-one smoothed over the buckets.
std::vector<double> LogRatios(const ClassCounts& pos, const ClassCounts& neg) {
  const double buckets = static_cast<double>(pos.counts.size());
  std::vector<double> ratio(pos.counts.size());
  for (size_t h = 0; h < ratio.size(); ++h) {
    ratio[h] = std::log((pos.counts[h] + 1) / (pos.total + buckets)) -
               std::log((neg.counts[h] + 1) / (neg.total + buckets));
  }
  return ratio;
}

// Mean log-likelihood ratio per 4-gram: > 0 reads like the positive class.
double Score(std::string_view text, const std::vector<double>& ratio) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = 3; i < text.size(); ++i, ++n) sum += ratio[Hash4(text, i, kClassifierBits)];
  return n > 0 ? sum / static_cast<double>(n) : 0;
}

// Mann-Whitney AUC: the chance a positive scores above a negative (ties count half).
double Auc(const std::vector<double>& pos, std::vector<double> neg) {
  std::sort(neg.begin(), neg.end());
  double wins = 0;
  for (double p : pos) {
    const auto below = std::lower_bound(neg.begin(), neg.end(), p) - neg.begin();
    const auto not_above = std::upper_bound(neg.begin(), neg.end(), p) - neg.begin();
    wins += static_cast<double>(below) + 0.5 * static_cast<double>(not_above - below);
  }
  return wins / (static_cast<double>(pos.size()) * static_cast<double>(neg.size()));
}

}  // namespace

double NgramCoverage(const std::vector<std::string>& arm, const std::vector<std::string>& target) {
  std::vector<bool> seen(size_t{1} << kCoverageBits, false);
  for (const std::string& d : arm) {
    for (size_t i = 3; i < d.size(); ++i) seen[Hash4(d, i, kCoverageBits)] = true;
  }
  double covered = 0, grams = 0;
  for (const std::string& d : target) {
    for (size_t i = 3; i < d.size(); ++i) {
      covered += seen[Hash4(d, i, kCoverageBits)];
      grams += 1;
    }
  }
  return grams > 0 ? covered / grams : 0;
}

double NgramCoverageGain(const std::vector<std::string>& curated,
                         const std::vector<std::string>& random,
                         const std::vector<std::string>& target) {
  return NgramCoverage(curated, target) - NgramCoverage(random, target);
}

double ClassifierAuc(const std::vector<std::string>& target, const std::vector<std::string>& arm) {
  const std::vector<std::string_view> pos = Passages(target, kMaxPassages);
  const std::vector<std::string_view> neg = Passages(arm, kMaxPassages);
  if (pos.size() < 2 || neg.size() < 2) return 0.5;
  std::vector<double> pos_scores, neg_scores;
  for (size_t fold = 0; fold < 2; ++fold) {  // passage k is held out in fold k % 2
    ClassCounts p, n;
    for (size_t k = 0; k < pos.size(); ++k)
      if (k % 2 != fold) p.Add(pos[k]);
    for (size_t k = 0; k < neg.size(); ++k)
      if (k % 2 != fold) n.Add(neg[k]);
    const std::vector<double> ratio = LogRatios(p, n);
    for (size_t k = fold; k < pos.size(); k += 2) pos_scores.push_back(Score(pos[k], ratio));
    for (size_t k = fold; k < neg.size(); k += 2) neg_scores.push_back(Score(neg[k], ratio));
  }
  return Auc(pos_scores, neg_scores);
}

}  // namespace preflight::forecast
