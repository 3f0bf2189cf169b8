#include "forecast/calibration.h"

#include <cmath>

namespace preflight::forecast {

std::string VerdictFor(const SignalValue& x, const std::string& mode) {
  const double lo = mode == "point" ? x.value : x.lo;
  const double hi = mode == "point" ? x.value : x.hi;
  if (lo > 0) return "curate";
  if (hi < 0 || (mode != "point" && hi <= 0)) return "random";
  return "uncertain";
}

Prediction Calibration::Predict(const SignalValue& x) const {
  Prediction p;
  p.saving = slope * x.value;
  p.lo = std::min(slope * x.lo, slope * x.hi);
  p.hi = std::max(slope * x.lo, slope * x.hi);
  p.verdict = VerdictFor(x, mode);
  p.strength = (x.lo > 0 || x.hi <= 0) ? "clear" : "weak";
  return p;
}

nlohmann::json Calibration::ToJson() const {
  return {{"signal", signal},           {"mode", mode},         {"slope", slope},
          {"residual_sd", residual_sd}, {"examples", examples}, {"source", source}};
}

Result<Calibration> Calibration::FromJson(const nlohmann::json& j) {
  Calibration c;
  try {
    c.signal = j.at("signal").get<std::string>();
    c.mode = j.at("mode").get<std::string>();
    c.slope = j.at("slope").get<double>();
    c.residual_sd = j.at("residual_sd").get<double>();
    c.examples = j.at("examples").get<int>();
    c.source = j.at("source").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("not a calibration: ") + e.what());
  }
  return c;
}

Result<Calibration> Fit(const std::vector<Example>& examples, const std::string& signal,
                        const std::string& mode, const std::string& source) {
  double sxx = 0, sxy = 0;
  int n = 0;
  for (const Example& e : examples) {
    auto it = e.signals.find(signal);
    if (it == e.signals.end()) continue;
    sxx += it->second.value * it->second.value;
    sxy += it->second.value * e.Label();
    ++n;
  }
  if (n < 3) {
    return Status::InvalidArgument("a calibration needs at least 3 labelled trials with signal " +
                                   signal + "; have " + std::to_string(n));
  }
  if (!(sxx > 0)) return Status::InvalidArgument("every labelled trial has " + signal + " = 0");
  Calibration c;
  c.signal = signal;
  c.mode = mode;
  c.slope = sxy / sxx;
  double rss = 0;
  for (const Example& e : examples) {
    auto it = e.signals.find(signal);
    if (it == e.signals.end()) continue;
    const double r = e.Label() - c.slope * it->second.value;
    rss += r * r;
  }
  c.residual_sd = std::sqrt(rss / (n - 1));
  c.examples = n;
  c.source = source;
  return c;
}

std::optional<bool> Correct(const std::string& verdict, std::optional<double> net) {
  if (verdict != "curate" && verdict != "random") return std::nullopt;
  const bool paid = net && *net > 0;
  return (verdict == "curate") == paid;
}

Result<Calibration> Calibrate(const std::vector<Example>& examples,
                              const std::vector<std::string>& candidates,
                              const std::string& source) {
  std::string best_signal, best_mode;
  int best_score = 0, best_abstained = 0;
  for (const std::string& signal : candidates) {
    for (const char* mode : {"point", "interval"}) {
      int score = 0, abstained = 0, have = 0;
      for (const Example& e : examples) {
        auto it = e.signals.find(signal);
        if (it == e.signals.end()) continue;
        ++have;
        auto correct = Correct(VerdictFor(it->second, mode), e.net);
        if (!correct) ++abstained;
        if (correct) score += *correct ? 1 : -1;
      }
      if (have < static_cast<int>(examples.size())) continue;  // not measured on every example
      if (best_signal.empty() || score > best_score ||
          (score == best_score && abstained < best_abstained)) {
        best_signal = signal;
        best_mode = mode;
        best_score = score;
        best_abstained = abstained;
      }
    }
  }
  if (best_signal.empty()) {
    return Status::InvalidArgument("no candidate signal was measured on every labelled trial");
  }
  return Fit(examples, best_signal, best_mode, source);
}

