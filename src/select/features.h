#pragma once
// Hashed n-gram features, as DSIR (Xie et al. 2023) defines them, with fixed choices written
// down so that buckets are the same on every machine and every run:
//
//  - Tokens: the text is lower-cased (ASCII letters only; bytes >= 0x80 pass through), then split
//    like the reference's WordPunctTokenizer (\w+|[^\w\s]+): a token is a maximal run of word
//    bytes (ASCII letters, digits, '_', and every byte >= 0x80, so UTF-8 letters stay inside
//    words) or a maximal run of punctuation bytes (any other non-space byte). ASCII whitespace
//    separates tokens.
//  - Unigram hash: FNV-1a 64 of the token's lower-cased bytes, then a SplitMix64 finaliser
//    (ForEachTokenHash says exactly how).
//  - Bigram hash: Mix(h_prev, h) = SplitMix64 finaliser of (h_prev * 0x9E3779B97F4A7C15 ^ h),
//    computed from the two unigram hashes (no string join).
//  - Bucket: (hash * buckets) >> 64 (multiply-shift range reduction; no modulo bias worth naming).
//
// The reference implementation hashes with SHA-256 modulo buckets; any fixed hash gives the same
// method. XXH3 (libxxhash) was measured first and cost 20% of the scoring pass through its call and
// the copy of each lower-cased token; FNV-1a folds into the scanning loop (bench/select/README.md).
// ForEachFeature is header-only so the hot loop inlines.

#include <cstdint>
#include <string_view>

#include "base/rng.h"

namespace preflight::select {

inline uint64_t BigramHash(uint64_t prev, uint64_t cur) {
  return Mix64(prev * 0x9E3779B97F4A7C15ull ^ cur);
}

inline uint32_t Bucket(uint64_t hash, uint32_t buckets) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(hash) * buckets) >> 64);
}

// Byte classes for the tokenizer: 0 space, 1 word, 2 punctuation.
struct ByteClasses {
  uint8_t cls[256];
  uint8_t lower[256];
  constexpr ByteClasses() : cls(), lower() {
    for (int c = 0; c < 256; ++c) {
      bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
      cls[c] = space ? 0 : (alnum || c == '_' || c >= 0x80) ? 1 : 2;
      lower[c] = static_cast<uint8_t>((c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
  }
};
inline constexpr ByteClasses kByteClasses{};

// Calls on_token(hash) for every token's unigram hash, in order. The hash is computed while the
// token is scanned, one multiply per byte, so no token is copied:
//   h = 0xCBF29CE484222325; for each lower-cased byte c: h = (h ^ c) * 0x100000001B3  (FNV-1a 64)
//   token hash = SplitMix64(h ^ length)   (a finaliser, so that short tokens spread over buckets)
template <typename OnToken>
inline void ForEachTokenHash(std::string_view text, OnToken&& on_token) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    const uint8_t cls = kByteClasses.cls[*p];
    if (cls == 0) {
      ++p;
      continue;
    }
    const uint8_t* start = p;
    uint64_t h = 0xCBF29CE484222325ull;
    do {
      h = (h ^ kByteClasses.lower[*p]) * 0x100000001B3ull;
      ++p;
    } while (p < end && kByteClasses.cls[*p] == cls);
    on_token(Mix64(h ^ static_cast<uint64_t>(p - start)));
  }
}

// The same token hash for one token given as bytes (tests, tools).
inline uint64_t TokenHash(std::string_view token) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : token) h = (h ^ kByteClasses.lower[c]) * 0x100000001B3ull;
  return Mix64(h ^ static_cast<uint64_t>(token.size()));
}

// Calls on_feature(bucket) for every unigram and (if ngrams >= 2) every bigram.
template <typename OnFeature>
inline void ForEachFeature(std::string_view text, uint32_t buckets, int ngrams,
                           OnFeature&& on_feature) {
  bool have_prev = false;
  uint64_t prev = 0;
  ForEachTokenHash(text, [&](uint64_t h) {
    on_feature(Bucket(h, buckets));
    if (ngrams >= 2 && have_prev) on_feature(Bucket(BigramHash(prev, h), buckets));
    prev = h;
    have_prev = true;
  });
}

}  // namespace preflight::select
