#pragma once
// Eval curves and where they cross a loss: the one crossing rule of every trial (doc/design.md,
// "The metrics, exactly": t_C), on the step axis and on any cumulative-compute column a run records
// (FLOPs, core-seconds, wall seconds of training). A data trial's curves carry no columns: their
// axis is the step, and every step costs the same. A schedule trial's carry three.
//
// Pure functions over numbers; deterministic and thread-safe.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::trial {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

// One eval curve of one run: held-out loss in bits per byte at each eval step. Steps are
// strictly increasing and >= 0; bpb values are finite. Both have the same length (>= 1).
struct Curve {
  std::vector<int64_t> steps;
  std::vector<double> bpb;
};

// A curve with the cumulative compute spent by each eval point, one column per compute axis
// (columns[c][i] at curve.steps[i]), and per axis what the run spent outside its training steps
// (overhead[c], e.g. an adaptive schedule's measurements). No columns: the axis is the step.
struct MeteredCurve {
  Curve curve;
  std::vector<std::vector<double>> columns;
  std::vector<double> overhead;  // same length as columns
};

// L* and where the baseline first reaches it.
struct Target {
  double l_star = 0;
  int64_t t_baseline = 0;  // t_R: the first eval step whose value equals the minimum
};

// Where a curve first reaches a loss: the interpolated step and the value of every column
// there, interpolated with the same weight. kNever everywhere when it never does.
struct Crossing {
  double step = kNever;
  std::vector<double> columns;
  bool reached() const { return step != kNever; }
};

// InvalidArgument naming `what` when the curve breaks the invariants stated on Curve.
Status ValidateCurve(const Curve& curve, const std::string& what);

// Pointwise mean over runs (in the order given, so rounding is reproducible). Every curve
// must have the same steps.
Result<Curve> MeanCurve(const std::vector<Curve>& runs);

// The mean of runs[pick[0]], runs[pick[1]], ... summed in that order, every column and overhead
// included. The runs share steps and column count (the caller checked); pick is not empty.
MeteredCurve MeanOf(const std::vector<MeteredCurve>& runs, const std::vector<size_t>& pick);
// MeanOf every run, in order.
MeteredCurve MeanOfAll(const std::vector<MeteredCurve>& runs);

// L* = min over eval points; t_R = the first step holding it (exact ties go to the earliest).
Target FindTarget(const Curve& baseline);

// The first point at which `curve` is <= l_star, linearly interpolated between the last eval
// point above l_star and the first at or below it, on the step and on every column. At the first
// eval point there is nothing earlier to interpolate from, so a curve already <= l_star there
// crosses at that point (an upper bound on the true crossing, so a saving is not overstated).
Crossing CrossingOf(const MeteredCurve& curve, double l_star);

// CrossingOf on the step axis alone: the catch-up step t_C, kNever when never.
double CatchUpStep(const Curve& curve, double l_star);

// The curve's loss at `x` on column `column` (linear between eval points; its first loss before
// the first point, its last beyond the last).
double LossAt(const MeteredCurve& curve, size_t column, double x);

}  // namespace preflight::trial
