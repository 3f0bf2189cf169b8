#pragma once
// The byte-budget cut when the candidates are spread over the processes of a group: exactly the
// documents TakeByBudget (gumbel.h) would take of all candidates together.
//
// TakeByBudget takes candidates in decreasing key order (ties: lower index first) while the bytes
// taken are below the budget. So a candidate is taken iff the bytes of the candidates before it in
// that order are below the budget. Let v be the largest key with B(key >= v) >= budget, where B
// sums candidate bytes: every candidate with key > v is taken, none with key < v, and the ones
// with key == v are taken in index order while B(key > v) plus the tie bytes before them stays
// below the budget. Processes hold contiguous index ranges in rank order, so the tie bytes before
// a process are an exclusive prefix sum over ranks. Finding v:
//   kRadix   four rounds of a 65,536-bin histogram of candidate bytes over the next 16 bits of the
//            keys' order-preserving 64-bit codes, summed over processes: 512 KiB per process per
//            round, whatever the number of documents.
//   kGather  every process sends (code, bytes) of its candidates (16 bytes each) to the leader,
//            which walks them in order and broadcasts v and B(key > v).
// Both end with one 8-byte exclusive prefix sum for the ties.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "select/group.h"
#include "select/gumbel.h"

namespace preflight::select {

enum class CutMethod { kRadix, kGather };
Result<CutMethod> ParseCutMethod(const std::string& name);

// Order-preserving code of a key: a > b iff KeyCode(a) > KeyCode(b) (-0.0 is coded as +0.0, as
// the comparison of doubles treats them; keys are never NaN).
uint64_t KeyCode(double key);

// `local`: this process's candidates in increasing index order, all of its indices below the next
// rank's. Returns one flag per local candidate: 1 if taken.
Result<std::vector<uint8_t>> CutByBudget(SelectionGroup& group, const std::vector<Candidate>& local,
                                         uint64_t budget, CutMethod method);

}  // namespace preflight::select
