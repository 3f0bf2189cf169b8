#include "select/gumbel.h"

#include <algorithm>
#include <cmath>

#include "select/features.h"

namespace preflight::select {

double UniformFor(uint64_t seed, uint64_t index) {
  uint64_t x = Mix64(Mix64(seed) ^ (index * 0xD1B54A32D192ED03ull));
  return (static_cast<double>(x >> 11) + 0.5) * 0x1.0p-53;
}

double GumbelFor(uint64_t seed, uint64_t index) {
  return -std::log(-std::log(UniformFor(seed, index)));
}

std::vector<uint64_t> TakeByBudget(std::vector<Candidate> candidates, uint64_t budget) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.key != b.key ? a.key > b.key : a.index < b.index;
  });
  std::vector<uint64_t> taken;
  uint64_t bytes = 0;
  for (const Candidate& c : candidates) {
    if (bytes >= budget) break;
    taken.push_back(c.index);
    bytes += c.bytes;
  }
  std::sort(taken.begin(), taken.end());
  return taken;
}

}  // namespace preflight::select
