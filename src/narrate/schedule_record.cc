#include "narrate/schedule_record.h"

#include <fmt/format.h>

#include <cmath>

#include "base/number_format.h"
#include "narrate/interval.h"
#include "narrate/lab_record.h"

namespace preflight::narrate {
namespace {

using nlohmann::json;
using trial::ScheduleComparison;

std::string Pct(double v) { return FormatPercent(v); }

std::string FrozenStep(const ScheduleComparison& c) {
  return c.frozen_at >= 0 ? FormatSteps(std::round(c.frozen_at)) : std::string("never");
}

// What one arm of the verdict achieved.
std::string VerdictOutcome(const ScheduleComparison& c, double level) {
  if (!c.caught_up) {
    return fmt::format(
        "never reached L* (at its total compute, {} of the baseline's, its final loss is "
        "{:+.4f} bits per byte against the baseline's at that compute)",
        Pct(c.total_flops_arm / c.total_flops_baseline), c.loss_at_equal_compute);
  }
  return fmt::format("saved {} of the training FLOPs to L* ({}; {} of the wall time)", Pct(c.net),
                     IntervalSentence(c.ci.net, level), Pct(c.net_wall));
}

std::string WinnerSentence(const std::string& winner) {
  if (winner == "tie") return "They tied";
  return winner == "adaptive" ? "The adaptive trigger won" : "The fixed step won";
}

// What the schedules were: their names, how many fixed, whether one is adaptive.
struct Tried {
  std::string schedules;
  int fixed = 0;
  bool adaptive = false;
};

Tried TriedOf(const std::vector<trial::ArmSpec>& arms) {
  Tried t;
  for (const trial::ArmSpec& a : arms) {
    if (a.schedule.empty()) continue;
    t.schedules += (t.schedules.empty() ? "" : ", ") + a.schedule;
    t.fixed += trial::ScheduleKind(a.schedule) == "fixed";
    t.adaptive = t.adaptive || trial::ScheduleKind(a.schedule) == "adaptive";
  }
  return t;
}

json DoesNotShow(const ScheduleQuestion& q, const std::string& model, const Tried& tried) {
  json out = json::array();
  out.push_back(fmt::format(
      "Whether the saving holds for larger models or longer runs: this trial trained only {} for "
      "{} steps.",
      model, FormatInt(q.steps)));
  out.push_back(fmt::format(
      "Quality on anything but the held-out text of {}: bits per byte on it is the only quality "
      "measured.",
      q.target));
  out.push_back(
      "Core-second and wall-time savings are measurements on a shared machine and move by "
      "10-15% between runs; the FLOPs are computed from the shapes and are exact.");
  if (tried.fixed > 1) {
    out.push_back(fmt::format(
        "That the best of the {} fixed steps would be best again: it was picked after seeing "
        "every step's result on this same held-out set, which is selection on the eval set; its "
        "saving is optimistic until confirmed on fresh data or with a step fixed in advance.",
        tried.fixed));
  }
  if (tried.fixed > 0 || tried.adaptive) {
    out.push_back(
        "Whether freezing at the same fraction pays under another learning-rate schedule: the "
        "cosine decay had already lowered the learning rate when the parts froze.");
  }
  return out;
}

// One sentence per schedule arm for the finding.
std::string ArmFinding(const ScheduleComparison& c, int64_t budget_steps, double level) {
  const std::string when =
      c.kind == "earlystop"
          ? fmt::format("{} of {} runs stopped early", c.stopped_runs, c.per_seed.size())
          : (c.frozen_runs > 0 ? fmt::format("froze at step {} (mean over {} runs)",
                                             FormatSteps(c.frozen_at), c.frozen_runs)
                               : std::string("never froze"));
  if (!c.caught_up) {
    return fmt::format(
        " {} ({}): never reached L* within {} steps (the falsifier occurred for it); at its "
        "total compute its final loss is {:+.4f} bits per byte against the baseline's.",
        c.schedule, when, FormatInt(budget_steps), c.loss_at_equal_compute);
  }
  return fmt::format(
      " {} ({}): reached L* at step {} after {}: {} of the FLOPs saved gross, {} net of the "
      "trigger's {:.3g} FLOPs ({}); measured core-seconds {}, wall time {}; at its total "
      "compute its final loss is {:+.4f} bits per byte against the baseline's.",
      c.schedule, when, FormatSteps(c.t_arm), FormatFlops(c.flops_arm), Pct(c.gross), Pct(c.net),
      c.trigger_flops, IntervalSentence(c.ci.net, level), Pct(c.net_core_seconds), Pct(c.net_wall),
      c.loss_at_equal_compute);
}

// What one arm saved, for the summary.
std::string SummarySaved(const ScheduleComparison& c) {
  if (c.caught_up) {
    return fmt::format(
        "saved {} of the training FLOPs ({} of the wall time) to reach the plain run's best "
        "held-out loss",
        Pct(c.net), Pct(c.net_wall));
  }
  return fmt::format(
      "never reached the plain run's best held-out loss; at {} of its compute it ended {:+.4f} "
      "bits per byte from the plain run at that compute",
      Pct(c.total_flops_arm / c.total_flops_baseline), c.loss_at_equal_compute);
}

std::string Summary(const ScheduleQuestion& q, const std::string& model,
                    const trial::ScheduleTrialResult& r) {
  const trial::ScheduleVerdict& v = r.verdict;
  if (v.best_fixed < 0 || v.best_adaptive < 0) {
    const ScheduleComparison& p = r.comparisons[0];
    return fmt::format("On {} with {}: {} {} ({} seeds, paired).", q.target, model, p.schedule,
                       SummarySaved(p), q.seeds);
  }
  const ScheduleComparison& f = r.comparisons[v.best_fixed];
  const ScheduleComparison& a = r.comparisons[v.best_adaptive];
  return fmt::format(
      "On {} with {}: the best fixed freeze ({}) {}; the adaptive trigger ({}) {}, net of its "
      "own cost. {}. ({} seeds, paired.)",
      q.target, model, f.schedule, SummarySaved(f), a.schedule, SummarySaved(a),
      WinnerSentence(v.winner), q.seeds);
}

}  // namespace

std::string ScheduleFalsifier(const ScheduleQuestion& q, const std::vector<trial::ArmSpec>& arms) {
  const Tried tried = TriedOf(arms);
  std::string s = fmt::format(
      "A schedule is wrong here if its arm's mean held-out loss does not reach L*, the plain "
      "baseline's best mean loss, within S = {} steps, or reaches it only after spending at least "
      "the baseline's training FLOPs to L* including the schedule's own measurement cost (net "
      "saving <= 0).",
      FormatInt(q.steps));
  if (tried.adaptive && tried.fixed > 0) {
    s += " The adaptive trigger is wrong to prefer if its net saving is not above the best fixed "
         "step's.";
  }
  return s + " Fixed before training.";
}

std::string ScheduleVerdictText(const trial::ScheduleTrialResult& r) {
  const trial::ScheduleVerdict& v = r.verdict;
  if (v.best_fixed < 0 || v.best_adaptive < 0) return "";
  const ScheduleComparison& f = r.comparisons[v.best_fixed];
  const ScheduleComparison& ad = r.comparisons[v.best_adaptive];
  const double level = r.bootstrap.level;
  const char* how = ".";
  if (!f.caught_up && !ad.caught_up) {
    how = v.winner == "tie" ? " on loss at equal compute (neither reached L*; their per-seed "
                              "ranges of it overlap)."
                            : " on loss at equal compute (neither reached L*).";
  }
  std::string text = fmt::format(
      "The best fixed step{} ({}, freezing at step {}) {}. The adaptive trigger ({}, freezing "
      "at step {} on average) {}, net of its own cost ({} and {:.3g} core-seconds per run). {}{}",
      v.fixed_count > 1 ? fmt::format(" of {} tried", v.fixed_count) : std::string(), f.schedule,
      FrozenStep(f), VerdictOutcome(f, level), ad.schedule, FrozenStep(ad),
      VerdictOutcome(ad, level), FormatFlops(ad.trigger_flops), ad.trigger_core_seconds,
      WinnerSentence(v.winner), how);
  if (v.fixed_count > 1) {
    text +=
        " Picking the best of the fixed steps after seeing their results on this held-out set "
        "is itself selection on the eval set, so the fixed step's result is optimistic.";
  }
  return text;
}

json BuildScheduleLabRecord(const ScheduleQuestion& q, const trial::ScheduleTrialResult& r) {
  const std::string model = ModelPhrase(q.model, q.model_params);
  const Tried tried = TriedOf(r.arms);
  json record;
  record["question"] = fmt::format(
      "Training {} on {} for {} steps, does changing the training schedule ({}) reach the plain "
      "run's best held-out loss on {} with fewer training FLOPs and less time, after paying for "
      "any measurement the schedule needs?{}",
      model, q.data, FormatInt(q.steps), tried.schedules, q.target,
      tried.adaptive && tried.fixed > 0 ? " And does the adaptive trigger beat the best fixed step?"
                                        : "");
  record["falsifier"] = ScheduleFalsifier(q, r.arms);
  record["does_not_show"] = DoesNotShow(q, model, tried);
  if (r.comparisons.empty()) {
    record["summary"] = "No schedule arm was compared with the baseline.";
    record["finding"] = "Nothing was measured.";
    return record;
  }
  const ScheduleComparison& p = r.comparisons[0];
  std::string finding = fmt::format(
      "L* = {:.4f} bits per byte, the plain baseline's best mean held-out loss, reached at step "
      "{} after {} of training.",
      p.l_star, FormatSteps(p.t_baseline), FormatFlops(p.flops_baseline));
  for (const ScheduleComparison& c : r.comparisons) {
    finding += ArmFinding(c, r.budget_steps, r.bootstrap.level);
  }
  const std::string verdict = ScheduleVerdictText(r);
  if (!verdict.empty()) finding += " " + verdict;
  record["summary"] = Summary(q, model, r);
  record["finding"] = finding;
  return record;
}

}  // namespace preflight::narrate
