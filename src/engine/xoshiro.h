#pragma once
// The engine's only source of randomness: xoshiro256** seeded through SplitMix64, both fully
// specified (Vigna, https://prng.di.unimi.it/), so that a seed gives the same initial weights and
// the same training windows on every machine and compiler. No std:: distributions are used:
// their output is implementation-defined.

#include <array>
#include <cmath>
#include <cstdint>

#include "base/rng.h"

namespace preflight::engine {

class Rng {
 public:
  // Expands `seed` into the 256-bit state with SplitMix64 (never all zero).
  explicit Rng(uint64_t seed = 0) {
    SplitMix64 expand(seed);
    for (auto& word : state_) word = expand.Next();
  }

  // xoshiro256**: the next 64 random bits.
  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n > 0, without modulo bias (rejection on the top bits).
  uint64_t Below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // multiple of n
    uint64_t x;
    do {
      x = Next();
    } while (x >= limit);
    return x % n;
  }

  // Uniform double in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Standard normal by Box-Muller (one value per two draws; the sine half is discarded so the
  // generator carries no hidden cached value between calls).
  double Normal() {
    const double u1 = (static_cast<double>(Next() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  const std::array<uint64_t, 4>& state() const { return state_; }
  void set_state(const std::array<uint64_t, 4>& state) { state_ = state; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> state_;
};

}  // namespace preflight::engine
