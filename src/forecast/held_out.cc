#include "forecast/held_out.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace preflight::forecast {
namespace {

constexpr double kClear = 0.10;

bool IsClear(const Example& e) { return !e.net || std::fabs(*e.net) >= kClear; }

// Compute per target in runs of the random arm to L*.
double CurateRuns(const Example& e) { return e.net ? 1 - *e.net : 2.0; }
double ForecastRuns(const Example& e) { return e.forecast_cost * 2 * e.seeds; }

bool InsideInterval(const Example& e, const Prediction& p) {
  if (!e.net) return p.lo <= 0;
  return p.lo <= *e.net && *e.net <= p.hi;
}

nlohmann::json Rate(int right, int decided) {
  return {{"right", right},
          {"decided", decided},
          {"accuracy", decided > 0 ? nlohmann::json(static_cast<double>(right) / decided)
                                   : nlohmann::json(nullptr)}};
}

// Predicted probability against the observed share that paid, in five bins of width 0.2 (the
// last holds 1).
nlohmann::json Reliability(const std::vector<Example>& examples,
                           const std::vector<Prediction>& predictions) {
  constexpr int kBins = 5;
  std::vector<double> count(kBins, 0), predicted(kBins, 0), paid(kBins, 0);
  for (size_t i = 0; i < examples.size(); ++i) {
    const double q = predictions[i].probability;
    const int b = std::clamp(static_cast<int>(q * kBins), 0, kBins - 1);
    count[b] += 1;
    predicted[b] += q;
    paid[b] += examples[i].net && *examples[i].net > 0;
  }
  nlohmann::json bins = nlohmann::json::array();
  for (int b = 0; b < kBins; ++b) {
    bins.push_back({{"from", static_cast<double>(b) / kBins},
                    {"to", static_cast<double>(b + 1) / kBins},
                    {"targets", count[b]},
                    {"mean_predicted", count[b] > 0 ? nlohmann::json(predicted[b] / count[b])
                                                    : nlohmann::json(nullptr)},
                    {"observed",
                     count[b] > 0 ? nlohmann::json(paid[b] / count[b]) : nlohmann::json(nullptr)}});
  }
  return bins;
}

nlohmann::json OutsideNames(const Prediction& p) {
  nlohmann::json names = nlohmann::json::array();
  for (const OutsideSignal& o : p.outside) names.push_back(o.signal);
  return names;
}

}  // namespace

Result<std::vector<Prediction>> LeaveOneGroupOut(const std::vector<Example>& examples,
                                                 const std::vector<std::string>& candidates) {
  std::set<std::string> groups;
  for (const Example& e : examples) groups.insert(e.group.empty() ? e.name : e.group);
  if (groups.size() < 2) return Status::InvalidArgument("leave-one-group-out needs 2 groups");
  std::vector<Prediction> out(examples.size());
  for (const std::string& g : groups) {
    std::vector<Example> rest;
    for (const Example& e : examples)
      if ((e.group.empty() ? e.name : e.group) != g) rest.push_back(e);
    PF_ASSIGN_OR_RETURN(Calibration c, Calibrate(rest, candidates, "held out: " + g));
    for (size_t i = 0; i < examples.size(); ++i) {
      const Example& e = examples[i];
      if ((e.group.empty() ? e.name : e.group) != g) continue;
      auto p = c.PredictFrom(e.signals, e.forecast_cost);
      if (!p.ok()) return Status::InvalidArgument(e.name + ": " + p.status().message());
      out[i] = std::move(p).value();
    }
  }
  return out;
}

nlohmann::json SummarizeHeldOut(const std::vector<Example>& examples,
                                const std::vector<Prediction>& predictions) {
  int clear = 0, clear_decided = 0, clear_right = 0, always_right = 0, abstained = 0, covered = 0;
  int non_paying = 0, caught = 0, missed = 0, outside = 0, outside_right = 0, outside_decided = 0;
  double brier = 0;
  double following = 0, deciding = 0, curate = 0, random = 0, cost = 0, max_cost = 0, error = 0;
  std::set<std::string> groups;
  nlohmann::json wrong = nlohmann::json::array(), rows = nlohmann::json::array();
  for (size_t i = 0; i < examples.size(); ++i) {
    const Example& e = examples[i];
    const Prediction& p = predictions[i];
    groups.insert(e.group);
    const auto correct = Correct(p.verdict, e.net);
    abstained += !correct.has_value();
    covered += InsideInterval(e, p);
    error += std::fabs(p.saving - e.Label());
    const bool paid = e.net && *e.net > 0;
    brier += (p.probability - paid) * (p.probability - paid);
    if (!paid) {
      ++non_paying;
      caught += p.verdict == "random";
      missed += p.verdict == "curate";
    }
    if (IsClear(e)) {
      ++clear;
      always_right += e.net && *e.net > 0;
      if (correct) {
        ++clear_decided;
        clear_right += *correct;
        if (!*correct) wrong.push_back({{"target", e.name}, {"group", e.group}});
      }
    }
    const double chosen = p.verdict == "curate" ? CurateRuns(e) : 1.0;
    following += ForecastRuns(e) + chosen;
    deciding += chosen;
    curate += CurateRuns(e);
    random += 1;
    cost += e.forecast_cost;
    max_cost = std::max(max_cost, e.forecast_cost);
    rows.push_back({{"target", e.name},
                    {"group", e.group},
                    {"verdict", p.verdict},
                    {"probability", p.probability},
                    {"predicted_saving", p.saving},
                    {"interval", {p.lo, p.hi}},
                    {"net", e.net ? nlohmann::json(*e.net) : nlohmann::json(nullptr)},
                    {"right", correct ? nlohmann::json(*correct) : nlohmann::json(nullptr)},
                    {"strength", p.strength},
                    {"outside", OutsideNames(p)}});
    if (!p.outside.empty()) {
      ++outside;
      if (IsClear(e) && correct) {
        ++outside_decided;
        outside_right += *correct;
      }
    }
  }
  const double n = std::max<double>(1, static_cast<double>(examples.size()));
  return {{"targets", examples.size()},
          {"groups", groups.size()},
          {"clear_threshold", kClear},
          {"clear", Rate(clear_right, clear_decided)},
          {"clear_cases", clear},
          {"always_curate_clear", Rate(always_right, clear)},
          {"abstained", abstained},
          {"abstained_share", abstained / n},
          {"coverage", covered / n},
          {"mean_abs_error", error / n},
          {"brier", brier / n},
          {"non_paying",
           {{"targets", non_paying},
            {"caught", caught},
            {"abstained", non_paying - caught - missed},
            {"missed", missed}}},
          {"reliability", Reliability(examples, predictions)},
          {"value_runs_per_target",
           {{"following", following / n},
            {"following_forecast_cost_excluded", deciding / n},
            {"always_curate", curate / n},
            {"always_random", random / n}}},
          {"cost_fraction_of_trial", {{"mean", cost / n}, {"max", max_cost}}},
          // Targets whose signals lay outside what the fit without their group covered (never
          // clear), and how their clear cases were decided.
          {"outside_coverage",
           {{"targets", outside}, {"clear", Rate(outside_right, outside_decided)}}},
          {"wrong", wrong},
          {"rows", rows}};
}

