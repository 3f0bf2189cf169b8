#include "trial/schedule_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "base/rng.h"

namespace preflight::trial {
namespace {

bool Finite(double x) { return std::isfinite(x); }
nlohmann::json Num(double x) { return Finite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// Nearest-rank percentile, as metrics.cc's (the same rule for both kinds of trial).
double NearestRank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nan("");
  double rank = std::ceil(q * static_cast<double>(sorted.size()) - 1e-9);
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

std::string KindOf(const std::string& schedule) {
  if (schedule.rfind("earlystop", 0) == 0) return "earlystop";
  if (schedule.find("@adaptive") != std::string::npos) return "adaptive";
  return "fixed";
}

// A run with its compute columns, padded flat to the baseline's eval steps.
struct Padded {
  Curve curve;
  std::vector<double> flops, core, wall;
};

struct Mean {
  Curve curve;
  std::vector<double> flops, core, wall;
  double trigger_flops = 0, trigger_core = 0, trigger_wall = 0;
};

Mean MeanOf(const std::vector<Padded>& runs, const std::vector<const ScheduleRun*>& raw,
            const std::vector<size_t>& idx) {
  Mean m;
  const size_t n = runs[idx[0]].curve.steps.size();
  m.curve.steps = runs[idx[0]].curve.steps;
  m.curve.bpb.assign(n, 0.0);
  m.flops.assign(n, 0.0);
  m.core.assign(n, 0.0);
  m.wall.assign(n, 0.0);
  for (size_t k : idx) {
    for (size_t i = 0; i < n; ++i) {
      m.curve.bpb[i] += runs[k].curve.bpb[i];
      m.flops[i] += runs[k].flops[i];
      m.core[i] += runs[k].core[i];
      m.wall[i] += runs[k].wall[i];
    }
    m.trigger_flops += raw[k]->trigger_flops;
    m.trigger_core += raw[k]->trigger_core_seconds;
    m.trigger_wall += raw[k]->trigger_seconds;
  }
  const double count = static_cast<double>(idx.size());
  for (size_t i = 0; i < n; ++i) {
    m.curve.bpb[i] /= count;
    m.flops[i] /= count;
    m.core[i] /= count;
    m.wall[i] /= count;
  }
  m.trigger_flops /= count;
  m.trigger_core /= count;
  m.trigger_wall /= count;
  return m;
}

struct Savings {
  Target target;
  Crossing base, arm;
  double gross = 0, net = 0, net_core = 0, net_wall = 0;
  bool caught_up = false;
};

double Fraction(double spent, double reference) { return 1.0 - spent / reference; }

Savings Compare(const Mean& base, const Mean& arm) {
  Savings s;
  s.target = FindTarget(base.curve);
  size_t i = 0;
  while (base.curve.steps[i] != s.target.t_baseline) ++i;
  s.base = {static_cast<double>(s.target.t_baseline), base.flops[i], base.core[i], base.wall[i]};
  s.arm = CrossingOf(arm.curve, arm.flops, arm.core, arm.wall, s.target.l_star);
  s.caught_up = Finite(s.arm.flops);
  if (s.target.t_baseline == 0) {
    s.gross = s.net = s.net_core = s.net_wall = std::nan("");
  } else if (!s.caught_up) {
    s.gross = s.net = s.net_core = s.net_wall = -kNever;
  } else {
    s.gross = Fraction(s.arm.flops, s.base.flops);
    s.net = Fraction(s.arm.flops + arm.trigger_flops, s.base.flops);
    s.net_core = s.base.core_seconds > 0
                     ? Fraction(s.arm.core_seconds + arm.trigger_core, s.base.core_seconds)
                     : std::nan("");
    s.net_wall = s.base.train_seconds > 0
                     ? Fraction(s.arm.train_seconds + arm.trigger_wall, s.base.train_seconds)
                     : std::nan("");
  }
  return s;
}

// The baseline's mean loss at cumulative FLOPs x (linear between eval points; its last loss
// beyond its last point).
double LossAtFlops(const Mean& base, double x) {
  const auto& f = base.flops;
  if (x <= f.front()) return base.curve.bpb.front();
  for (size_t i = 1; i < f.size(); ++i) {
    if (x <= f[i]) {
      const double w = f[i] > f[i - 1] ? (x - f[i - 1]) / (f[i] - f[i - 1]) : 1.0;
      return base.curve.bpb[i - 1] + w * (base.curve.bpb[i] - base.curve.bpb[i - 1]);
    }
  }
  return base.curve.bpb.back();
}

std::string Pct(double v) { return FormatPercent(v); }

std::string IntervalText(const Interval& ci, double level) {
  const int pct = static_cast<int>(std::lround(level * 100));
  if (std::isnan(ci.lo) || std::isnan(ci.hi)) return fmt::format("{}% interval undefined", pct);
  if (!Finite(ci.hi)) return fmt::format("{}% interval: never caught up at either end", pct);
  if (!Finite(ci.lo)) return fmt::format("{}% interval from never to {}", pct, Pct(ci.hi));
  return fmt::format("{}% interval {} to {}", pct, Pct(ci.lo), Pct(ci.hi));
}

}  // namespace

Crossing CrossingOf(const Curve& curve, const std::vector<double>& flops,
                    const std::vector<double>& core_seconds,
                    const std::vector<double>& train_seconds, double l_star) {
  Crossing c;
  for (size_t i = 0; i < curve.bpb.size(); ++i) {
    if (curve.bpb[i] > l_star) continue;
    if (i == 0 || curve.bpb[i] == l_star) {
      return {static_cast<double>(curve.steps[i]), flops[i], core_seconds[i], train_seconds[i]};
    }
    const double w = (curve.bpb[i - 1] - l_star) / (curve.bpb[i - 1] - curve.bpb[i]);
    auto at = [&](double a, double b) { return a + w * (b - a); };
    return {at(static_cast<double>(curve.steps[i - 1]), static_cast<double>(curve.steps[i])),
            at(flops[i - 1], flops[i]), at(core_seconds[i - 1], core_seconds[i]),
            at(train_seconds[i - 1], train_seconds[i])};
  }
  return c;
}

Status CheckScheduleCompute(const std::vector<ScheduleRunCompute>& runs, int64_t budget) {
  if (runs.empty()) return Status::InvalidArgument("compute check: no runs recorded");
  const ScheduleRunCompute& ref = runs[0];
  double baseline_flops = 0;
  int baselines = 0;
  for (const auto& r : runs) {
    if (r.baseline) {
      baseline_flops = std::max(baseline_flops, r.flops);
      ++baselines;
    }
  }
  std::vector<std::string> problems;
  if (baselines == 0) problems.push_back("no baseline run");
  for (const auto& r : runs) {
    const double scale = std::max(std::abs(ref.flops_per_step), std::abs(r.flops_per_step));
    if (!Finite(r.flops_per_step) ||
        std::abs(r.flops_per_step - ref.flops_per_step) > 1e-9 * scale) {
      problems.push_back(
          fmt::format("run '{}' has {:g} FLOPs per full step but run '{}' has {:g} "
                      "(a different model)",
                      r.run, r.flops_per_step, ref.run, ref.flops_per_step));
    }
    if (r.tokens_per_step != ref.tokens_per_step) {
      problems.push_back(fmt::format("run '{}' has {} tokens/step but run '{}' has {}", r.run,
                                     r.tokens_per_step, ref.run, ref.tokens_per_step));
    }
    if (r.baseline ? r.steps != budget : (r.steps < 1 || r.steps > budget)) {
      problems.push_back(
          fmt::format("run '{}' trained {} steps against a budget of {}", r.run, r.steps, budget));
    }
    if (!r.baseline && r.flops > baseline_flops * (1 + 1e-9)) {
      problems.push_back(
          fmt::format("schedule run '{}' spent {:g} FLOPs, more than the baseline's "
                      "{:g}",
                      r.run, r.flops, baseline_flops));
    }
  }
  if (problems.empty()) return Status::Ok();
  std::string msg =
      "the schedule trial's runs are not comparable, so no saving is reported (same model, data "
      "and step budget; a schedule may spend less, never more): ";
  for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  return Status::InvalidArgument(msg);
}

Result<ScheduleTrialResult> ComputeScheduleTrial(const ScheduleTrialInputs& in) {
  if (in.arms.size() < 2) {
    return Status::InvalidArgument("a schedule trial needs a baseline and at least one schedule");
  }
  if (in.baseline >= in.arms.size()) return Status::InvalidArgument("baseline index out of range");
  if (in.bootstrap.resamples < 1 || !(in.bootstrap.level > 0 && in.bootstrap.level < 1)) {
    return Status::InvalidArgument("bootstrap needs >= 1 resample and a level in (0, 1)");
  }
  const ScheduleArm& base_arm = in.arms[in.baseline];
  if (base_arm.runs.empty()) return Status::InvalidArgument("the baseline arm has no runs");
  const std::vector<int64_t> steps = base_arm.runs[0].curve.steps;
  std::set<std::string> names;
  std::vector<std::vector<Padded>> padded(in.arms.size());
  std::vector<std::vector<const ScheduleRun*>> raw(in.arms.size());
  for (size_t a = 0; a < in.arms.size(); ++a) {
    const ScheduleArm& arm = in.arms[a];
    if (arm.spec.name.empty() || !names.insert(arm.spec.name).second) {
      return Status::InvalidArgument(
          fmt::format("arm names must be unique and non-empty ('{}')", arm.spec.name));
    }
    if (arm.runs.empty())
      return Status::InvalidArgument(fmt::format("arm '{}' has no runs", arm.spec.name));
    for (const ScheduleRun& run : arm.runs) {
      const std::string what = fmt::format("arm '{}' seed {}", arm.spec.name, run.seed);
      PF_RETURN_IF_ERROR(ValidateCurve(run.curve, what));
      const size_t n = run.curve.steps.size();
      if (run.flops.size() != n || run.core_seconds.size() != n || run.train_seconds.size() != n) {
        return Status::InvalidArgument(what + ": the curve lacks cumulative compute columns");
      }
      if (n > steps.size() ||
          !std::equal(run.curve.steps.begin(), run.curve.steps.end(), steps.begin())) {
        return Status::InvalidArgument(
            what +
            ": evaluated at different steps from the baseline; every run of a trial must "
            "share one eval schedule (an early-stopped run a prefix of it)");
      }
      if (a == in.baseline && n != steps.size()) {
        return Status::InvalidArgument(what + ": a baseline run must train the whole budget");
      }
      Padded p{run.curve, run.flops, run.core_seconds, run.train_seconds};
      while (p.curve.steps.size() < steps.size()) {
        p.curve.steps.push_back(steps[p.curve.steps.size()]);
        p.curve.bpb.push_back(p.curve.bpb.back());
        p.flops.push_back(p.flops.back());
        p.core.push_back(p.core.back());
        p.wall.push_back(p.wall.back());
      }
      padded[a].push_back(std::move(p));
      raw[a].push_back(&run);
    }
  }
  if (in.budget_steps != steps.back()) {
    return Status::InvalidArgument(
        fmt::format("the step budget S = {} is not the baseline's last eval step {}",
                    in.budget_steps, steps.back()));
  }

  ScheduleTrialResult result;
  result.baseline = in.baseline;
  result.budget_steps = in.budget_steps;
  result.bootstrap = in.bootstrap;
  const ScheduleRun& first = base_arm.runs[0];
  result.flops_per_step =
      first.steps > 0 ? first.flops.back() / static_cast<double>(first.steps) : 0.0;
  std::vector<Mean> means;
  for (size_t a = 0; a < in.arms.size(); ++a) {
    result.arms.push_back(in.arms[a].spec);
    std::vector<size_t> all(padded[a].size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    means.push_back(MeanOf(padded[a], raw[a], all));
    result.mean_curves.push_back(means.back().curve);
    result.mean_flops.push_back(means.back().flops);
  }
  const Mean& base = means[in.baseline];
  const Target target = FindTarget(base.curve);
  if (target.t_baseline == 0) {
    return Status::InvalidArgument(fmt::format(
        "the baseline is at its best ({:.4f} bits per byte) at step 0: it never improved, so no "
        "saving can be measured; check the learning rate and the eval data",
        target.l_star));
  }

  for (size_t a = 0; a < in.arms.size(); ++a) {
    if (a == in.baseline) continue;
    const ScheduleArm& arm = in.arms[a];
    const Mean& m = means[a];
    ScheduleComparison c;
    c.arm = arm.spec.name;
    c.baseline = base_arm.spec.name;
    c.schedule = arm.spec.schedule;
    c.kind = KindOf(arm.spec.schedule);
    const Savings s = Compare(base, m);
    c.l_star = s.target.l_star;
    c.t_baseline = s.base.step;
    c.t_arm = s.arm.step;
    c.caught_up = s.caught_up;
    c.flops_baseline = s.base.flops;
    c.flops_arm = s.arm.flops;
    c.core_baseline = s.base.core_seconds;
    c.core_arm = s.arm.core_seconds;
    c.wall_baseline = s.base.train_seconds;
    c.wall_arm = s.arm.train_seconds;
    c.trigger_flops = m.trigger_flops;
    c.trigger_core_seconds = m.trigger_core;
    c.trigger_seconds = m.trigger_wall;
    c.gross = s.gross;
    c.net = s.net;
    c.net_core_seconds = s.net_core;
    c.net_wall = s.net_wall;
    c.total_flops_arm = m.flops.back();
    c.total_flops_baseline = base.flops.back();
    c.loss_at_equal_compute = m.curve.bpb.back() - LossAtFlops(base, c.total_flops_arm);
    double frozen_sum = 0;
    for (const ScheduleRun& r : arm.runs) {
      if (r.frozen_at >= 0) {
        ++c.frozen_runs;
        frozen_sum += static_cast<double>(r.frozen_at);
      }
      if (r.stopped_early) ++c.stopped_runs;
    }
    c.frozen_at = c.frozen_runs > 0 ? frozen_sum / c.frozen_runs : -1;

    // Seed pairs, and the list of pairs the paired bootstrap draws from.
    std::vector<std::pair<size_t, size_t>> pairs;  // (baseline run, arm run)
    for (size_t j = 0; j < arm.runs.size(); ++j) {
      for (size_t k = 0; k < base_arm.runs.size(); ++k) {
        if (base_arm.runs[k].seed != arm.runs[j].seed) continue;
        pairs.push_back({k, j});
        const Mean pb = MeanOf(padded[in.baseline], raw[in.baseline], {k});
        const Mean pa = MeanOf(padded[a], raw[a], {j});
        const Savings p = Compare(pb, pa);
        c.per_seed.push_back({arm.runs[j].seed, p.caught_up, p.gross, p.net,
                              pa.curve.bpb.back() - LossAtFlops(pb, pa.flops.back()),
                              arm.runs[j].frozen_at, arm.runs[j].steps});
      }
    }
    if (in.bootstrap.paired &&
        (pairs.size() != arm.runs.size() || pairs.size() != base_arm.runs.size())) {
      return Status::InvalidArgument(fmt::format(
          "paired bootstrap for arm '{}' needs the same seeds in both arms", arm.spec.name));
    }
    SplitMix64 rng(in.bootstrap.seed ^ Fnv1a64(arm.spec.name));
    std::vector<double> gross, net;
    c.ci.resamples = in.bootstrap.resamples;
    std::vector<size_t> ib, ia;
    for (int r = 0; r < in.bootstrap.resamples; ++r) {
      ib.clear();
      ia.clear();
      if (in.bootstrap.paired) {
        for (size_t k = 0; k < pairs.size(); ++k) {
          const auto& p = pairs[rng.Below(pairs.size())];
          ib.push_back(p.first);
          ia.push_back(p.second);
        }
      } else {
        for (size_t k = 0; k < base_arm.runs.size(); ++k)
          ib.push_back(rng.Below(base_arm.runs.size()));
        for (size_t k = 0; k < arm.runs.size(); ++k) ia.push_back(rng.Below(arm.runs.size()));
      }
      const Savings b =
          Compare(MeanOf(padded[in.baseline], raw[in.baseline], ib), MeanOf(padded[a], raw[a], ia));
      if (std::isnan(b.gross)) {
        ++c.ci.undefined;
        continue;
      }
      if (!b.caught_up) ++c.ci.never_caught_up;
      gross.push_back(b.gross);
      net.push_back(b.net);
    }
    std::sort(gross.begin(), gross.end());
    std::sort(net.begin(), net.end());
    const double alpha = (1.0 - in.bootstrap.level) / 2.0;
    c.ci.gross = {NearestRank(gross, alpha), NearestRank(gross, 1.0 - alpha)};
    c.ci.net = {NearestRank(net, alpha), NearestRank(net, 1.0 - alpha)};
    result.comparisons.push_back(std::move(c));
  }

  // The best fixed step beside the adaptive trigger: by net FLOPs saving; among arms that never
  // reached L*, by the loss at equal compute (lower is better).
  ScheduleVerdict& v = result.verdict;
  auto better = [&](int i, int j) {  // is comparison i better than j (j may be -1)?
    if (j < 0) return true;
    const ScheduleComparison& a = result.comparisons[i];
    const ScheduleComparison& b = result.comparisons[j];
    if (a.caught_up != b.caught_up) return a.caught_up;
    if (!a.caught_up) return a.loss_at_equal_compute < b.loss_at_equal_compute;
    return !std::isnan(a.net) && (std::isnan(b.net) || a.net > b.net);
  };
  int fixed_count = 0;
  for (size_t i = 0; i < result.comparisons.size(); ++i) {
    const std::string& kind = result.comparisons[i].kind;
    if (kind == "fixed") {
      ++fixed_count;
      if (better(static_cast<int>(i), v.best_fixed)) v.best_fixed = static_cast<int>(i);
    } else if (kind == "adaptive" && better(static_cast<int>(i), v.best_adaptive)) {
      v.best_adaptive = static_cast<int>(i);
    }
  }
  if (v.best_fixed >= 0 && v.best_adaptive >= 0) {
    const ScheduleComparison& f = result.comparisons[v.best_fixed];
    const ScheduleComparison& ad = result.comparisons[v.best_adaptive];
    const double level = in.bootstrap.level;
    auto outcome = [&](const ScheduleComparison& c) {
      if (!c.caught_up) {
        return fmt::format(
            "never reached L* (at its total compute, {} of the baseline's, its final loss is "
            "{:+.4f} bits per byte against the baseline's at that compute)",
            Pct(c.total_flops_arm / c.total_flops_baseline), c.loss_at_equal_compute);
      }
      return fmt::format("saved {} of the training FLOPs to L* ({}; {} of the wall time)",
                         Pct(c.net), IntervalText(c.ci.net, level), Pct(c.net_wall));
    };
    if (f.caught_up != ad.caught_up) {
      v.winner = f.caught_up ? "fixed" : "adaptive";
    } else if (!f.caught_up) {
      auto range = [](const ScheduleComparison& c) {
        std::pair<double, double> r{kNever, -kNever};
        for (const ScheduleSeed& p : c.per_seed) {
          r.first = std::min(r.first, p.loss_at_equal_compute);
          r.second = std::max(r.second, p.loss_at_equal_compute);
        }
        return r;
      };
      const auto rf = range(f), ra = range(ad);
      const bool overlap = rf.first <= ra.second && ra.first <= rf.second;
      v.winner = overlap || f.loss_at_equal_compute == ad.loss_at_equal_compute ? "tie"
                 : f.loss_at_equal_compute < ad.loss_at_equal_compute           ? "fixed"
                                                                                : "adaptive";
    } else {
      v.winner = f.net == ad.net ? "tie" : (f.net > ad.net ? "fixed" : "adaptive");
    }
    v.text = fmt::format(
        "The best fixed step{} ({}, freezing at step {}) {}. The adaptive trigger ({}, freezing "
        "at step {} on average) {}, net of its own cost ({} and {:.3g} core-seconds per run). {}{}",
        fixed_count > 1 ? fmt::format(" of {} tried", fixed_count) : std::string(), f.schedule,
        f.frozen_at >= 0 ? FormatSteps(std::round(f.frozen_at)) : std::string("never"), outcome(f),
        ad.schedule,
        ad.frozen_at >= 0 ? FormatSteps(std::round(ad.frozen_at)) : std::string("never"),
        outcome(ad), FormatFlops(ad.trigger_flops), ad.trigger_core_seconds,
        v.winner == "tie"
            ? "They tied"
            : (v.winner == "adaptive" ? "The adaptive trigger won" : "The fixed step won"),
        f.caught_up || ad.caught_up
            ? "."
            : (v.winner == "tie" ? " on loss at equal compute (neither reached L*; their per-seed "
                                   "ranges of it overlap)."
                                 : " on loss at equal compute (neither reached L*)."));
    if (fixed_count > 1) {
      v.text +=
          " Picking the best of the fixed steps after seeing their results on this held-out set "
          "is itself selection on the eval set, so the fixed step's result is optimistic.";
    }
  }
  return result;
}

TrialResult ScheduleTrialAsTrialResult(const ScheduleTrialResult& r) {
  TrialResult t;
  t.arms = r.arms;
  t.baseline = r.baseline;
  t.mean_curves = r.mean_curves;
  t.budget_steps = r.budget_steps;
  t.bootstrap = r.bootstrap;
  t.flops_per_step = 0;  // steps cost different FLOPs per arm: no single FLOPs axis
  for (const ScheduleComparison& c : r.comparisons) {
    Comparison k;
    k.arm = c.arm;
    k.baseline = c.baseline;
    k.saving = {c.l_star, c.t_baseline, c.t_arm, c.caught_up, c.gross, c.net};
    for (const ScheduleSeed& s : c.per_seed) {
      Saving p;
      p.l_star = c.l_star;
      p.caught_up = s.caught_up;
      p.gross = s.gross;
      p.net = s.net;
      p.t_baseline = c.t_baseline;
      p.t_arm = kNever;
      k.per_seed.push_back({s.seed, p});
    }
    k.ci = c.ci;
    k.arm_cost_core_seconds = c.trigger_core_seconds;
    k.flops_to_baseline = c.flops_baseline;
    k.flops_to_arm = c.flops_arm;
    t.comparisons.push_back(std::move(k));
  }
  return t;
}

nlohmann::json ScheduleComparisonToJson(const ScheduleComparison& c) {
  nlohmann::json per_seed = nlohmann::json::array();
  for (const ScheduleSeed& s : c.per_seed) {
    per_seed.push_back({{"seed", s.seed},
                        {"caught_up", s.caught_up},
                        {"gross", Num(s.gross)},
                        {"net", Num(s.net)},
                        {"loss_at_equal_compute", s.loss_at_equal_compute},
                        {"frozen_at", s.frozen_at},
                        {"steps", s.steps}});
  }
  return {
      {"arm", c.arm},
      {"baseline", c.baseline},
      {"schedule", c.schedule},
      {"kind", c.kind},
      {"l_star", c.l_star},
      {"t_baseline", c.t_baseline},
      {"t_arm", Num(c.t_arm)},
      {"caught_up", c.caught_up},
      {"compute_saved",
       {{"gross", Num(c.gross)},
        {"net", Num(c.net)},
        {"ci95", {Num(c.ci.net.lo), Num(c.ci.net.hi)}},
        {"ci95_gross", {Num(c.ci.gross.lo), Num(c.ci.gross.hi)}},
        {"core_seconds", Num(c.net_core_seconds)},
        {"wall", Num(c.net_wall)},
        {"per_seed", per_seed},
        {"axis", "cumulative training FLOPs"},
        {"bootstrap",
         {{"resamples", c.ci.resamples},
          {"never_caught_up", c.ci.never_caught_up},
          {"undefined", c.ci.undefined}}}}},
      {"flops",
       {{"to_baseline", Num(c.flops_baseline)},
        {"to_arm", Num(c.flops_arm)},
        {"total_baseline", c.total_flops_baseline},
        {"total_arm", c.total_flops_arm}}},
      {"core_seconds", {{"to_baseline", Num(c.core_baseline)}, {"to_arm", Num(c.core_arm)}}},
      {"train_seconds", {{"to_baseline", Num(c.wall_baseline)}, {"to_arm", Num(c.wall_arm)}}},
      {"trigger",
       {{"flops", c.trigger_flops},
        {"core_seconds", c.trigger_core_seconds},
        {"seconds", c.trigger_seconds}}},
      {"loss_at_equal_compute", c.loss_at_equal_compute},
      {"frozen_at", c.frozen_at < 0 ? nlohmann::json(nullptr) : nlohmann::json(c.frozen_at)},
      {"frozen_runs", c.frozen_runs},
      {"stopped_runs", c.stopped_runs},
  };
}

nlohmann::json ScheduleTrialResultToJson(const ScheduleTrialResult& r) {
  nlohmann::json arms = nlohmann::json::array();
  for (size_t a = 0; a < r.arms.size(); ++a) {
    arms.push_back({{"name", r.arms[a].name},
                    {"data_kind", r.arms[a].data_kind},
                    {"schedule", r.arms[a].schedule},
                    {"mean_curve",
                     {{"steps", r.mean_curves[a].steps},
                      {"bpb", r.mean_curves[a].bpb},
                      {"flops", r.mean_flops[a]}}}});
  }
  nlohmann::json comparisons = nlohmann::json::array();
  for (const auto& c : r.comparisons) comparisons.push_back(ScheduleComparisonToJson(c));
  auto name_of = [&](int i) {
    return i < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.comparisons[i].arm);
  };
  nlohmann::json out = {
      {"kind", "schedule"},
      {"arms", arms},
      {"baseline", r.arms[r.baseline].name},
      {"budget_steps", r.budget_steps},
      {"flops_per_step", r.flops_per_step},
      {"bootstrap", r.bootstrap.ToJson()},
      {"comparisons", comparisons},
      {"verdict",
       {{"best_fixed", name_of(r.verdict.best_fixed)},
        {"best_adaptive", name_of(r.verdict.best_adaptive)},
        {"winner", r.verdict.winner},
        {"text", r.verdict.text}}},
  };
  if (!r.comparisons.empty()) {
    out["compute_saved"] = comparisons[0]["compute_saved"];
    out["caught_up"] = comparisons[0]["caught_up"];
    out["l_star"] = comparisons[0]["l_star"];
    out["t_baseline"] = comparisons[0]["t_baseline"];
    out["t_arm"] = comparisons[0]["t_arm"];
  }
  return out;
}

std::string ScheduleFalsifier(const ScheduleQuestion& q, const std::vector<ArmSpec>& arms) {
  bool adaptive = false, fixed = false;
  for (const ArmSpec& a : arms) {
    if (a.schedule.empty()) continue;
    adaptive = adaptive || KindOf(a.schedule) == "adaptive";
    fixed = fixed || KindOf(a.schedule) == "fixed";
  }
  std::string s = fmt::format(
      "A schedule is wrong here if its arm's mean held-out loss does not reach L*, the plain "
      "baseline's best mean loss, within S = {} steps, or reaches it only after spending at least "
      "the baseline's training FLOPs to L* including the schedule's own measurement cost (net "
      "saving <= 0).",
      FormatSteps(static_cast<double>(q.steps)));
  if (adaptive && fixed) {
    s += " The adaptive trigger is wrong to prefer if its net saving is not above the best fixed "
         "step's.";
  }
  return s + " Fixed before training.";
}

nlohmann::json BuildScheduleLabRecord(const ScheduleQuestion& q, const ScheduleTrialResult& r) {
  const std::string model = q.model_params > 0
                                ? fmt::format("the {} model ({} parameters)", q.model,
                                              FormatSteps(static_cast<double>(q.model_params)))
                                : fmt::format("the {} model", q.model);
  std::string schedules;
  int fixed = 0;
  bool adaptive = false;
  for (const ArmSpec& a : r.arms) {
    if (a.schedule.empty()) continue;
    schedules += (schedules.empty() ? "" : ", ") + a.schedule;
    fixed += KindOf(a.schedule) == "fixed";
    adaptive = adaptive || KindOf(a.schedule) == "adaptive";
  }
  nlohmann::json record;
  record["question"] = fmt::format(
      "Training {} on {} for {} steps, does changing the training schedule ({}) reach the plain "
      "run's best held-out loss on {} with fewer training FLOPs and less time, after paying for "
      "any measurement the schedule needs?{}",
      model, q.data, FormatSteps(static_cast<double>(q.steps)), schedules, q.target,
      adaptive && fixed > 0 ? " And does the adaptive trigger beat the best fixed step?" : "");
  record["falsifier"] = ScheduleFalsifier(q, r.arms);

  nlohmann::json dns = nlohmann::json::array();
  dns.push_back(
      fmt::format("Whether the saving holds for larger models or longer runs: this "
                  "trial trained only {} for {} steps.",
                  model, FormatSteps(static_cast<double>(q.steps))));
  dns.push_back(fmt::format(
      "Quality on anything but the held-out text of {}: bits per byte on it is the only quality "
      "measured.",
      q.target));
  dns.push_back(
      "Core-second and wall-time savings are measurements on a shared machine and move by "
      "10-15% between runs; the FLOPs are computed from the shapes and are exact.");
  if (fixed > 1) {
    dns.push_back(fmt::format(
        "That the best of the {} fixed steps would be best again: it was picked after seeing "
        "every step's result on this same held-out set, which is selection on the eval set; its "
        "saving is optimistic until confirmed on fresh data or with a step fixed in advance.",
        fixed));
  }
  if (fixed > 0 || adaptive) {
    dns.push_back(
        "Whether freezing at the same fraction pays under another learning-rate schedule: the "
        "cosine decay had already lowered the learning rate when the parts froze.");
  }
  record["does_not_show"] = dns;

  if (r.comparisons.empty()) {
    record["summary"] = "No schedule arm was compared with the baseline.";
    record["finding"] = "Nothing was measured.";
    return record;
  }
  const double level = r.bootstrap.level;
  const ScheduleComparison& p = r.comparisons[0];
  std::string finding = fmt::format(
      "L* = {:.4f} bits per byte, the plain baseline's best mean held-out loss, reached at step "
      "{} after {} of training.",
      p.l_star, FormatSteps(p.t_baseline), FormatFlops(p.flops_baseline));
  for (const ScheduleComparison& c : r.comparisons) {
    std::string when =
        c.kind == "earlystop"
            ? fmt::format("{} of {} runs stopped early", c.stopped_runs, c.per_seed.size())
            : (c.frozen_runs > 0 ? fmt::format("froze at step {} (mean over {} runs)",
                                               FormatSteps(c.frozen_at), c.frozen_runs)
                                 : std::string("never froze"));
    if (c.caught_up) {
      finding += fmt::format(
          " {} ({}): reached L* at step {} after {}: {} of the FLOPs saved gross, {} net of the "
          "trigger's {:.3g} FLOPs ({}); measured core-seconds {}, wall time {}; at its total "
          "compute its final loss is {:+.4f} bits per byte against the baseline's.",
          c.schedule, when, FormatSteps(c.t_arm), FormatFlops(c.flops_arm), Pct(c.gross),
          Pct(c.net), c.trigger_flops, IntervalText(c.ci.net, level), Pct(c.net_core_seconds),
          Pct(c.net_wall), c.loss_at_equal_compute);
    } else {
      finding += fmt::format(
          " {} ({}): never reached L* within {} steps (the falsifier occurred for it); at its "
          "total compute its final loss is {:+.4f} bits per byte against the baseline's.",
          c.schedule, when, FormatSteps(static_cast<double>(r.budget_steps)),
          c.loss_at_equal_compute);
    }
  }
  if (!r.verdict.text.empty()) finding += " " + r.verdict.text;

  std::string summary;
  auto saved = [&](const ScheduleComparison& c) {
    return c.caught_up
               ? fmt::format(
                     "saved {} of the training FLOPs ({} of the wall time) to reach the "
                     "plain run's best held-out loss",
                     Pct(c.net), Pct(c.net_wall))
               : fmt::format(
                     "never reached the plain run's best held-out loss; at {} of its "
                     "compute it ended {:+.4f} bits per byte from the plain run at that "
                     "compute",
                     Pct(c.total_flops_arm / c.total_flops_baseline), c.loss_at_equal_compute);
  };
  if (r.verdict.best_fixed >= 0 && r.verdict.best_adaptive >= 0) {
    const ScheduleComparison& f = r.comparisons[r.verdict.best_fixed];
    const ScheduleComparison& a = r.comparisons[r.verdict.best_adaptive];
    summary = fmt::format(
        "On {} with {}: the best fixed freeze ({}) {}; the adaptive trigger ({}) {}, net of its "
        "own cost. {} ({} seeds, paired.)",
        q.target, model, f.schedule, saved(f), a.schedule, saved(a),
        r.verdict.winner == "adaptive" ? "The adaptive trigger won."
        : r.verdict.winner == "fixed"  ? "The fixed step won."
                                       : "They tied.",
        q.seeds);
  } else {
    summary = fmt::format("On {} with {}: {} {} ({} seeds, paired).", q.target, model, p.schedule,
                          saved(p), q.seeds);
  }
  record["summary"] = summary;
  record["finding"] = finding;
  return record;
}

}  // namespace preflight::trial
