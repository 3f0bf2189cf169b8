#include "trial/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "base/rng.h"

namespace preflight::trial {

nlohmann::json BootstrapOptions::ToJson() const {
  return {{"resamples", resamples},
          {"seed", seed},
          {"level", level},
          {"paired", paired},
          {"rng", "splitmix64"}};
}
namespace {

bool Finite(double x) { return std::isfinite(x); }

nlohmann::json Num(double x) { return Finite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// Keeps the eval points at or before `budget`.
Curve Truncate(const Curve& curve, int64_t budget) {
  Curve out;
  for (size_t i = 0; i < curve.steps.size() && curve.steps[i] <= budget; ++i) {
    out.steps.push_back(curve.steps[i]);
    out.bpb.push_back(curve.bpb[i]);
  }
  return out;
}

// Mean of runs[idx[0]], runs[idx[1]], ... summed in that order. Curves share steps (checked).
Curve MeanOf(const std::vector<Curve>& runs, const std::vector<size_t>& idx) {
  Curve mean;
  mean.steps = runs[idx[0]].steps;
  mean.bpb.assign(mean.steps.size(), 0.0);
  for (size_t k : idx) {
    for (size_t i = 0; i < mean.bpb.size(); ++i) mean.bpb[i] += runs[k].bpb[i];
  }
  for (double& v : mean.bpb) v /= static_cast<double>(idx.size());
  return mean;
}

// Nearest-rank percentile of sorted values: the smallest value with at least q of the values
// at or below it. The epsilon keeps 0.975 * 2000 from rounding up to 1951.
double NearestRank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nan("");
  double rank = std::ceil(q * static_cast<double>(sorted.size()) - 1e-9);
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

std::string KeepPhrase(double keep) {
  if (std::abs(keep - 0.25) < 1e-12) return "quarter";
  if (std::abs(keep - 0.5) < 1e-12) return "half";
  return fmt::format("{:g}%", keep * 100);
}

std::string IntervalPhrase(const Interval& ci, double level) {
  int pct = static_cast<int>(std::lround(level * 100));
  if (std::isnan(ci.lo) || std::isnan(ci.hi)) return fmt::format("{}% interval undefined", pct);
  if (!Finite(ci.hi)) return fmt::format("{}% interval: never caught up at either end", pct);
  if (!Finite(ci.lo)) {
    return fmt::format("{}% interval from never catching up to {}", pct, FormatPercent(ci.hi));
  }
  return fmt::format("{}% interval {} to {}", pct, FormatPercent(ci.lo), FormatPercent(ci.hi));
}

// Wraps one paragraph at `width` columns, each line starting with `indent`.
std::string Wrap(const std::string& text, size_t width, const std::string& indent) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

}  // namespace

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
    if (!Finite(curve.bpb[i])) {
      return Status::InvalidArgument(fmt::format(
          "{}: eval at step {} is not a finite number (the run diverged?)", what, curve.steps[i]));
    }
  }
  return Status::Ok();
}

Result<Curve> MeanCurve(const std::vector<Curve>& runs) {
  if (runs.empty()) return Status::InvalidArgument("mean curve of no runs");
  for (size_t k = 0; k < runs.size(); ++k) {
    PF_RETURN_IF_ERROR(ValidateCurve(runs[k], fmt::format("run {}", k)));
    if (runs[k].steps != runs[0].steps) {
      return Status::InvalidArgument(fmt::format(
          "run {} was evaluated at different steps from run 0; every run of a trial must share "
          "one eval schedule",
          k));
    }
  }
  std::vector<size_t> idx(runs.size());
  for (size_t k = 0; k < idx.size(); ++k) idx[k] = k;
  return MeanOf(runs, idx);
}

Target FindTarget(const Curve& baseline) {
  Target target{baseline.bpb[0], baseline.steps[0]};
  for (size_t i = 1; i < baseline.bpb.size(); ++i) {
    if (baseline.bpb[i] < target.l_star) target = {baseline.bpb[i], baseline.steps[i]};
  }
  return target;
}

