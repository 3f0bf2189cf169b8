// Labelled examples from a ledger: trial receipts joined to the forecast receipts they tested.
#include <map>
#include <set>

#include "base/json.h"
#include "forecast/calibration.h"
#include "forecast/example_set.h"
#include "ledger/receipt.h"

namespace preflight::forecast {
namespace {

struct ForecastFacts {
  std::map<std::string, SignalValue> signals;
  std::string group;
  double cost = 0;
  std::map<std::string, double> sizes;  // CaseSizes of its inputs and arms
};

// A forecast receipt: its hash, the trial it re-measures ("" when none) and its facts.
struct ForecastReceipt {
  std::string hash;
  std::string remeasures;
  ForecastFacts facts;
};

Result<ForecastReceipt> ReadForecast(const JsonReader& r) {
  ForecastReceipt out;
  ForecastFacts& f = out.facts;
  PF_ASSIGN_OR_RETURN(out.hash, r.String("hash", ""));
  PF_ASSIGN_OR_RETURN(JsonReader config, r.OptionalObject("config"));
  PF_ASSIGN_OR_RETURN(out.remeasures, config.String("remeasures", ""));
  PF_ASSIGN_OR_RETURN(f.group, config.String("group", ""));
  PF_ASSIGN_OR_RETURN(JsonReader result, r.Field("result"));
  PF_ASSIGN_OR_RETURN(JsonReader signals, result.OptionalObject("signals"));
  for (const auto& [name, value] : signals.node().items()) {
    if (auto x = SignalFromJson(value)) f.signals[name] = *x;
  }
  PF_ASSIGN_OR_RETURN(JsonReader cost, result.OptionalObject("cost"));
  PF_ASSIGN_OR_RETURN(f.cost, cost.Number("fraction_of_trial", 0.0));
  PF_ASSIGN_OR_RETURN(JsonReader evidence, result.OptionalObject("evidence"));
  PF_ASSIGN_OR_RETURN(JsonReader arms, evidence.OptionalObject("arms"));
  f.sizes = CaseSizes(JsonAt(r.node(), {"inputs"}), arms.node());
  return out;
}

// The forecast receipts by their hash, and (`remeasured`) by the hash of the trial they
// re-measure (forecast.h `remeasures`; the latest such receipt of a trial). A receipt whose
// members do not read (a wrong type) is skipped, like one of another kind: it labels nothing.
std::map<std::string, ForecastFacts> ForecastsByHash(
    const std::vector<nlohmann::json>& receipts, std::map<std::string, ForecastFacts>* remeasured) {
  std::map<std::string, ForecastFacts> forecasts;
  for (const auto& r : receipts) {
    if (ledger::KindOf(r) != ledger::ReceiptKind::kForecast || !r.contains("result")) continue;
    Result<ForecastReceipt> read = ReadForecast(JsonReader(r, "forecast receipt"));
    if (!read.ok()) continue;
    ForecastReceipt& f = *read;
    if (f.remeasures.empty()) {
      forecasts[f.hash] = std::move(f.facts);
    } else {
      (*remeasured)[f.remeasures] = std::move(f.facts);
    }
  }
  return forecasts;
}

// The trial's pilot: model, steps, tokens per run, and whether its regime was informative.
Result<PilotScale> TrialScale(const JsonReader& config, const JsonReader& result) {
  PilotScale s;
  PF_ASSIGN_OR_RETURN(JsonReader model, config.OptionalObject("model"));
  PF_ASSIGN_OR_RETURN(s.model, model.String("name", ""));
  PF_ASSIGN_OR_RETURN(s.steps, config.Int("steps", 0));
  PF_ASSIGN_OR_RETURN(double batch, model.Number("batch", 0.0));
  PF_ASSIGN_OR_RETURN(double context, model.Number("context", 0.0));
  s.tokens = static_cast<double>(s.steps) * batch * context;
  s.trials = 1;
  PF_ASSIGN_OR_RETURN(JsonReader regime, result.OptionalObject("regime"));
  PF_ASSIGN_OR_RETURN(bool informative, regime.Bool("informative", false));
  s.informative = informative ? 1 : 0;
  return s;
}

// The example a trial receipt makes; nullopt when it tested no forecast of `forecasts` or
// records no net saving.
Result<std::optional<Example>> ReadExample(const JsonReader& r,
                                           const std::map<std::string, ForecastFacts>& forecasts,
                                           const std::map<std::string, ForecastFacts>& remeasured) {
  PF_ASSIGN_OR_RETURN(JsonReader config, r.Field("config"));
  PF_ASSIGN_OR_RETURN(JsonReader result, r.Field("result"));
  PF_ASSIGN_OR_RETURN(std::string forecast, config.String("forecast", ""));
  auto it = forecasts.find(forecast);
  if (it == forecasts.end()) return std::optional<Example>();
  PF_ASSIGN_OR_RETURN(JsonReader saved, result.OptionalObject("compute_saved"));
  if (!saved.Has("net")) return std::optional<Example>();
  Example e;
  PF_ASSIGN_OR_RETURN(e.name, config.String("target_name", ""));
  if (e.name.empty()) {
    PF_ASSIGN_OR_RETURN(e.name, config.String("target_select", ""));
  }
  e.group = it->second.group;
  e.signals = it->second.signals;
  e.forecast_cost = it->second.cost;
  e.sizes = it->second.sizes;
  // Signals measured again later on the same inputs (forecast.h `remeasures`): they join the
  // trial's own (the same signal: the later value), and the forecast's cost is the later one's.
  PF_ASSIGN_OR_RETURN(std::string hash, r.String("hash", ""));
  if (auto again = remeasured.find(hash); again != remeasured.end()) {
    for (const auto& [name, x] : again->second.signals) e.signals[name] = x;
    e.forecast_cost = again->second.cost;
  }
  PF_ASSIGN_OR_RETURN(int64_t seeds, config.Int("seeds", 4));
  e.seeds = static_cast<int>(seeds);
  PF_ASSIGN_OR_RETURN(e.scale, TrialScale(config, result));
  const nlohmann::json& net = saved.node()["net"];
  if (net.is_number()) {
    PF_ASSIGN_OR_RETURN(bool caught_up, result.Bool("caught_up", true));
    if (caught_up) e.net = net.get<double>();
  }
  return std::optional<Example>(std::move(e));
}

}  // namespace

std::vector<Example> ExamplesFromReceipts(const std::vector<nlohmann::json>& receipts) {
  std::map<std::string, ForecastFacts> remeasured;
  const std::map<std::string, ForecastFacts> forecasts = ForecastsByHash(receipts, &remeasured);
  std::vector<Example> out;
  std::map<std::string, size_t> by_name;  // a target run again keeps its latest trial
  for (const auto& r : receipts) {
    if (ledger::KindOf(r) != ledger::ReceiptKind::kTrial || !r.contains("config") ||
        !r.contains("result")) {
      continue;
    }
    // A trial receipt whose members do not read (a wrong type) is skipped, like one that
    // tested no forecast: it labels nothing.
    Result<std::optional<Example>> read =
        ReadExample(JsonReader(r, "trial receipt"), forecasts, remeasured);
    if (!read.ok() || !*read) continue;
    Example& e = **read;
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
