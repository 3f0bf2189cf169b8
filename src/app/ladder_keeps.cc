#include "app/ladder_keeps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "narrate/keep_text.h"
#include "trial/ladder_trend.h"

namespace preflight::app {
namespace {

using nlohmann::json;

json FiniteOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// A run's held-out loss at its last eval point within `budget` steps.
double EndLoss(const trial::Curve& curve, int64_t budget) {
  double loss = std::nan("");
  for (size_t i = 0; i < curve.steps.size() && curve.steps[i] <= budget; ++i) loss = curve.bpb[i];
  return loss;
}

// The end losses, epochs and regime margin of arm `a` of the outcome.
Result<KeepArmOutcome> ArmOf(const trial::TrialOutcome& o, size_t a) {
  const trial::Arm& arm = o.arms.at(a);
  KeepArmOutcome out;
  out.arm = arm.spec.name;
  out.keep = arm.spec.keep;
  for (const trial::Curve& c : arm.curves) {
    out.end_losses.push_back(EndLoss(c, o.trial.budget_steps));
  }
  out.end_loss = trial::MeanOf(out.end_losses);
  out.end_loss_sd = trial::SampleSd(out.end_losses);
  for (const trial::RunRecord& r : o.runs) {
    if (r.arm != out.arm) continue;
    out.tokens_trained = static_cast<double>(r.tokens_per_step) * static_cast<double>(r.steps);
    break;
  }
  for (const trial::MadeArm& m : o.data) {
    if (m.name != out.arm) continue;
    out.data_tokens = static_cast<double>(m.record.kept_bytes + m.record.kept_docs);
  }
  if (!(out.data_tokens > 0)) {
    return Status::InvalidArgument(o.out_dir + ": the arm '" + out.arm + "' has no data record");
  }
  out.epochs = out.tokens_trained / out.data_tokens;
  const trial::Curve& mean = o.trial.mean_curves.at(a);
  if (o.regime && o.regime->arms.count(out.arm) && !mean.bpb.empty()) {
    const double best = *std::min_element(mean.bpb.begin(), mean.bpb.end());
    out.margin = trial::BestNgramBpb(o.regime->arms.at(out.arm)) - best;
    out.informative = *out.margin >= o.regime->threshold;
  }
  return out;
}

// The trial's comparison of the arm against the baseline, into the arm's saving.
void TakeSaving(const trial::TrialOutcome& o, KeepArmOutcome& arm) {
  for (const trial::Comparison& c : o.trial.comparisons) {
    if (c.arm != arm.arm) continue;
    arm.gross = c.saving.gross;
    arm.net = c.saving.net;
    arm.ci_lo = c.ci.net.lo;
    arm.ci_hi = c.ci.net.hi;
    arm.caught_up = c.saving.caught_up;
    if (!arm.caught_up) {
      arm.net_bound = trial::NeverCaughtUpNetBound(
          static_cast<double>(o.trial.budget_steps), c.saving.t_baseline, o.core_seconds_per_step,
          c.arm_cost_core_seconds, c.baseline_cost_core_seconds);
    }
  }
}

json ArmJson(const KeepArmOutcome& a) {
  json regime =
      a.margin ? json{{"margin", *a.margin}, {"informative", *a.informative}} : json(nullptr);
  return {{"keep", a.keep},
          {"arm", a.arm},
          {"end_loss", a.end_loss},
          {"end_loss_sd", a.end_loss_sd},
          {"end_loss_per_seed", a.end_losses},
          {"epochs", a.epochs},
          {"tokens", a.tokens_trained},
          {"data_tokens", a.data_tokens},
          {"regime", regime}};
}

std::string Interval(double lo, double hi) {
  auto end = [](double v) { return std::isfinite(v) ? FormatPercent(v) : std::string("never"); };
  return end(lo) + " to " + end(hi);
}

}  // namespace

Result<KeepRung> KeepRungOf(const trial::TrialOutcome& o) {
  if (!o.config.IsKeepTrial() || o.arms.size() < 2) {
    return Status::InvalidArgument(o.out_dir + ": not a keep trial (no --keep list)");
  }
  KeepRung rung;
  std::vector<trial::KeepArmLosses> losses;
  for (size_t a = 0; a < o.arms.size(); ++a) {
    PF_ASSIGN_OR_RETURN(KeepArmOutcome arm, ArmOf(o, a));
    losses.push_back({arm.keep, o.arms[a].seeds, arm.end_losses});
    if (a == o.trial.baseline) {
      rung.baseline = std::move(arm);
      continue;
    }
    TakeSaving(o, arm);
    rung.keeps.push_back(std::move(arm));
  }
  PF_ASSIGN_OR_RETURN(rung.best, trial::ChooseBestKeep(losses, o.trial.bootstrap));
  for (size_t k = 1; k < rung.keeps.size(); ++k) {
    if (rung.keeps[k].end_loss < rung.keeps[rung.saving_arm].end_loss) rung.saving_arm = k;
  }
  return rung;
}

json KeepRungJson(const KeepRung& rung) {
  json keeps = json::array();
  for (const KeepArmOutcome& a : rung.keeps) {
    json k = ArmJson(a);
    k["gross"] = FiniteOrNull(a.gross);
    k["net"] = FiniteOrNull(a.net);
    k["net_ci95"] = {FiniteOrNull(a.ci_lo), FiniteOrNull(a.ci_hi)};
    k["caught_up"] = a.caught_up;
    if (!a.caught_up) k["net_bound"] = FiniteOrNull(a.net_bound);
    keeps.push_back(k);
  }
  const trial::BestKeep& b = rung.best;
  return {{"baseline", ArmJson(rung.baseline)},
          {"keeps", keeps},
          {"best_keep", b.keep},
          {"best",
           {{"keep", b.keep},
            {"share", b.share},
            {"resamples", b.resamples},
            {"seeds_best", b.seeds_best},
            {"seeds", b.seeds},
            {"log10_sd", b.log10_sd}}},
          {"saving_keep", rung.keeps.at(rung.saving_arm).keep}};
}

std::string KeepRungText(const KeepRung& rung) {
  std::string out =
      fmt::format("     {:<14} {:>8} {:>8}  {:<22} {:>15} {:>7}  {}\n", "keep", "gross", "net",
                  "net 95% interval", "end loss (sd)", "epochs", "regime");
  auto row = [&](const KeepArmOutcome& a, bool baseline) {
    const std::string regime = !a.informative   ? "not checked"
                               : *a.informative ? "informative"
                                                : "NOT informative";
    const std::string net = baseline
                                ? "-"
                                : fmt::format("{}{}", a.caught_up ? "" : "<= ",
                                              FormatPercent(a.caught_up ? a.net : a.net_bound));
    out += fmt::format("     {:<14} {:>8} {:>8}  {:<22} {:>15} {:>7}  {}\n",
                       baseline ? "1 (baseline)" : fmt::format("{:g}", a.keep),
                       baseline ? "-" : (a.caught_up ? FormatPercent(a.gross) : "never"), net,
                       baseline ? "-" : Interval(a.ci_lo, a.ci_hi),
                       fmt::format("{:.4f} ({:.4f})", a.end_loss, a.end_loss_sd),
                       FormatPlain(a.epochs, 2), regime);
  };
  row(rung.baseline, true);
  for (const KeepArmOutcome& a : rung.keeps) row(a, false);
  out += "     best: " + narrate::BestKeepSentence(rung.best) + "\n";
  return out;
}

}  // namespace preflight::app