double CatchUpStep(const Curve& curve, double l_star) {
  for (size_t i = 0; i < curve.bpb.size(); ++i) {
    if (curve.bpb[i] > l_star) continue;
    if (i == 0 || curve.bpb[i] == l_star) return static_cast<double>(curve.steps[i]);
    // bpb[i-1] > l_star > bpb[i]: the straight line between the two points crosses l_star.
    double s0 = static_cast<double>(curve.steps[i - 1]);
    double s1 = static_cast<double>(curve.steps[i]);
    double fraction = (curve.bpb[i - 1] - l_star) / (curve.bpb[i - 1] - curve.bpb[i]);
    return s0 + fraction * (s1 - s0);
  }
  return kNever;
}

Saving ComputeSaving(const Curve& baseline, const Curve& arm, double f, double c_arm,
                     double c_baseline) {
  Saving s;
  Target target = FindTarget(baseline);
  s.l_star = target.l_star;
  s.t_baseline = static_cast<double>(target.t_baseline);
  s.t_arm = CatchUpStep(arm, target.l_star);
  s.caught_up = Finite(s.t_arm);
  if (s.t_baseline == 0) {
    // The baseline was best before training: no compute was needed to reach L*, so a
    // fraction of it saved is undefined.
    s.gross = s.net = std::nan("");
  } else if (!s.caught_up) {
    s.gross = s.net = -kNever;
  } else {
    s.gross = 1.0 - s.t_arm / s.t_baseline;
    s.net = 1.0 - (s.t_arm * f + c_arm) / (s.t_baseline * f + c_baseline);
  }
  return s;
}

Result<BootstrapResult> BootstrapSaving(const std::vector<Curve>& baseline_runs,
                                        const std::vector<Curve>& arm_runs,
                                        const std::vector<uint64_t>& baseline_seeds,
                                        const std::vector<uint64_t>& arm_seeds,
                                        const std::string& arm_name, double f, double c_arm,
                                        double c_baseline, const BootstrapOptions& options) {
  if (options.resamples < 1) return Status::InvalidArgument("bootstrap needs >= 1 resample");
  if (!(options.level > 0 && options.level < 1)) {
    return Status::InvalidArgument("bootstrap level must lie strictly between 0 and 1");
  }
  PF_RETURN_IF_ERROR(MeanCurve(baseline_runs).status());
  PF_RETURN_IF_ERROR(MeanCurve(arm_runs).status());
  if (baseline_runs[0].steps != arm_runs[0].steps) {
    return Status::InvalidArgument("bootstrap: the arms were evaluated at different steps");
  }
  // Paired mode draws indices into the list of seeds both arms have, in the arm's order.
  std::vector<size_t> pair_baseline, pair_arm;
  if (options.paired) {
    for (size_t j = 0; j < arm_seeds.size(); ++j) {
      auto it = std::find(baseline_seeds.begin(), baseline_seeds.end(), arm_seeds[j]);
      if (it == baseline_seeds.end()) continue;
      pair_arm.push_back(j);
      pair_baseline.push_back(static_cast<size_t>(it - baseline_seeds.begin()));
    }
    if (pair_arm.empty() || pair_arm.size() != arm_runs.size() ||
        pair_baseline.size() != baseline_runs.size()) {
      return Status::InvalidArgument(
          fmt::format("paired bootstrap for arm '{}' needs the same seeds in both arms", arm_name));
    }
  }

  SplitMix64 rng(options.seed ^ Fnv1a64(arm_name));
  BootstrapResult out;
  out.resamples = options.resamples;
  std::vector<double> gross, net;
  gross.reserve(options.resamples);
  net.reserve(options.resamples);
  std::vector<size_t> idx_b(baseline_runs.size()), idx_a(arm_runs.size());
  for (int r = 0; r < options.resamples; ++r) {
    if (options.paired) {
      for (size_t k = 0; k < pair_arm.size(); ++k) {
        size_t p = rng.Below(pair_arm.size());
        idx_b[k] = pair_baseline[p];
        idx_a[k] = pair_arm[p];
      }
    } else {
      for (size_t& k : idx_b) k = rng.Below(baseline_runs.size());
      for (size_t& k : idx_a) k = rng.Below(arm_runs.size());
    }
    Saving s =
        ComputeSaving(MeanOf(baseline_runs, idx_b), MeanOf(arm_runs, idx_a), f, c_arm, c_baseline);
    if (std::isnan(s.gross)) {
      ++out.undefined;
      continue;
    }
    if (!s.caught_up) ++out.never_caught_up;
    gross.push_back(s.gross);
    net.push_back(s.net);
  }
  std::sort(gross.begin(), gross.end());
  std::sort(net.begin(), net.end());
  double alpha = (1.0 - options.level) / 2.0;
  out.gross = {NearestRank(gross, alpha), NearestRank(gross, 1.0 - alpha)};
  out.net = {NearestRank(net, alpha), NearestRank(net, 1.0 - alpha)};
  return out;
}

