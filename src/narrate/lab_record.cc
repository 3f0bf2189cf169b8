#include "narrate/lab_record.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "base/number_format.h"
#include "narrate/interval.h"

namespace preflight::narrate {
namespace {

using nlohmann::json;

std::string KeepPhrase(double keep) {
  if (std::abs(keep - 0.25) < 1e-12) return "quarter";
  if (std::abs(keep - 0.5) < 1e-12) return "half";
  return fmt::format("{:g}%", keep * 100);
}

// The baseline's name in a sentence: "random quarter", or "whole unselected pool".
std::string BaselineName(const LabQuestion& q) {
  return q.whole_pool_baseline ? "whole unselected pool" : "random " + KeepPhrase(q.keep);
}

json DoesNotShow(const LabQuestion& q, const std::string& model, size_t arms) {
  json out = json::array();
  out.push_back(fmt::format(
      "Whether the saving holds for larger models: this trial trained only {}.", model));
  out.push_back(fmt::format("Whether it holds for a larger or different pool: the pool held {}.",
                            FormatDecimalBytes(q.pool_bytes)));
  out.push_back(
      "Anything measured at larger scales: projections of this saving to larger models or "
      "corpora are arithmetic on these numbers, not measurements.");
  out.push_back(fmt::format(
      "Quality on anything but the held-out evaluation text of {} ({}): bits per byte on it is "
      "the only quality measured.",
      q.target, FormatDecimalBytes(q.eval_bytes)));
  if (arms == 2) {
    out.push_back(fmt::format(
        "Whether {} is the best way to curate: only it and a random sample were compared.",
        q.selector));
  }
  return out;
}

// What the net charged, in its unit: core-seconds (the builtin), or dollars (a launched trainer
// with prices; doc/trainers.md "What a launched run costs").
std::string Charged(const LabQuestion& q, const trial::TrialResult& r) {
  const trial::Comparison& c = r.comparisons[0];
  const trial::NetPrices& p = r.prices;
  if (p.unit == "USD") {
    return fmt::format(
        "${:.3g} for producing the curated arm and ${:.3g} for the random arm (their "
        "core-seconds at ${:.4g} per core-hour) against ${:.3g} per training step ({:.3g} "
        "charged seconds of the launched trainer, the median over its runs, at ${:.2f} per "
        "device-hour)",
        c.arm_cost_core_seconds * p.core_second, c.baseline_cost_core_seconds * p.core_second,
        p.core_second * 3600, r.core_seconds_per_step * p.step_second, r.core_seconds_per_step,
        p.step_second * 3600);
  }
  return fmt::format(
      "{:.3g} core-seconds for producing the curated arm and {:.3g} for the random arm against "
      "{:.3g} {} per training step",
      c.arm_cost_core_seconds, c.baseline_cost_core_seconds, r.core_seconds_per_step,
      q.launched ? "charged seconds of the launched trainer (the median over its runs)"
                 : "core-seconds");
}

// The summary and the finding's middle for the primary comparison.
std::pair<std::string, std::string> PrimaryText(const LabQuestion& q, const std::string& model,
                                                const trial::TrialResult& r) {
  const trial::Comparison& c = r.comparisons[0];
  const trial::Saving& s = c.saving;
  const std::string keep = KeepPhrase(q.keep);
  const double level = r.bootstrap.level;
  if (!s.caught_up) {
    return {
        fmt::format("Training {} on the {} of the pool that {} chose for {} did not reach the {}'s "
                    "best held-out loss ({:.4f} bits per byte) within {} steps: here curation did "
                    "not pay for itself (never caught up).",
                    model, keep, q.selector, q.target, BaselineName(q), s.l_star,
                    FormatSteps(r.budget_steps)),
        fmt::format(
            "The curated arm's mean curve stayed above L* at every eval point up to S = {}: "
            "never caught up, so no saving is reported and for decisions the saving counts "
            "as <= 0. The falsifier occurred.",
            FormatSteps(r.budget_steps))};
  }
  return {fmt::format(
              "Training {} on the {} of the pool that {} chose for {} reached the {}'s best "
              "held-out loss ({:.4f} bits per byte) at step {} instead of step {}: {} {} "
              "training compute. After paying for the selection (and the forecast, when one was "
              "made) the saving is {} ({}, {} seeds per arm).",
              model, keep, q.selector, q.target, BaselineName(q), s.l_star, FormatSteps(s.t_arm),
              FormatSteps(s.t_baseline), FormatPercent(std::abs(s.gross)),
              s.gross >= 0 ? "less" : "more", FormatPercent(s.net),
              IntervalSentence(c.ci.net, level), q.seeds),
          fmt::format(
              "The curated arm reached it at step {} (interpolated between eval points). Compute "
              "saved: {} gross ({}), {} net ({}), charging {}. The falsifier did not occur.",
              FormatSteps(s.t_arm), FormatPercent(s.gross), IntervalSentence(c.ci.gross, level),
              FormatPercent(s.net), IntervalSentence(c.ci.net, level), Charged(q, r))};
}

// " Per seed pair (gross): seed 1: 20.0%; ..." and a sentence per further arm.
std::string SeedsAndOtherArms(const trial::TrialResult& r) {
  const trial::Comparison& c = r.comparisons[0];
  std::string out;
  if (!c.per_seed.empty()) {
    out += " Per seed pair (gross):";
    for (size_t i = 0; i < c.per_seed.size(); ++i) {
      out += fmt::format("{} seed {}: {}", i ? ";" : "", c.per_seed[i].seed,
                         FormatPercent(c.per_seed[i].saving.gross));
    }
    out += ".";
  }
  for (size_t i = 1; i < r.comparisons.size(); ++i) {
    const trial::Comparison& o = r.comparisons[i];
    out += fmt::format(
        " Arm '{}' against the same L*: {}.", o.arm,
        o.saving.caught_up
            ? fmt::format("reached at step {}, {} gross, {} net", FormatSteps(o.saving.t_arm),
                          FormatPercent(o.saving.gross), FormatPercent(o.saving.net))
            : std::string("never caught up"));
  }
  return out;
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

std::string ModelPhrase(const std::string& model, int64_t params) {
  return params > 0 ? fmt::format("the {} model ({} parameters)", model, FormatInt(params))
                    : fmt::format("the {} model", model);
}

std::string Falsifier(const LabQuestion& q) {
  return fmt::format(
      "The curated arm ({}) does not reach L*, the random arm's best mean held-out loss, within "
      "S = {} training steps. Fixed before training.",
      q.selector.empty() ? "curated" : q.selector, FormatInt(q.steps));
}

json BuildLabRecord(const LabQuestion& q, const trial::TrialResult& r) {
  const std::string keep = KeepPhrase(q.keep);
  const std::string model = ModelPhrase(q.model, q.model_params);
  json record;
  const std::string baseline = q.whole_pool_baseline
                                   ? std::string("the whole pool, unselected, in random order")
                                   : "a random " + keep + " of the same bytes";
  record["question"] = fmt::format(
      "Does training {} on the {} of the pool ({}) that {} selects for {} reach the best "
      "held-out loss of {} in fewer steps, and does it still save compute after paying for the "
      "selection?",
      model, keep, q.pool.empty() ? FormatDecimalBytes(q.pool_bytes) : q.pool, q.selector, q.target,
      baseline);
  record["falsifier"] = Falsifier(q);
  record["does_not_show"] = DoesNotShow(q, model, r.arms.size());
  if (r.comparisons.empty()) {
    record["summary"] = "No arm was compared with the baseline.";
    record["finding"] = "Nothing was measured.";
    return record;
  }
  const trial::Saving& s = r.comparisons[0].saving;
  const auto [summary, finding] = PrimaryText(q, model, r);
  record["summary"] = summary;
  record["finding"] = fmt::format(
                          "L* = {:.4f} bits per byte, the random arm's best mean held-out loss, "
                          "reached at step {}. ",
                          s.l_star, FormatSteps(s.t_baseline)) +
                      finding + SeedsAndOtherArms(r);
  return record;
}

std::string LabRecordText(const json& record) {
  std::string out;
  auto section = [&](const char* title, const char* key) {
    if (!record.contains(key) || !record[key].is_string()) return;
    out += std::string(title) + "\n" + Wrap(record[key].get<std::string>(), 100, "  ") + "\n";
  };
  section("Summary", "summary");
  section("Question", "question");
  section("What would have proved curation wrong", "falsifier");
  section("Finding", "finding");
  section("Regime", "regime");
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

}  // namespace preflight::narrate
