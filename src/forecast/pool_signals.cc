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

// A passage and the cross-validation fold that holds it out.
struct Passage {
  std::string_view text;
  size_t fold = 0;
};

// The documents cut into passages of at most kPassageBytes, then at most `max` of them, evenly
// spaced (so a large arm costs no more than a small one). Folds go by document (document d in
// fold d % 2), so that no document has passages on both sides of a fold: its other passages
// would make the held-out ones look more like their class than a new document of the same kind.
// With fewer than two documents (or a fold left empty), passage k goes to fold k % 2.
std::vector<Passage> Passages(const std::vector<std::string>& docs, size_t max,
                              size_t passage_bytes = kPassageBytes) {
  std::vector<Passage> all;
  for (size_t d = 0; d < docs.size(); ++d) {
    for (size_t at = 0; at < docs[d].size(); at += passage_bytes) {
      all.push_back({std::string_view(docs[d]).substr(at, passage_bytes), d % 2});
    }
  }
  std::vector<Passage> kept;
  if (all.size() <= max) {
    kept = std::move(all);
  } else {
    for (size_t k = 0; k < max; ++k) kept.push_back(all[k * all.size() / max]);
  }
  size_t in_first = 0;
  for (const Passage& p : kept) in_first += p.fold == 0;
  if (in_first == 0 || in_first == kept.size()) {
    for (size_t k = 0; k < kept.size(); ++k) kept[k].fold = k % 2;
  }
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

namespace {

// The two-fold cross-validated classifier of `target` passages against `arm` passages: each
// passage's score under the fold that held it out, and `extra` passages scored under both folds.
struct Folds {
  std::vector<double> pos, neg;            // held-out scores, fold by fold
  std::vector<size_t> neg_fold;            // per fold: how many of neg it held out
  std::vector<std::vector<double>> extra;  // extra[fold]: every extra passage's score
  std::vector<double> median;              // per fold: the median held-out target score
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Folds CrossValidate(const std::vector<Passage>& pos, const std::vector<Passage>& neg,
                    const std::vector<Passage>& extra) {
  Folds f;
  for (size_t fold = 0; fold < 2; ++fold) {  // a passage is held out in its own fold
    ClassCounts p, n;
    for (const Passage& x : pos)
      if (x.fold != fold) p.Add(x.text);
    for (const Passage& x : neg)
      if (x.fold != fold) n.Add(x.text);
    const std::vector<double> ratio = LogRatios(p, n);
    std::vector<double> held;
    for (const Passage& x : pos)
      if (x.fold == fold) held.push_back(Score(x.text, ratio));
    f.median.push_back(Median(held));
    f.pos.insert(f.pos.end(), held.begin(), held.end());
    const size_t before = f.neg.size();
    for (const Passage& x : neg)
      if (x.fold == fold) f.neg.push_back(Score(x.text, ratio));
    f.neg_fold.push_back(f.neg.size() - before);
    f.extra.emplace_back();
    for (const Passage& e : extra) f.extra.back().push_back(Score(e.text, ratio));
  }
  return f;
}

}  // namespace

double ClassifierAuc(const std::vector<std::string>& target, const std::vector<std::string>& arm) {
  const std::vector<Passage> pos = Passages(target, kMaxPassages);
  const std::vector<Passage> neg = Passages(arm, kMaxPassages);
  if (pos.size() < 2 || neg.size() < 2) return 0.5;
  const Folds f = CrossValidate(pos, neg, {});
  return Auc(f.pos, f.neg);
}

TargetLike TargetLikeShare(const std::vector<std::string>& target,
                           const std::vector<std::string>& curated,
                           const std::vector<std::string>& random, size_t passage_bytes) {
  TargetLike t;
  const std::vector<Passage> pos = Passages(target, kMaxPassages, passage_bytes);
  const std::vector<Passage> neg = Passages(random, kMaxPassages, passage_bytes);
  const std::vector<Passage> cur = Passages(curated, kMaxPassages, passage_bytes);
  if (pos.size() < 2 || neg.size() < 2) return t;
  const Folds f = CrossValidate(pos, neg, cur);
  t.auc = Auc(f.pos, f.neg);
  double random_above = 0, curated_above = 0;
  for (size_t fold = 0, at = 0; fold < 2; ++fold) {
    for (size_t k = 0; k < f.neg_fold[fold]; ++k, ++at) random_above += f.neg[at] > f.median[fold];
    for (double s : f.extra[fold]) curated_above += s > f.median[fold];
  }
  // Half of the passages like the target score above its median, next to none of the others:
  // twice the share above is the share like the target.
  const double n_random = static_cast<double>(neg.size());
  const double n_curated = static_cast<double>(cur.size());
  const double above_random = random_above / n_random;
  const double above_curated = cur.empty() ? 0 : curated_above / (2 * n_curated);  // both folds
  t.random = 2 * above_random;
  t.curated = 2 * above_curated;
  t.gain = t.curated - t.random;
  // Binomial errors of both shares (the curated passages counted once), 80% normal interval.
  const double se =
      2 * std::sqrt(above_random * (1 - above_random) / n_random +
                    (cur.empty() ? 0 : above_curated * (1 - above_curated) / n_curated));
  t.lo = t.gain - 1.2815515655446004 * se;
  t.hi = t.gain + 1.2815515655446004 * se;
  return t;
}

}  // namespace preflight::forecast