Result<TrialResult> ComputeTrial(const TrialInputs& in) {
  if (in.arms.size() < 2) {
    return Status::InvalidArgument("a trial needs a baseline arm and at least one other arm");
  }
  if (in.baseline >= in.arms.size()) {
    return Status::InvalidArgument(
        fmt::format("baseline index {} but only {} arms", in.baseline, in.arms.size()));
  }
  if (!(Finite(in.core_seconds_per_step) && in.core_seconds_per_step > 0)) {
    return Status::InvalidArgument(
        "core-seconds per training step must be measured and > 0 to charge selection cost");
  }
  if (!(Finite(in.flops_per_step) && in.flops_per_step >= 0)) {
    return Status::InvalidArgument("FLOPs per step must be a finite number >= 0");
  }
  std::set<std::string> names;
  if (in.arms[in.baseline].curves.empty()) {
    return Status::InvalidArgument(
        fmt::format("baseline arm '{}' has no runs", in.arms[in.baseline].spec.name));
  }
  const Curve& schedule = in.arms[in.baseline].curves[0];
  for (const Arm& arm : in.arms) {
    const std::string& name = arm.spec.name;
    if (name.empty() || !names.insert(name).second) {
      return Status::InvalidArgument(
          fmt::format("arm names must be unique and non-empty ('{}')", name));
    }
    if (arm.curves.empty()) {
      return Status::InvalidArgument(fmt::format("arm '{}' has no runs", name));
    }
    if (!arm.seeds.empty() && arm.seeds.size() != arm.curves.size()) {
      return Status::InvalidArgument(fmt::format("arm '{}': {} seeds for {} curves", name,
                                                 arm.seeds.size(), arm.curves.size()));
    }
    if (!(Finite(arm.cost_core_seconds) && arm.cost_core_seconds >= 0)) {
      return Status::InvalidArgument(fmt::format("arm '{}': cost must be >= 0", name));
    }
    for (size_t k = 0; k < arm.curves.size(); ++k) {
      PF_RETURN_IF_ERROR(ValidateCurve(arm.curves[k], fmt::format("arm '{}' run {}", name, k)));
      if (arm.curves[k].steps != schedule.steps) {
        return Status::InvalidArgument(fmt::format(
            "arm '{}' run {} was evaluated at different steps from the baseline; every run of a "
            "trial must share one eval schedule",
            name, k));
      }
    }
  }
  int64_t last = schedule.steps.back();
  int64_t budget = in.budget_steps == 0 ? last : in.budget_steps;
  if (budget < 0 || budget > last) {
    return Status::InvalidArgument(fmt::format(
        "the step budget S = {} lies beyond the last eval step {}: whether the arm catches up "
        "after step {} is unknown; evaluate at step S",
        budget, last, last));
  }

  TrialResult result;
  result.baseline = in.baseline;
  result.budget_steps = budget;
  result.core_seconds_per_step = in.core_seconds_per_step;
  result.flops_per_step = in.flops_per_step;
  result.bootstrap = in.bootstrap;
  std::vector<std::vector<Curve>> runs(in.arms.size());
  std::vector<std::vector<uint64_t>> seeds(in.arms.size());
  for (size_t a = 0; a < in.arms.size(); ++a) {
    result.arms.push_back(in.arms[a].spec);
    for (const Curve& c : in.arms[a].curves) runs[a].push_back(Truncate(c, budget));
    if (runs[a][0].steps.empty()) {
      return Status::InvalidArgument(
          fmt::format("no eval point at or before the step budget S = {}", budget));
    }
    seeds[a] = in.arms[a].seeds;
    if (seeds[a].empty()) {
      for (size_t k = 0; k < runs[a].size(); ++k) seeds[a].push_back(k + 1);
    }
    PF_ASSIGN_OR_RETURN(Curve mean, MeanCurve(runs[a]));
    result.mean_curves.push_back(std::move(mean));
  }

  const Curve& base_mean = result.mean_curves[in.baseline];
  Target target = FindTarget(base_mean);
  if (target.t_baseline == 0) {
    return Status::InvalidArgument(fmt::format(
        "baseline arm '{}' is at its best ({:.4f} bits per byte) at step 0: it never improved "
        "on the untrained model, so no compute saving can be measured; check the learning rate "
        "and the eval data",
        in.arms[in.baseline].spec.name, target.l_star));
  }
  const double f = in.core_seconds_per_step;
  const Arm& base = in.arms[in.baseline];
  for (size_t a = 0; a < in.arms.size(); ++a) {
    if (a == in.baseline) continue;
    const Arm& arm = in.arms[a];
    Comparison cmp;
    cmp.arm = arm.spec.name;
    cmp.baseline = base.spec.name;
    cmp.arm_cost_core_seconds = arm.cost_core_seconds;
    cmp.baseline_cost_core_seconds = base.cost_core_seconds;
    cmp.saving = ComputeSaving(base_mean, result.mean_curves[a], f, arm.cost_core_seconds,
                               base.cost_core_seconds);
    cmp.flops_to_baseline = cmp.saving.t_baseline * in.flops_per_step;
    cmp.flops_to_arm = cmp.saving.caught_up ? cmp.saving.t_arm * in.flops_per_step : kNever;
    for (size_t j = 0; j < runs[a].size(); ++j) {
      auto it = std::find(seeds[in.baseline].begin(), seeds[in.baseline].end(), seeds[a][j]);
      if (it == seeds[in.baseline].end()) continue;
      const Curve& base_run = runs[in.baseline][it - seeds[in.baseline].begin()];
      cmp.per_seed.push_back(
          {seeds[a][j],
           ComputeSaving(base_run, runs[a][j], f, arm.cost_core_seconds, base.cost_core_seconds)});
    }
    PF_ASSIGN_OR_RETURN(cmp.ci, BootstrapSaving(runs[in.baseline], runs[a], seeds[in.baseline],
                                                seeds[a], arm.spec.name, f, arm.cost_core_seconds,
                                                base.cost_core_seconds, in.bootstrap));
    result.comparisons.push_back(std::move(cmp));
  }
  return result;
}

