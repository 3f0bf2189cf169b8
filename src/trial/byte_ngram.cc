#include "trial/byte_ngram.h"

#include <algorithm>
#include <cassert>

namespace preflight::trial {
namespace {

constexpr int kSymbolBits = 9;  // 257 symbols

// The key of the n-gram tokens[i - k + 1 .. i], oldest symbol in the highest bits.
uint64_t PackKey(const uint16_t* last, int k) {
  uint64_t key = 0;
  for (int j = k - 1; j >= 0; --j) key = (key << kSymbolBits) | *(last - j);
  return key;
}

// Index of `key` in sorted `keys`, or -1.
int64_t Find(const std::vector<uint64_t>& keys, uint64_t key) {
  auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) return -1;
  return it - keys.begin();
}

}  // namespace

ByteNgramModel::ByteNgramModel(const std::vector<uint16_t>& tokens, int order)
    : order_(std::clamp(order, 1, kMaxNgramOrder)), unigram_(kNgramAlphabet, 0) {
  for (uint16_t t : tokens) {
    assert(t < kNgramAlphabet);
    ++unigram_[t];
  }
  unigram_total_ = tokens.size();
  for (uint64_t c : unigram_) unigram_types_ += c > 0;
  levels_.resize(static_cast<size_t>(order_ - 1));
  for (int k = 2; k <= order_; ++k) FitLevel(tokens, k);
}

void ByteNgramModel::FitLevel(const std::vector<uint16_t>& tokens, int k) {
  Level& level = levels_[static_cast<size_t>(k - 2)];
  if (tokens.size() < static_cast<size_t>(k)) return;
  std::vector<uint64_t> all;
  all.reserve(tokens.size() - static_cast<size_t>(k) + 1);
  for (size_t i = static_cast<size_t>(k) - 1; i < tokens.size(); ++i) {
    all.push_back(PackKey(tokens.data() + i, k));
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    level.keys.push_back(all[i]);
    level.counts.push_back(static_cast<uint32_t>(j - i));
    i = j;
  }
  // Keys sorted by value are sorted by context (the high bits), so each context is one run.
  for (size_t i = 0; i < level.keys.size(); ++i) {
    const uint64_t context = level.keys[i] >> kSymbolBits;
    if (level.contexts.empty() || level.contexts.back() != context) {
      level.contexts.push_back(context);
      level.context_totals.push_back(0);
      level.context_types.push_back(0);
    }
    level.context_totals.back() += level.counts[i];
    level.context_types.back() += 1;
  }
}

void ByteNgramModel::Probabilities(const uint16_t* context, int context_len, uint16_t next,
                                   double* out) const {
  double p = 1.0 / kNgramAlphabet;
  out[0] = p;
  if (unigram_total_ > 0) {
    const double types = static_cast<double>(unigram_types_);
    p = (static_cast<double>(unigram_[next]) + types * p) /
        (static_cast<double>(unigram_total_) + types);
  }
  out[1] = p;
  for (int k = 2; k <= order_; ++k) {
    if (context_len >= k - 1) {
      const Level& level = levels_[static_cast<size_t>(k - 2)];
      const uint64_t key = PackKey(context + context_len - 1, k - 1) << kSymbolBits | next;
      const int64_t c = Find(level.contexts, key >> kSymbolBits);
      if (c >= 0) {
        const int64_t n = Find(level.keys, key);
        const double count = n >= 0 ? level.counts[static_cast<size_t>(n)] : 0.0;
        const double types = level.context_types[static_cast<size_t>(c)];
        p = (count + types * p) / (level.context_totals[static_cast<size_t>(c)] + types);
      }
    }
    out[k] = p;
  }
}

double ByteNgramModel::Probability(const uint16_t* context, int context_len, uint16_t next,
                                   int k) const {
  double p[kMaxNgramOrder + 1];
  Probabilities(context, context_len, next, p);
  return p[std::clamp(k, 0, order_)];
}

}  // namespace preflight::trial
