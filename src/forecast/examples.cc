// Labelled examples from a ledger: trial receipts joined to the forecast receipts they tested.
#include <map>
#include <set>

#include "forecast/calibration.h"
#include "forecast/example_set.h"

namespace preflight::forecast {
namespace {

struct ForecastFacts {
  std::map<std::string, SignalValue> signals;
  std::string group;
  double cost = 0;
  std::map<std::string, double> sizes;  // CaseSizes of its inputs and arms
};

// The forecast receipts by their hash, and (`remeasured`) by the hash of the trial they
// re-measure (forecast.h `remeasures`; the latest such receipt of a trial).
std::map<std::string, ForecastFacts> ForecastsByHash(
    const std::vector<nlohmann::json>& receipts,
    std::map<std::string, ForecastFacts>* remeasured) {
  std::map<std::string, ForecastFacts> forecasts;
  for (const auto& r : receipts) {
    if (r.value("kind", "") != "forecast" || !r.contains("result")) continue;
    const std::string trial =
        r.value("config", nlohmann::json::object()).value("remeasures", "");
    ForecastFacts& f = trial.empty() ? forecasts[r.value("hash", "")] : (*remeasured)[trial];
    f = ForecastFacts{};
    const auto& result = r["result"];
    const nlohmann::json signals = result.value("signals", nlohmann::json::object());
    for (auto& [name, value] : signals.items()) {
      if (auto x = SignalFromJson(value)) f.signals[name] = *x;
    }
    f.group = r.value("config", nlohmann::json::object()).value("group", "");
    f.cost = result.value("cost", nlohmann::json::object()).value("fraction_of_trial", 0.0);
    f.sizes = CaseSizes(
        r.value("inputs", nlohmann::json::array()),
        result.value("evidence", nlohmann::json::object()).value("arms", nlohmann::json::object()));
  }
  return forecasts;
}

// The trial's pilot: model, steps, tokens per run, and whether its regime was informative.
PilotScale TrialScale(const nlohmann::json& config, const nlohmann::json& result) {
  PilotScale s;
  const auto& model = config.value("model", nlohmann::json::object());
  s.model = model.value("name", "");
  s.steps = config.value("steps", int64_t{0});
  s.tokens = static_cast<double>(s.steps) * model.value("batch", 0.0) * model.value("context", 0.0);
  s.trials = 1;
  const auto& regime = result.value("regime", nlohmann::json::object());
  s.informative = regime.value("informative", false) ? 1 : 0;
  return s;
}

}  // namespace

std::vector<Example> ExamplesFromReceipts(const std::vector<nlohmann::json>& receipts) {
  std::map<std::string, ForecastFacts> remeasured;
  const std::map<std::string, ForecastFacts> forecasts = ForecastsByHash(receipts, &remeasured);
  std::vector<Example> out;
  std::map<std::string, size_t> by_name;  // a target run again keeps its latest trial
  for (const auto& r : receipts) {
    if (r.value("kind", "") != "trial" || !r.contains("config") || !r.contains("result")) continue;
    const auto& config = r["config"];
    auto it = forecasts.find(config.value("forecast", ""));
    if (it == forecasts.end()) continue;
    const auto& saved = r["result"].value("compute_saved", nlohmann::json::object());
    if (!saved.contains("net")) continue;
    Example e;
    e.name = config.value("target_name", "");
    if (e.name.empty()) e.name = config.value("target_select", "");
    e.group = it->second.group;
    e.signals = it->second.signals;
    e.forecast_cost = it->second.cost;
    e.sizes = it->second.sizes;
    // Signals measured again later on the same inputs (forecast.h `remeasures`): they join the
    // trial's own (the same signal: the later value), and the forecast's cost is the later one's.
    if (auto again = remeasured.find(r.value("hash", "")); again != remeasured.end()) {
      for (const auto& [name, x] : again->second.signals) e.signals[name] = x;
      e.forecast_cost = again->second.cost;
    }
    e.seeds = config.value("seeds", 4);
    e.scale = TrialScale(config, r["result"]);
    if (saved["net"].is_number() && r["result"].value("caught_up", true)) {
      e.net = saved["net"].get<double>();
    }
    auto [at, fresh] = by_name.try_emplace(e.name, out.size());
    if (fresh) {
      out.push_back(std::move(e));
    } else {
      out[at->second] = std::move(e);
    }
  }
  return out;
}

}  // namespace preflight::forecast

namespace preflight::forecast {

ExampleSet SelectExamples(const std::vector<Example>& all) {
  std::map<std::string, size_t> carried;  // signal -> how many examples carry it
  for (const Example& e : all) {
    for (const auto& [name, x] : e.signals) ++carried[name];
  }
  std::vector<std::string> wanted;  // carried by at least half of the examples
  for (const auto& [name, n] : carried) {
    if (2 * n >= all.size()) wanted.push_back(name);
  }
  ExampleSet out;
  std::set<std::string> missing;
  for (const Example& e : all) {
    bool complete = true;
    for (const std::string& name : wanted) {
      if (e.signals.count(name)) continue;
      complete = false;
      missing.insert(name);
    }
    if (complete) {
      out.kept.push_back(e);
    } else {
      out.set_aside.push_back(e.name);
    }
  }
  out.missing.assign(missing.begin(), missing.end());
  return out;
}

}  // namespace preflight::forecast
