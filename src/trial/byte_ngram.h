#pragma once
// A byte n-gram language model over the trainer's token stream (engine/data.h): bytes 0..255 and
// the document-boundary token 256, so the alphabet has 257 symbols and the scores are in the
// same unit as the engine's eval_bpb (bits per token of that stream).
//
// Smoothing: interpolated Witten-Bell (Witten & Bell 1991; Chen & Goodman 1998, sec. 2.4),
// recursively down to a uniform floor, so no symbol ever gets probability 0:
//   P_0(w)     = 1/257
//   P_k(w | h) = (c(h w) + N1+(h .) P_{k-1}(w | h')) / (c(h) + N1+(h .))   when c(h) > 0
//              = P_{k-1}(w | h')                                          when c(h) = 0
// where h is the k-1 symbols before w, h' drops its oldest symbol, c counts occurrences in the
// training stream and N1+(h .) is the number of distinct symbols seen after h. Each level sums
// to 1 over the 257 next symbols by construction.
//
// Counts: unigrams in a dense array; longer n-grams as sorted packed keys (9 bits a symbol) with
// their counts, found by binary search. Fitting sorts one key per training position per order,
// so it is O(n log n) in time and 8 bytes a position in memory; deterministic.

#include <cstdint>
#include <vector>

namespace preflight::trial {

inline constexpr int kNgramAlphabet = 257;  // bytes and the document boundary (engine/data.h)
inline constexpr int kMaxNgramOrder = 7;    // 7 symbols x 9 bits fit one 64-bit key

class ByteNgramModel {
 public:
  // Counts every n-gram of order 1..order of `tokens` (each < kNgramAlphabet).
  // order must be in [1, kMaxNgramOrder].
  ByteNgramModel(const std::vector<uint16_t>& tokens, int order);

  int order() const { return order_; }

  // P_k(next | context): `context` points at the `context_len` symbols before `next`, oldest
  // first; only the last k-1 are used (fewer when context_len is shorter: the model backs off).
  // k in [0, order()]; k = 0 is the uniform floor.
  double Probability(const uint16_t* context, int context_len, uint16_t next, int k) const;
  // P_0 .. P_order() of `next` at once (out holds order() + 1 values): one pass for every model.
  void Probabilities(const uint16_t* context, int context_len, uint16_t next, double* out) const;

 private:
  // The counts of one order k >= 2: sorted n-gram keys with counts, and sorted context keys
  // (the n-gram key without its last symbol) with their totals and distinct followers.
  struct Level {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> counts;
    std::vector<uint64_t> contexts;
    std::vector<uint32_t> context_totals;
    std::vector<uint32_t> context_types;
  };
  void FitLevel(const std::vector<uint16_t>& tokens, int k);

  int order_;
  std::vector<uint64_t> unigram_;  // counts per symbol
  uint64_t unigram_total_ = 0;
  uint64_t unigram_types_ = 0;
  std::vector<Level> levels_;  // levels_[k - 2] for k = 2..order
};

}  // namespace preflight::trial
