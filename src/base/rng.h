#pragma once
// The project's one definition of its simple random mixing: SplitMix64 (Steele, Lea, Flood 2014,
// "Fast splittable pseudorandom number generators") and FNV-1a 64. Both are fully specified, so a
// seed gives the same numbers on every machine and compiler, and any implementation can reproduce
// a selection or a bootstrap interval from its manifest. No std:: distributions are used: their
// output is implementation-defined. (The engine's xoshiro256** in engine/xoshiro.h is seeded from this.)

#include <cstdint>
#include <string_view>

namespace preflight {

inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

// SplitMix64's output function applied to x + gamma: a stateless 64-bit mix, used to hash
// (seed, index) pairs and n-gram features.
inline uint64_t Mix64(uint64_t x) {
  x += kGoldenGamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The SplitMix64 generator: the state advances by the golden gamma, each output is the mix.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t out = Mix64(state_);
    state_ += kGoldenGamma;
    return out;
  }
  // A draw in [0, n) by multiply-shift: floor(Next() * n / 2^64). n >= 1.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

// FNV-1a 64-bit of `bytes`.
inline uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

}  // namespace preflight