Result<std::vector<Prediction>> LeaveOneOut(const std::vector<Example>& examples,
                                            const std::vector<std::string>& candidates) {
  if (examples.size() < 4) {
    return Status::InvalidArgument("leave-one-out needs at least 4 labelled trials");
  }
  std::vector<Prediction> out;
  for (size_t i = 0; i < examples.size(); ++i) {
    std::vector<Example> rest;
    for (size_t j = 0; j < examples.size(); ++j)
      if (j != i) rest.push_back(examples[j]);
    PF_ASSIGN_OR_RETURN(Calibration c, Calibrate(rest, candidates, "leave-one-out"));
    auto it = examples[i].signals.find(c.signal);
    if (it == examples[i].signals.end()) {
      return Status::InvalidArgument(examples[i].name + " lacks signal " + c.signal);
    }
    out.push_back(c.Predict(it->second));
  }
  return out;
}

const std::vector<std::string>& CandidateSignals() {
  static const std::vector<std::string> kCandidates = {"byte_bigram_gain", "byte_unigram_gain"};
  return kCandidates;
}

nlohmann::json SignalToJson(const SignalValue& x) {
  return {{"value", x.value}, {"interval", {x.lo, x.hi}}};
}

std::optional<SignalValue> SignalFromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("value") || !j["value"].is_number()) return std::nullopt;
  SignalValue x;
  x.value = x.lo = x.hi = j["value"].get<double>();
  if (j.contains("interval") && j["interval"].is_array() && j["interval"].size() == 2 &&
      j["interval"][0].is_number() && j["interval"][1].is_number()) {
    x.lo = j["interval"][0].get<double>();
    x.hi = j["interval"][1].get<double>();
  }
  return x;
}

std::vector<Example> ExamplesFromReceipts(const std::vector<nlohmann::json>& receipts) {
  std::map<std::string, std::map<std::string, SignalValue>> forecasts;
  for (const auto& r : receipts) {
    if (r.value("kind", "") != "forecast" || !r.contains("result")) continue;
    const auto& signals = r["result"].value("signals", nlohmann::json::object());
    auto& into = forecasts[r.value("hash", "")];
    for (auto& [name, value] : signals.items()) {
      if (auto x = SignalFromJson(value)) into[name] = *x;
    }
  }
  std::vector<Example> out;
  for (const auto& r : receipts) {
    if (r.value("kind", "") != "trial" || !r.contains("config") || !r.contains("result")) continue;
    const std::string forecast = r["config"].value("forecast", "");
    auto it = forecasts.find(forecast);
    if (forecast.empty() || it == forecasts.end()) continue;
    const auto& saved = r["result"].value("compute_saved", nlohmann::json::object());
    if (!saved.contains("net")) continue;
    Example e;
    e.name = r["config"].value("target_name", "");
    if (e.name.empty()) e.name = r["config"].value("target_select", "");
    e.signals = it->second;
    if (saved["net"].is_number()) e.net = saved["net"].get<double>();
    out.push_back(e);
  }
  return out;
}

Calibration DefaultCalibration() {
  // `preflight battery --spec data/brown/battery.json --model tiny --steps 300` (19 targets,
  // 4 seeds, dsir, keep 0.25), then `preflight forecast --calibrate` on its ledger
  // (doc/forecast.md has the run and its table).
  Calibration c;
  c.signal = "byte_bigram_gain";
  c.mode = "point";
  c.slope = 6.886;
  c.residual_sd = 0.103;
  c.examples = 19;
  c.source = "default: fitted on the built-in Brown battery (tiny model, 300 steps)";
  return c;
}

}  // namespace preflight::forecast