Result<nlohmann::json> EvaluateHeldOut(const std::vector<Example>& examples,
                                       const std::vector<std::string>& candidates,
                                       const std::vector<std::string>& alone) {
  PF_ASSIGN_OR_RETURN(std::vector<Prediction> all, LeaveOneGroupOut(examples, candidates));
  nlohmann::json out = SummarizeHeldOut(examples, all);
  nlohmann::json by_signal = nlohmann::json::object();
  for (const std::string& signal : alone) {
    auto predictions = LeaveOneGroupOut(examples, {signal});
    if (!predictions.ok()) continue;  // not measured on every example
    nlohmann::json s = SummarizeHeldOut(examples, *predictions);
    s.erase("rows");
    s.erase("wrong");
    by_signal[signal] = s;
  }
  out["by_signal"] = by_signal;
  return out;
}

std::string FormatHeldOut(const nlohmann::json& h) {
  auto rate = [](const nlohmann::json& r) {
    if (r["accuracy"].is_null()) return std::string("no decisions");
    return fmt::format("{}/{} = {:.0f}%", r["right"].get<int>(), r["decided"].get<int>(),
                       100 * r["accuracy"].get<double>());
  };
  const auto& v = h["value_runs_per_target"];
  std::string out = fmt::format(
      "  leave-one-corpus-out ({} targets, {} corpus groups):\n"
      "    clear cases (|net| >= 10% or never caught up): {} right   (always curate: {})\n"
      "    abstained {} of {} ({:.0f}%)   80% interval coverage {:.0f}%   mean |error| {:.3f}\n"
      "    compute per target, in random-arm runs to L*: following {:.3f} (its verdicts alone "
      "{:.3f})   always curate {:.3f}   always random {:.3f}\n"
      "    forecast cost: mean {:.2f}% of its trial (max {:.2f}%)\n"
      "    targets that did not pay: {}, caught (random) {}, abstained {}, missed (curate) {}"
      "   Brier score {:.3f}\n"
      "    outside what the fit without their group covered (never clear): {} targets, clear "
      "cases {}\n",
      h["targets"].get<int>(), h["groups"].get<int>(), rate(h["clear"]),
      rate(h["always_curate_clear"]), h["abstained"].get<int>(), h["targets"].get<int>(),
      100 * h["abstained_share"].get<double>(), 100 * h["coverage"].get<double>(),
      h["mean_abs_error"].get<double>(), v["following"].get<double>(),
      v["following_forecast_cost_excluded"].get<double>(), v["always_curate"].get<double>(),
      v["always_random"].get<double>(), 100 * h["cost_fraction_of_trial"]["mean"].get<double>(),
      100 * h["cost_fraction_of_trial"]["max"].get<double>(), h["non_paying"]["targets"].get<int>(),
      h["non_paying"]["caught"].get<int>(), h["non_paying"]["abstained"].get<int>(),
      h["non_paying"]["missed"].get<int>(), h["brier"].get<double>(),
      h["outside_coverage"]["targets"].get<int>(), rate(h["outside_coverage"]["clear"]));
  if (h.contains("by_signal") && !h["by_signal"].empty()) {
    out +=
        "    each signal alone (same procedure): clear accuracy, abstained, coverage, "
        "non-paying caught/missed, runs per target following it\n";
    for (auto& [signal, s] : h["by_signal"].items()) {
      out += fmt::format("      {:<22} {:<16} {:>3}   {:.0f}%   {}/{}   {:.3f}\n", signal,
                         rate(s["clear"]), s["abstained"].get<int>(),
                         100 * s["coverage"].get<double>(), s["non_paying"]["caught"].get<int>(),
                         s["non_paying"]["missed"].get<int>(),
                         s["value_runs_per_target"]["following"].get<double>());
    }
  }
  return out;
}

}  // namespace preflight::forecast