Status CheckComputeMatched(const std::vector<RunCompute>& runs) {
  if (runs.empty()) return Status::InvalidArgument("compute check: no runs recorded");
  const RunCompute& ref = runs[0];
  std::vector<std::string> problems;
  for (const RunCompute& run : runs) {
    double scale = std::max(std::abs(ref.flops_per_step), std::abs(run.flops_per_step));
    if (!Finite(run.flops_per_step) ||
        std::abs(run.flops_per_step - ref.flops_per_step) > 1e-9 * scale) {
      problems.push_back(fmt::format("run '{}' has {:g} FLOPs/step but run '{}' has {:g}", run.run,
                                     run.flops_per_step, ref.run, ref.flops_per_step));
    }
    if (run.steps != ref.steps) {
      problems.push_back(fmt::format("run '{}' trained {} steps but run '{}' trained {}", run.run,
                                     run.steps, ref.run, ref.steps));
    }
    if (run.tokens_per_step != ref.tokens_per_step) {
      problems.push_back(fmt::format("run '{}' has {} tokens/step but run '{}' has {}", run.run,
                                     run.tokens_per_step, ref.run, ref.tokens_per_step));
    }
  }
  if (problems.empty()) return Status::Ok();
  std::string msg =
      "the arms are not compute-matched, so no saving is reported (every run must use the same "
      "model, batch, context and steps): ";
  for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  return Status::InvalidArgument(msg);
}

nlohmann::json SavingToJson(const Saving& s) {
  return {{"l_star", s.l_star},       {"t_baseline", s.t_baseline}, {"t_arm", Num(s.t_arm)},
          {"caught_up", s.caught_up}, {"gross", Num(s.gross)},      {"net", Num(s.net)}};
}

