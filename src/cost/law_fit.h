#pragma once
// Fitting a loss law L(N, D) = E + A/N^alpha + B/D^beta to your own runs, the way Hoffmann et
// al. 2022 (approach 3) did and Besiroglu et al. 2024 repeated:
//   minimise  sum_i Huber_delta( LSE(a - alpha ln N_i, b - beta ln D_i, e) - ln L_i )
// over (a, b, e, alpha, beta), with A = exp(a), B = exp(b), E = exp(e), delta = 1e-3, by
// L-BFGS (Debian's liblbfgs) from every point of Hoffmann's grid of starting values:
// alpha, beta in {0, 0.5, ..., 2}, e in {-1, -0.5, ..., 1}, a, b in {0, 5, ..., 25}
// (4,500 starts); the best end point wins. Intervals come from a bootstrap over the runs (rows
// resampled with replacement, fixed RNG seed), each resample refitted from the full fit's
// best few end points.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "cost/loss_law.h"

namespace preflight::cost {

// E, A, B, alpha, beta: a fit needs at least this many runs.
inline constexpr int kLawConstants = 5;
// Hoffmann et al.'s grid: 6 x 6 x 5 x 5 x 5 starting points.
inline constexpr int kGridStarts = 4500;

struct FitPoint {
  double params = 0;  // N
  double tokens = 0;  // D
  double loss = 0;    // any consistent unit (nats/token, bits/byte): E comes out in it
  std::string where;  // "runs.csv:7" — for error messages
};

// CSV of N, D, loss: one run per line, '#' comments and blank lines ignored. An optional
// header names the columns (N|params|parameters, D|tokens|data, loss|L, any order, any case);
// without one the order is N, D, loss. InvalidArgument names the file and line of a value that
// is missing, not a number, NaN/infinite or not positive.
Result<std::vector<FitPoint>> ReadFitCsv(const std::string& path);

// A ledger (JSONL, one receipt per line). Receipts of kind "trial" or "train" contribute runs:
// every object in result.runs[] (or, without that array, the result object itself) that has
//   N:    params, or model.params
//   D:    tokens
//   loss: loss, or else final_eval_loss, or else final_eval_bpb
// as positive finite numbers. Other kinds, and objects lacking one of the three, are skipped
// and counted. A line that is not JSON is Corruption naming the line.
struct LedgerScan {
  int lines = 0;
  int receipts_used = 0;
  int objects_skipped = 0;
};
Result<std::vector<FitPoint>> ReadFitLedger(const std::string& path, LedgerScan* scan);

struct FitOptions {
  double huber_delta = 1e-3;
  int bootstrap = 200;  // resamples; 0 = no intervals
  uint64_t seed = 1;
};

struct Interval {
  double low = 0, high = 0;
};

struct FitResult {
  LossLaw law;
  double objective = 0;      // the Huber sum at the optimum
  double rms_log_error = 0;  // root-mean-square of ln(predicted) - ln(observed)
  int points = 0;
  int starts = 0;
  int bootstrap = 0;
  Interval E, A, B, alpha, beta;  // 95% percentile intervals (equal to the fit without bootstrap)
  Interval optimal_params_exponent;  // beta/(alpha+beta): the compute-optimal N grows as C^this
};

// InvalidArgument for fewer points than the law's five constants, or a point that is not
// positive and finite (named by `where`).
Result<FitResult> FitLossLaw(const std::vector<FitPoint>& points, const FitOptions& options);

}  // namespace preflight::cost
