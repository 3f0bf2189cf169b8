#pragma once
// The fraction of a pool to keep, as a keep ladder recommended it (`preflight ladder --keep
// LIST`, doc/ladder.md "How much to keep"), for `plan` and `cost --from-ladder`: the run it was
// made for (one run's FLOPs), the fraction with its 95% interval, whether it is an extrapolation,
// and, given the size of the pool it is kept from, how many times the planned run's tokens pass
// over the kept part (past ~4 epochs repeated data loses value: Muennighoff et al. 2023).
//
// The file is a ladder's ladder.json or `--json` output, or its ledger receipt (the same object
// under "result"), read through base/json.h: a damaged file is Corruption naming the file and
// the JSON path.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"

namespace preflight::cost {

struct LadderKeep {
  std::string source;   // the file
  std::string receipt;  // the ladder receipt's hash, when the file records it
  double flops = 0;     // one run's FLOPs the fraction was recommended for
  double keep = 0, lo = 0, hi = 0;
  bool extrapolated = false;
  std::string reason;  // what the recommendation rests on
};

// NotFound for a missing file, Corruption for a bad one; InvalidArgument, with the ladder's own
// reason, when it recommends no fraction (keep null), and for a ladder of one --keep (no
// "recommendation").
Result<LadderKeep> ReadLadderKeep(const std::string& path);

// The kept part of a pool of `pool_tokens` and the epochs a run of `run_tokens` makes over it.
struct KeptData {
  double kept_tokens = 0, epochs = 0;
  bool repeats = false;  // epochs > 4
};
KeptData KeptDataOf(const LadderKeep& keep, double run_tokens, double pool_tokens);

// {"keep","interval","flops","extrapolated","reason","source","receipt"} and, with a pool,
// "pool_tokens","kept_tokens","epochs","repeats".
nlohmann::json LadderKeepJson(const LadderKeep& keep, const std::optional<KeptData>& kept,
                              std::optional<double> pool_tokens);

// "keep 12% of the pool (95% 6.1% to 25%), as the ladder in L.json recommended for 3.2e12 FLOPs
// per run" (with ", an extrapolation" when it is one), and the epochs line with a pool.
std::string LadderKeepText(const LadderKeep& keep, const std::optional<KeptData>& kept);

}  // namespace preflight::cost
