#include "forecast/evaluation.h"

#include <cmath>
#include <cstdio>

#include "forecast/held_out.h"

namespace preflight::forecast {
namespace {

constexpr double kClear = 0.10;

bool IsClear(const std::optional<double>& net) { return !net || std::fabs(*net) >= kClear; }

struct Tally {
  int right = 0, wrong = 0, abstained = 0;
  void Add(const std::string& verdict, const std::optional<double>& net) {
    auto c = Correct(verdict, net);
    if (!c) {
      ++abstained;
    } else if (*c) {
      ++right;
    } else {
      ++wrong;
    }
  }
  nlohmann::json ToJson() const {
    const int decided = right + wrong;
    return {{"right", right},
            {"wrong", wrong},
            {"abstained", abstained},
            {"accuracy", decided > 0 ? nlohmann::json(static_cast<double>(right) / decided)
                                     : nlohmann::json(nullptr)}};
  }
};

// Accuracy of `verdicts` on all rows and on the clear ones.
nlohmann::json Score(const std::vector<BatteryOutcome>& rows,
                     const std::vector<std::string>& verdicts) {
  Tally all, clear;
  for (size_t i = 0; i < rows.size(); ++i) {
    all.Add(verdicts[i], rows[i].example.net);
    if (IsClear(rows[i].example.net)) clear.Add(verdicts[i], rows[i].example.net);
  }
  return {{"all", all.ToJson()}, {"clear", clear.ToJson()}};
}

double Spend(const BatteryOutcome& r, const std::string& verdict) {
  return verdict == "curate" ? r.cost_curated : r.cost_random;
}

}  // namespace

void FillCosts(const TrialCosts& c, BatteryOutcome* row) {
  row->cost_random = c.t_random * c.core_seconds_per_step + c.selection_random;
  row->cost_curated =
      std::isfinite(c.t_curated)
          ? c.t_curated * c.core_seconds_per_step + c.selection_curated
          : c.budget_steps * c.core_seconds_per_step + c.selection_curated + row->cost_random;
}

nlohmann::json EvaluateForecasts(const std::vector<BatteryOutcome>& rows) {
  std::vector<std::string> forecast, curate(rows.size(), "curate"), random(rows.size(), "random");
  for (const auto& r : rows) forecast.push_back(r.forecast.verdict);
  nlohmann::json out;
  out["targets"] = rows.size();
  out["clear_threshold"] = kClear;
  out["forecast"] = Score(rows, forecast);
  out["always_curate"] = Score(rows, curate);
  out["always_random"] = Score(rows, random);

  // Leave-one-corpus-out: each target's verdict from a calibration fitted without its corpus.
  std::vector<Example> examples;
  for (const auto& r : rows) examples.push_back(r.example);
  auto loo = LeaveOneGroupOut(examples, CandidateSignals());
  std::vector<std::string> loo_verdicts;
  if (loo.ok()) {
    nlohmann::json per = nlohmann::json::array();
    for (size_t i = 0; i < rows.size(); ++i) {
      loo_verdicts.push_back((*loo)[i].verdict);
      per.push_back({{"target", rows[i].example.name},
                     {"verdict", (*loo)[i].verdict},
                     {"predicted_saving", (*loo)[i].saving}});
    }
    out["leave_one_out"] = Score(rows, loo_verdicts);
    out["leave_one_out"]["per_target"] = per;
  } else {
    out["leave_one_out"] = nullptr;
    out["leave_one_out_error"] = loo.status().message();
  }

  // The value of the forecast, in core-seconds.
  double following = 0, following_loo = 0, always_curate = 0, always_random = 0, cost = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    cost += r.forecast_core_seconds;
    following += r.forecast_core_seconds + Spend(r, r.forecast.verdict);
    if (!loo_verdicts.empty()) following_loo += r.forecast_core_seconds + Spend(r, loo_verdicts[i]);
    always_curate += r.cost_curated;
    always_random += r.cost_random;
  }
  out["value"] = {{"following_forecast_core_seconds", following},
                  {"following_leave_one_out_core_seconds",
                   loo_verdicts.empty() ? nlohmann::json(nullptr) : nlohmann::json(following_loo)},
                  {"always_curate_core_seconds", always_curate},
                  {"always_random_core_seconds", always_random},
                  {"forecasts_core_seconds", cost},
                  {"saved_vs_always_curate", always_curate - following},
                  {"saved_vs_always_random", always_random - following},
                  {"saved_vs_always_curate_leave_one_out",
                   loo_verdicts.empty() ? nlohmann::json(nullptr)
                                        : nlohmann::json(always_curate - following_loo)},
                  {"saved_vs_always_random_leave_one_out",
                   loo_verdicts.empty() ? nlohmann::json(nullptr)
                                        : nlohmann::json(always_random - following_loo)}};
  return out;
}

std::string FormatEvaluation(const nlohmann::json& e) {
  std::string out;
  char line[256];
  auto rate = [](const nlohmann::json& t) {
    char buf[96];
    const int decided = t["right"].get<int>() + t["wrong"].get<int>();
    if (decided == 0) {
      std::snprintf(buf, sizeof(buf), "no decisions");
    } else {
      std::snprintf(buf, sizeof(buf), "%d/%d = %.0f%%", t["right"].get<int>(), decided,
                    100.0 * t["right"].get<int>() / decided);
    }
    return std::string(buf);
  };
  auto block = [&](const char* label, const nlohmann::json& s) {
    std::snprintf(line, sizeof(line), "  %-30s %-16s %-16s %d\n", label, rate(s["all"]).c_str(),
                  rate(s["clear"]).c_str(), s["all"]["abstained"].get<int>());
    out += line;
  };
  std::snprintf(line, sizeof(line), "  %-30s %-16s %-16s %s\n", "decision accuracy", "all targets",
                "clear (|net|>=10%)", "abstained");
  out += line;
  block("forecast (as made)", e["forecast"]);
  if (!e["leave_one_out"].is_null()) block("forecast (leave-one-corpus-out)", e["leave_one_out"]);
  block("always curate", e["always_curate"]);
  block("always random", e["always_random"]);
  const auto& v = e["value"];
  std::snprintf(
      line, sizeof(line),
      "\n  value of the forecast (core-seconds to reach each target's L*, forecasts' "
      "own %.1f included):\n"
      "    following the forecast %.0f   always curate %.0f   always random %.0f\n"
      "    saved vs always curate %+.0f (%+.1f%%)   vs always random %+.0f (%+.1f%%)\n",
      v["forecasts_core_seconds"].get<double>(), v["following_forecast_core_seconds"].get<double>(),
      v["always_curate_core_seconds"].get<double>(), v["always_random_core_seconds"].get<double>(),
      v["saved_vs_always_curate"].get<double>(),
      100 * v["saved_vs_always_curate"].get<double>() /
          v["always_curate_core_seconds"].get<double>(),
      v["saved_vs_always_random"].get<double>(),
      100 * v["saved_vs_always_random"].get<double>() /
          v["always_random_core_seconds"].get<double>());
  out += line;
  if (!v["following_leave_one_out_core_seconds"].is_null()) {
    std::snprintf(line, sizeof(line),
                  "    leave-one-corpus-out: saved vs always curate %+.0f, vs always random "
                  "%+.0f\n",
                  v["saved_vs_always_curate_leave_one_out"].get<double>(),
                  v["saved_vs_always_random_leave_one_out"].get<double>());
    out += line;
  }
  return out;
}

}  // namespace preflight::forecast
