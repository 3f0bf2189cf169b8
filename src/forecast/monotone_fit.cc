#include "forecast/monotone_fit.h"

#include <algorithm>

namespace preflight::forecast {
namespace {

struct Block {
  double sum_x = 0, sum_y = 0, n = 0;
  double Mean() const { return sum_y / n; }
};

// Pool adjacent violators over points sorted by x (equal x pooled first, so that the fit is a
// function of x).
std::vector<Block> PoolAdjacentViolators(const std::vector<XY>& sorted) {
  std::vector<Block> blocks;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const bool tie = i > 0 && sorted[i].x == sorted[i - 1].x;
    if (tie) {
      blocks.back().sum_x += sorted[i].x;
      blocks.back().sum_y += sorted[i].y;
      blocks.back().n += 1;
    } else {
      blocks.push_back({sorted[i].x, sorted[i].y, 1});
    }
    while (blocks.size() >= 2 && blocks[blocks.size() - 2].Mean() >= blocks.back().Mean()) {
      Block last = blocks.back();
      blocks.pop_back();
      blocks.back().sum_x += last.sum_x;
      blocks.back().sum_y += last.sum_y;
      blocks.back().n += last.n;
    }
  }
  return blocks;
}

}  // namespace

double CurveAt(const std::vector<Knot>& knots, double x) {
  if (knots.empty()) return 0;
  if (x <= knots.front().x) return knots.front().y;
  if (x >= knots.back().x) return knots.back().y;
  const auto hi = std::upper_bound(knots.begin(), knots.end(), x,
                                   [](double v, const Knot& k) { return v < k.x; });
  const Knot& b = *hi;
  const Knot& a = *(hi - 1);
  if (b.x == a.x) return b.y;
  return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x);
}

std::vector<Knot> FitAnchoredMonotone(std::vector<XY> points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const XY& a, const XY& b) { return a.x < b.x; });
  std::vector<Knot> fit;
  for (const Block& b : PoolAdjacentViolators(points)) fit.push_back({b.sum_x / b.n, b.Mean()});
  const double anchor = std::min(0.0, CurveAt(fit, 0));
  std::vector<Knot> knots;
  for (const Knot& k : fit) {
    if (k.x < 0) knots.push_back({k.x, std::min(k.y, anchor)});
  }
  knots.push_back({0, anchor});
  for (const Knot& k : fit) {
    if (k.x > 0) knots.push_back(k);  // >= the fit at 0 >= anchor: still non-decreasing
  }
  return knots;
}

}  // namespace preflight::forecast