nlohmann::json ComparisonToJson(const Comparison& c) {
  nlohmann::json per_seed = nlohmann::json::array();
  for (const SeedSaving& p : c.per_seed) {
    nlohmann::json j = SavingToJson(p.saving);
    j["seed"] = p.seed;
    per_seed.push_back(j);
  }
  return {
      {"arm", c.arm},
      {"baseline", c.baseline},
      {"l_star", c.saving.l_star},
      {"t_baseline", c.saving.t_baseline},
      {"t_arm", Num(c.saving.t_arm)},
      {"caught_up", c.saving.caught_up},
      {"compute_saved",
       {{"gross", Num(c.saving.gross)},
        {"net", Num(c.saving.net)},
        {"ci95", {Num(c.ci.net.lo), Num(c.ci.net.hi)}},
        {"ci95_gross", {Num(c.ci.gross.lo), Num(c.ci.gross.hi)}},
        {"per_seed", per_seed},
        {"bootstrap",
         {{"resamples", c.ci.resamples},
          {"never_caught_up", c.ci.never_caught_up},
          {"undefined", c.ci.undefined}}}}},
      {"cost",
       {{"arm_core_seconds", c.arm_cost_core_seconds},
        {"baseline_core_seconds", c.baseline_cost_core_seconds}}},
      {"flops", {{"to_baseline", Num(c.flops_to_baseline)}, {"to_arm", Num(c.flops_to_arm)}}},
  };
}

nlohmann::json TrialResultToJson(const TrialResult& r) {
  nlohmann::json arms = nlohmann::json::array();
  for (size_t a = 0; a < r.arms.size(); ++a) {
    arms.push_back(
        {{"name", r.arms[a].name},
         {"data_kind", r.arms[a].data_kind},
         {"schedule", r.arms[a].schedule},
         {"mean_curve", {{"steps", r.mean_curves[a].steps}, {"bpb", r.mean_curves[a].bpb}}}});
  }
  nlohmann::json comparisons = nlohmann::json::array();
  for (const Comparison& c : r.comparisons) comparisons.push_back(ComparisonToJson(c));
  nlohmann::json out = {
      {"arms", arms},
      {"baseline", r.arms[r.baseline].name},
      {"budget_steps", r.budget_steps},
      {"core_seconds_per_step", r.core_seconds_per_step},
      {"flops_per_step", r.flops_per_step},
      {"bootstrap", r.bootstrap.ToJson()},
      {"comparisons", comparisons},
  };
  if (!r.comparisons.empty()) {
    const nlohmann::json& primary = comparisons[0];
    out["compute_saved"] = primary["compute_saved"];
    out["caught_up"] = primary["caught_up"];
    out["l_star"] = primary["l_star"];
    out["t_random"] = primary["t_baseline"];
    out["t_curated"] = primary["t_arm"];
  }
  return out;
}

std::string Falsifier(const LabQuestion& q) {
  return fmt::format(
      "The curated arm ({}) does not reach L*, the random arm's best mean held-out loss, within "
      "S = {} training steps. Fixed before training.",
      q.selector.empty() ? "curated" : q.selector, FormatInt(q.steps));
}

