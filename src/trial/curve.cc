#include "trial/curve.h"

#include <fmt/format.h>

#include <cmath>

namespace preflight::trial {

Status ValidateCurve(const Curve& curve, const std::string& what) {
  if (curve.steps.empty()) return Status::InvalidArgument(what + ": the eval curve is empty");
  if (curve.steps.size() != curve.bpb.size()) {
    return Status::InvalidArgument(fmt::format("{}: {} eval steps but {} bpb values", what,
                                               curve.steps.size(), curve.bpb.size()));
  }
  for (size_t i = 0; i < curve.steps.size(); ++i) {
    if (curve.steps[i] < 0 || (i > 0 && curve.steps[i] <= curve.steps[i - 1])) {
      return Status::InvalidArgument(
          fmt::format("{}: eval steps must be >= 0 and strictly increasing; point {} has step {}",
                      what, i, curve.steps[i]));
    }
    if (!std::isfinite(curve.bpb[i])) {
      return Status::InvalidArgument(fmt::format(
          "{}: eval at step {} is not a finite number (the run diverged?)", what, curve.steps[i]));
    }
  }
  return Status::Ok();
}

Result<Curve> MeanCurve(const std::vector<Curve>& runs) {
  if (runs.empty()) return Status::InvalidArgument("mean curve of no runs");
  std::vector<MeteredCurve> metered;
  for (size_t k = 0; k < runs.size(); ++k) {
    PF_RETURN_IF_ERROR(ValidateCurve(runs[k], fmt::format("run {}", k)));
    if (runs[k].steps != runs[0].steps) {
      return Status::InvalidArgument(fmt::format(
          "run {} was evaluated at different steps from run 0; every run of a trial must share "
          "one eval schedule",
          k));
    }
    metered.push_back({runs[k], {}, {}});
  }
  return MeanOfAll(metered).curve;
}

MeteredCurve MeanOf(const std::vector<MeteredCurve>& runs, const std::vector<size_t>& pick) {
  const MeteredCurve& first = runs[pick[0]];
  const size_t points = first.curve.steps.size();
  MeteredCurve mean;
  mean.curve.steps = first.curve.steps;
  mean.curve.bpb.assign(points, 0.0);
  mean.columns.assign(first.columns.size(), std::vector<double>(points, 0.0));
  mean.overhead.assign(first.overhead.size(), 0.0);
  for (size_t k : pick) {
    const MeteredCurve& run = runs[k];
    for (size_t i = 0; i < points; ++i) mean.curve.bpb[i] += run.curve.bpb[i];
    for (size_t c = 0; c < mean.columns.size(); ++c) {
      for (size_t i = 0; i < points; ++i) mean.columns[c][i] += run.columns[c][i];
    }
    for (size_t c = 0; c < mean.overhead.size(); ++c) mean.overhead[c] += run.overhead[c];
  }
  const double count = static_cast<double>(pick.size());
  for (double& v : mean.curve.bpb) v /= count;
  for (std::vector<double>& column : mean.columns) {
    for (double& v : column) v /= count;
  }
  for (double& v : mean.overhead) v /= count;
  return mean;
}

MeteredCurve MeanOfAll(const std::vector<MeteredCurve>& runs) {
  std::vector<size_t> all(runs.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;
  return MeanOf(runs, all);
}

Target FindTarget(const Curve& baseline) {
  Target target{baseline.bpb[0], baseline.steps[0]};
  for (size_t i = 1; i < baseline.bpb.size(); ++i) {
    if (baseline.bpb[i] < target.l_star) target = {baseline.bpb[i], baseline.steps[i]};
  }
  return target;
}

Crossing CrossingOf(const MeteredCurve& metered, double l_star) {
  const Curve& curve = metered.curve;
  Crossing crossing;
  crossing.columns.assign(metered.columns.size(), kNever);
  for (size_t i = 0; i < curve.bpb.size(); ++i) {
    if (curve.bpb[i] > l_star) continue;
    if (i == 0 || curve.bpb[i] == l_star) {
      crossing.step = static_cast<double>(curve.steps[i]);
      for (size_t c = 0; c < metered.columns.size(); ++c)
        crossing.columns[c] = metered.columns[c][i];
      return crossing;
    }
    // bpb[i-1] > l_star > bpb[i]: the straight line between the two points crosses l_star, at
    // the same fraction of the way on every axis.
    const double w = (curve.bpb[i - 1] - l_star) / (curve.bpb[i - 1] - curve.bpb[i]);
    auto at = [w](double a, double b) { return a + w * (b - a); };
    crossing.step =
        at(static_cast<double>(curve.steps[i - 1]), static_cast<double>(curve.steps[i]));
    for (size_t c = 0; c < metered.columns.size(); ++c) {
      crossing.columns[c] = at(metered.columns[c][i - 1], metered.columns[c][i]);
    }
    return crossing;
  }
  return crossing;
}

double CatchUpStep(const Curve& curve, double l_star) {
  return CrossingOf(MeteredCurve{curve, {}, {}}, l_star).step;
}

double LossAt(const MeteredCurve& metered, size_t column, double x) {
  const std::vector<double>& axis = metered.columns[column];
  const std::vector<double>& bpb = metered.curve.bpb;
  if (x <= axis.front()) return bpb.front();
  for (size_t i = 1; i < axis.size(); ++i) {
    if (x <= axis[i]) {
      const double w = axis[i] > axis[i - 1] ? (x - axis[i - 1]) / (axis[i] - axis[i - 1]) : 1.0;
      return bpb[i - 1] + w * (bpb[i] - bpb[i - 1]);
    }
  }
  return bpb.back();
}

}  // namespace preflight::trial
