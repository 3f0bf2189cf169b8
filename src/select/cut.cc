#include "select/cut.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace preflight::select {
namespace {

// The cut point: the code of v and B(key > v), summed over all processes.
struct CutPoint {
  uint64_t code = 0;
  uint64_t above = 0;
};

Result<CutPoint> RadixCut(SelectionGroup& group, const std::vector<uint64_t>& codes,
                          const std::vector<Candidate>& local, uint64_t budget) {
  constexpr int kDigitBits = 16;
  constexpr uint64_t kBins = uint64_t{1} << kDigitBits;
  CutPoint cut;
  std::vector<uint64_t> hist(kBins);
  for (int shift = 64 - kDigitBits; shift >= 0; shift -= kDigitBits) {
    std::fill(hist.begin(), hist.end(), 0);
    const int high = shift + kDigitBits;  // Bits above `high` are fixed by earlier rounds.
    for (size_t i = 0; i < local.size(); ++i) {
      const uint64_t c = codes[i];
      if (high < 64 && (c >> high) != (cut.code >> high)) continue;
      hist[(c >> shift) & (kBins - 1)] += local[i].bytes;
    }
    PF_RETURN_IF_ERROR(group.SumU64(&hist));
    // The largest digit d with above + bytes(digit >= d) >= budget; it exists because the bytes
    // of the current range plus `above` reach the budget (true of everything at the start).
    uint64_t acc = cut.above;
    uint64_t digit = kBins;
    for (uint64_t d = kBins; d-- > 0;) {
      if (acc + hist[d] >= budget) {
        digit = d;
        break;
      }
      acc += hist[d];
    }
    if (digit == kBins)
      return Status::Internal("budget cut: the candidates do not reach the budget");
    cut.above = acc;
    cut.code |= digit << shift;
  }
  return cut;
}

Result<CutPoint> GatherCut(SelectionGroup& group, const std::vector<uint64_t>& codes,
                           const std::vector<Candidate>& local, uint64_t budget) {
  std::string mine(local.size() * 16, '\0');
  for (size_t i = 0; i < local.size(); ++i) {
    std::memcpy(&mine[i * 16], &codes[i], 8);
    std::memcpy(&mine[i * 16 + 8], &local[i].bytes, 8);
  }
  PF_ASSIGN_OR_RETURN(std::string all, group.GatherToLeader(mine));
  std::string point(16, '\0');
  if (group.leader()) {
    // Position in the gathered string is index order (ranks hold increasing index ranges).
    struct Entry {
      uint64_t code, bytes, position;
    };
    const size_t n = all.size() / 16;
    std::vector<Entry> entries(n);
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(&entries[i].code, &all[i * 16], 8);
      std::memcpy(&entries[i].bytes, &all[i * 16 + 8], 8);
      entries[i].position = i;
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.code != b.code ? a.code > b.code : a.position < b.position;
    });
    CutPoint cut;
    uint64_t taken = 0;
    bool found = false;
    for (const Entry& e : entries) {
      if (taken >= budget) break;
      cut.code = e.code;
      found = true;
      taken += e.bytes;
    }
    if (!found) return Status::Internal("budget cut: no candidate taken");
    for (const Entry& e : entries) {
      if (e.code <= cut.code) break;
      cut.above += e.bytes;
    }
    std::memcpy(&point[0], &cut.code, 8);
    std::memcpy(&point[8], &cut.above, 8);
  }
  PF_RETURN_IF_ERROR(group.Broadcast(&point));
  if (point.size() != 16) return Status::Internal("budget cut: bad broadcast");
  CutPoint cut;
  std::memcpy(&cut.code, &point[0], 8);
  std::memcpy(&cut.above, &point[8], 8);
  return cut;
}

}  // namespace

Result<CutMethod> ParseCutMethod(const std::string& name) {
  if (name == "radix") return CutMethod::kRadix;
  if (name == "gather") return CutMethod::kGather;
  return Status::InvalidArgument("--mpi-cut must be 'radix' or 'gather', not '" + name + "'");
}

uint64_t KeyCode(double key) {
  if (key == 0) key = 0.0;  // -0.0 == 0.0 for the comparison TakeByBudget uses.
  const uint64_t bits = std::bit_cast<uint64_t>(key);
  return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
}

Result<std::vector<uint8_t>> CutByBudget(SelectionGroup& group, const std::vector<Candidate>& local,
                                         uint64_t budget, CutMethod method) {
  std::vector<uint8_t> taken(local.size(), 0);
  if (budget == 0) return taken;  // TakeByBudget takes nothing; every process knows the budget.
  std::vector<uint64_t> codes(local.size());
  for (size_t i = 0; i < local.size(); ++i) codes[i] = KeyCode(local[i].key);
  CutPoint cut;
  if (method == CutMethod::kRadix) {
    PF_ASSIGN_OR_RETURN(cut, RadixCut(group, codes, local, budget));
  } else {
    PF_ASSIGN_OR_RETURN(cut, GatherCut(group, codes, local, budget));
  }
  // Ties at the cut key, in index order across the processes.
  std::vector<uint64_t> before(1, 0);
  for (size_t i = 0; i < local.size(); ++i)
    if (codes[i] == cut.code) before[0] += local[i].bytes;
  PF_RETURN_IF_ERROR(group.ExclusivePrefixU64(&before));
  uint64_t run = cut.above + before[0];
  for (size_t i = 0; i < local.size(); ++i) {
    if (codes[i] > cut.code) {
      taken[i] = 1;
    } else if (codes[i] == cut.code) {
      if (run < budget) taken[i] = 1;
      run += local[i].bytes;
    }
  }
  return taken;
}

}  // namespace preflight::select