nlohmann::json BuildLabRecord(const LabQuestion& q, const TrialResult& r) {
  const std::string keep = KeepPhrase(q.keep);
  const std::string model = q.model_params > 0 ? fmt::format("the {} model ({} parameters)",
                                                             q.model, FormatInt(q.model_params))
                                               : fmt::format("the {} model", q.model);
  nlohmann::json record;
  record["question"] = fmt::format(
      "Does training {} on the {} of the pool ({}) that {} selects for {} reach the best "
      "held-out loss of a random {} of the same bytes in fewer steps, and does it still save "
      "compute after paying for the selection?",
      model, keep, q.pool.empty() ? FormatDecimalBytes(q.pool_bytes) : q.pool, q.selector, q.target,
      keep);
  record["falsifier"] = Falsifier(q);

  nlohmann::json does_not_show = nlohmann::json::array();
  does_not_show.push_back(fmt::format(
      "Whether the saving holds for larger models: this trial trained only {}.", model));
  does_not_show.push_back(
      fmt::format("Whether it holds for a larger or different pool: the pool held {}.",
                  FormatDecimalBytes(q.pool_bytes)));
  does_not_show.push_back(
      "Anything measured at larger scales: projections of this saving to larger models or "
      "corpora are arithmetic on these numbers, not measurements.");
  does_not_show.push_back(fmt::format(
      "Quality on anything but the held-out evaluation text of {} ({}): bits per byte on it is "
      "the only quality measured.",
      q.target, FormatDecimalBytes(q.eval_bytes)));
  if (r.arms.size() == 2) {
    does_not_show.push_back(fmt::format(
        "Whether {} is the best way to curate: only it and a random sample were compared.",
        q.selector));
  }
  record["does_not_show"] = does_not_show;

  if (r.comparisons.empty()) {
    record["summary"] = "No arm was compared with the baseline.";
    record["finding"] = "Nothing was measured.";
    return record;
  }
  const Comparison& c = r.comparisons[0];
  const Saving& s = c.saving;
  const double level = r.bootstrap.level;
  std::string summary;
  std::string finding = fmt::format(
      "L* = {:.4f} bits per byte, the random arm's best mean held-out loss, reached at step {}. ",
      s.l_star, FormatSteps(s.t_baseline));
  if (s.caught_up) {
    std::string direction = s.gross >= 0 ? "less" : "more";
    summary = fmt::format(
        "Training {} on the {} of the pool that {} chose for {} reached the random {}'s best "
        "held-out loss ({:.4f} bits per byte) at step {} instead of step {}: {} {} training "
        "compute. After paying for the selection (and the forecast, when one was made) the saving "
        "is {} ({}, {} seeds per arm).",
        model, keep, q.selector, q.target, keep, s.l_star, FormatSteps(s.t_arm),
        FormatSteps(s.t_baseline), FormatPercent(std::abs(s.gross)), direction,
        FormatPercent(s.net), IntervalPhrase(c.ci.net, level), q.seeds);
    finding += fmt::format(
        "The curated arm reached it at step {} (interpolated between eval points). Compute "
        "saved: {} gross ({}), {} net ({}), charging {:.3g} core-seconds for producing the "
        "curated arm and {:.3g} for the random arm against {:.3g} core-seconds per training "
        "step. The falsifier did not occur.",
        FormatSteps(s.t_arm), FormatPercent(s.gross), IntervalPhrase(c.ci.gross, level),
        FormatPercent(s.net), IntervalPhrase(c.ci.net, level), c.arm_cost_core_seconds,
        c.baseline_cost_core_seconds, r.core_seconds_per_step);
  } else {
    summary = fmt::format(
        "Training {} on the {} of the pool that {} chose for {} did not reach the random {}'s "
        "best held-out loss ({:.4f} bits per byte) within {} steps: here curation did not pay "
        "for itself (never caught up).",
        model, keep, q.selector, q.target, keep, s.l_star, FormatSteps(r.budget_steps));
    finding += fmt::format(
        "The curated arm's mean curve stayed above L* at every eval point up to S = {}: never "
        "caught up, so no saving is reported and for decisions the saving counts as <= 0. The "
        "falsifier occurred.",
        FormatSteps(r.budget_steps));
  }
  if (!c.per_seed.empty()) {
    finding += " Per seed pair (gross):";
    for (size_t i = 0; i < c.per_seed.size(); ++i) {
      finding += fmt::format("{} seed {}: {}", i ? ";" : "", c.per_seed[i].seed,
                             FormatPercent(c.per_seed[i].saving.gross));
    }
    finding += ".";
  }
  for (size_t i = 1; i < r.comparisons.size(); ++i) {
    const Comparison& o = r.comparisons[i];
    finding += fmt::format(
        " Arm '{}' against the same L*: {}.", o.arm,
        o.saving.caught_up
            ? fmt::format("reached at step {}, {} gross, {} net", FormatSteps(o.saving.t_arm),
                          FormatPercent(o.saving.gross), FormatPercent(o.saving.net))
            : std::string("never caught up"));
  }
  record["summary"] = summary;
  record["finding"] = finding;
  return record;
}

std::string LabRecordText(const nlohmann::json& record) {
  std::string out;
  auto section = [&](const char* title, const char* key) {
    if (!record.contains(key) || !record[key].is_string()) return;
    out += std::string(title) + "\n" + Wrap(record[key].get<std::string>(), 100, "  ") + "\n";
  };
  section("Summary", "summary");
  section("Question", "question");
  section("What would have proved curation wrong", "falsifier");
  section("Finding", "finding");
  if (record.contains("does_not_show") && record["does_not_show"].is_array()) {
    out += "What this does not show\n";
    for (const auto& item : record["does_not_show"]) {
      std::string wrapped = Wrap(item.get<std::string>(), 100, "    ");
      wrapped.replace(0, 4, "  - ");
      out += wrapped;
    }
  }
  return out;
}

}  // namespace preflight::trial
