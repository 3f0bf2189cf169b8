#include "trial/comparison.h"

#include <cmath>

namespace preflight::trial {
namespace {

double On(const Crossing& crossing, int column) {
  return column == kStepAxis ? crossing.step : crossing.columns[static_cast<size_t>(column)];
}

double Saved(const Measure& m, const PairSaving& s, const MeteredCurve& arm) {
  const double x_base = On(s.baseline, m.column);
  if (m.needs_positive_baseline && !(x_base > 0)) return std::nan("");
  double arm_spent = On(s.arm, m.column) * m.rate + m.arm_fixed;
  if (m.charge_overhead) arm_spent += arm.overhead[static_cast<size_t>(m.column)];
  return 1.0 - arm_spent / (x_base * m.rate + m.baseline_fixed);
}

}  // namespace

PairSaving ComparePair(const MeteredCurve& baseline, const MeteredCurve& arm,
                       const std::vector<Measure>& measures) {
  PairSaving s;
  s.target = FindTarget(baseline.curve);
  // The catch-up rule applied to the baseline itself lands exactly on t_R (its first minimum).
  s.baseline = CrossingOf(baseline, s.target.l_star);
  s.arm = CrossingOf(arm, s.target.l_star);
  s.caught_up = s.arm.reached();
  for (const Measure& m : measures) {
    if (s.target.t_baseline == 0) {
      s.saved.push_back(std::nan(""));
    } else if (!s.caught_up) {
      s.saved.push_back(-kNever);
    } else {
      s.saved.push_back(Saved(m, s, arm));
    }
  }
  return s;
}

Result<ArmComparison> CompareArms(const ArmRuns& baseline, const ArmRuns& arm,
                                  const std::vector<Measure>& measures,
                                  const BootstrapOptions& options) {
  ArmComparison out;
  out.baseline_mean = MeanOfAll(baseline.runs);
  out.arm_mean = MeanOfAll(arm.runs);
  out.mean = ComparePair(out.baseline_mean, out.arm_mean, measures);
  const auto pairs = SeedPairs(baseline.seeds, arm.seeds);
  for (const auto& [b, a] : pairs) {
    out.per_seed.push_back(
        {arm.seeds[a], b, a, ComparePair(baseline.runs[b], arm.runs[a], measures)});
  }
  auto measure = [&](const Draw& draw) {
    const PairSaving s =
        ComparePair(MeanOf(baseline.runs, draw.baseline), MeanOf(arm.runs, draw.arm), measures);
    return DrawSaving{s.caught_up, s.saved[0], s.saved[1]};
  };
  PF_ASSIGN_OR_RETURN(
      out.ci, Bootstrap(options, arm.name, baseline.runs.size(), arm.runs.size(), pairs, measure));
  return out;
}

}  // namespace preflight::trial
