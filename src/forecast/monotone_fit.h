#pragma once
// The forecast's model form: the net saving of curating as a non-decreasing function of a gain
// signal x (x > 0: the curated quarter is closer to the target than a random quarter), anchored
// so that it is at most 0 wherever x <= 0.
//
// Why this form. A curated quarter no closer to the target than a random one has no reason to
// reach the random arm's loss sooner; it has less diversity, and the selection and the forecast
// still cost what they cost: at x <= 0 the prediction may be negative, never positive. The more
// the curated quarter gains, the more it should save (non-decreasing), but not by a straight
// line: a saving is bounded by 1 and saturates, and a line fitted through many large savings
// says (as the fit of 2026-12-01 did) that a zero gain saves 27%. So: least squares under the
// order constraint (pool adjacent violators, Ayer et al. 1955; Barlow et al. 1972), no other
// shape assumed, then anchored: every fitted value at x <= 0 is capped at a = min(0, the fit's
// value at 0), and a knot (0, a) is added, so that between 0 and the first positive knot the
// prediction climbs from at most 0. Between knots it is linear; outside them, flat.

#include <vector>

namespace preflight::forecast {

struct Knot {
  double x = 0, y = 0;
};

struct XY {
  double x = 0, y = 0;
};

// The anchored non-decreasing least-squares fit of the points (knots at each block's mean x and
// mean y, sorted by x, plus the anchor at 0). No points: a single knot (0, 0).
std::vector<Knot> FitAnchoredMonotone(std::vector<XY> points);

// The curve at x: linear between knots, flat outside them; 0 without knots.
double CurveAt(const std::vector<Knot>& knots, double x);

}  // namespace preflight::forecast
