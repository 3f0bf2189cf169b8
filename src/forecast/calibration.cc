#include "forecast/calibration.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "base/json.h"

namespace preflight::forecast {
namespace {

constexpr double kLevel = 0.8;             // the interval's coverage
constexpr double kClearProbability = 0.9;  // a verdict this sure (its way) is "clear"
constexpr double kOtherScaleWidening = 2;  // residuals' factor at a scale not calibrated

double Clip(double v) { return std::clamp(v, -1.0, 1.0); }

// The split-conformal ends of a `level` interval from n sorted outcomes: the k-th smallest with
// k = ceil((n + 1)(1 + level) / 2) for the upper end, and its mirror for the lower, so that a new
// outcome exchangeable with these falls inside with probability >= level (Lei et al., 2018,
// "Distribution-free predictive inference for regression"). With few outcomes the ends are the
// extremes.
std::pair<double, double> ConformalEnds(const std::vector<double>& sorted, double level) {
  const double n = static_cast<double>(sorted.size());
  const double k = std::ceil((n + 1) * (1 + level) / 2);  // 1-based rank of the upper end
  const size_t hi = static_cast<size_t>(std::min(n, k)) - 1;
  const size_t lo = sorted.size() - 1 - hi;
  return {sorted[lo], sorted[hi]};
}

constexpr int kMinNeighbours = 10;  // a prediction's residuals: at least these many

struct Point {
  double x = 0, y = 0;
  std::string group;
};

std::vector<Knot> FitCurve(const std::vector<Point>& points) {
  std::vector<XY> xy;
  for (const Point& p : points) xy.push_back({p.x, p.y});
  return FitAnchoredMonotone(std::move(xy));
}

double Predicted(const std::vector<Knot>& curve, double x) { return Clip(CurveAt(curve, x)); }

// Each point's miss by the curve fitted without its group; in-sample misses, widened, when there
// are fewer than 3 groups. Sorted by x (ties: in the points' order).
std::vector<Residual> OutOfGroupResiduals(const std::vector<Point>& points) {
  std::set<std::string> groups;
  for (const Point& p : points) groups.insert(p.group);
  std::vector<Residual> out;
  if (groups.size() < 3) {
    const std::vector<Knot> curve = FitCurve(points);
    const double n = static_cast<double>(points.size());
    const double widen = n > 2 ? std::sqrt(n / (n - 2)) : 2.0;
    for (const Point& p : points) out.push_back({p.x, widen * (p.y - Predicted(curve, p.x))});
  } else {
    for (const std::string& g : groups) {
      std::vector<Point> rest;
      for (const Point& p : points)
        if (p.group != g) rest.push_back(p);
      const std::vector<Knot> curve = FitCurve(rest);
      for (const Point& p : points)
        if (p.group == g) out.push_back({p.x, p.y - Predicted(curve, p.x)});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Residual& a, const Residual& b) { return a.x < b.x; });
  return out;
}

// The k residuals nearest to x (sorted by x: a window; ties go to the lower side).
std::vector<double> Nearest(const std::vector<Residual>& sorted, double x, size_t k) {
  k = std::min(k, sorted.size());
  size_t lo =
      static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), x,
                                           [](const Residual& r, double v) { return r.x < v; }) -
                          sorted.begin());
  size_t hi = lo;  // the window is [lo, hi)
  while (hi - lo < k) {
    const bool take_low =
        hi == sorted.size() || (lo > 0 && x - sorted[lo - 1].x <= sorted[hi].x - x);
    if (take_low) {
      --lo;
    } else {
      ++hi;
    }
  }
  std::vector<double> out;
  for (size_t i = lo; i < hi; ++i) out.push_back(sorted[i].r);
  return out;
}

PilotScale ScaleOf(const std::vector<Example>& examples) {
  PilotScale s;
  std::map<std::pair<std::string, int64_t>, int> seen;
  for (const Example& e : examples) ++seen[{e.scale.model, e.scale.steps}];
  const auto most = std::max_element(seen.begin(), seen.end(),
                                     [](auto& a, auto& b) { return a.second < b.second; });
  if (most == seen.end()) return s;
  s.model = most->first.first;
  s.steps = most->first.second;
  for (const Example& e : examples) {
    if (!s.Matches(e.scale.model, e.scale.steps)) continue;
    s.tokens = e.scale.tokens;
    ++s.trials;
    s.informative += e.scale.informative;
  }
  return s;
}

// The range of each of CoverageSignals() that every example measured.
std::map<std::string, Covered> CoveredRanges(const std::vector<Example>& examples) {
  std::map<std::string, Covered> out;
  for (const std::string& name : CoverageSignals()) {
    Covered range;
    bool first = true, everywhere = !examples.empty();
    for (const Example& e : examples) {
      auto it = e.signals.find(name);
      if (it == e.signals.end()) {
        everywhere = false;
        break;
      }
      const double v = it->second.value;
      range = first ? Covered{v, v} : Covered{std::min(range.lo, v), std::max(range.hi, v)};
      first = false;
    }
    if (everywhere) out[name] = range;
  }
  return out;
}

// The range of each of SizeNames() that every example carried.
std::map<std::string, Covered> SizesSeen(const std::vector<Example>& examples) {
  std::map<std::string, Covered> out;
  for (const std::string& name : SizeNames()) {
    Covered range;
    bool first = true, everywhere = !examples.empty();
    for (const Example& e : examples) {
      auto it = e.sizes.find(name);
      if (it == e.sizes.end()) {
        everywhere = false;
        break;
      }
      range = first ? Covered{it->second, it->second}
                    : Covered{std::min(range.lo, it->second), std::max(range.hi, it->second)};
      first = false;
    }
    if (everywhere) out[name] = range;
  }
  return out;
}

nlohmann::json RangesJson(const std::map<std::string, Covered>& ranges) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, range] : ranges) j[name] = {range.lo, range.hi};
  return j;
}

}  // namespace

int Calibration::Neighbours() const {
  const int n = static_cast<int>(residuals.size());
  return std::min(n, std::max(kMinNeighbours, (n + 2) / 3));
}

Prediction Calibration::Predict(const SignalValue& x, double decision_cost,
                                bool scale_matches) const {
  Prediction p;
  p.saving = Predicted(curve, x.value);
  p.decision_cost = decision_cost;
  p.scale_matches = scale_matches;
  const double widen = scale_matches ? 1.0 : kOtherScaleWidening;
  std::vector<double> outcomes;
  for (double r : Nearest(residuals, x.value, static_cast<size_t>(Neighbours()))) {
    outcomes.push_back(Clip(p.saving + widen * r));
  }
  if (outcomes.empty()) outcomes.push_back(p.saving);
  std::sort(outcomes.begin(), outcomes.end());
  double above = 0, sum = 0;
  for (double o : outcomes) {
    above += o > 0;
    sum += o;
  }
  const double n = static_cast<double>(outcomes.size());
  p.probability = (above + 0.5) / (n + 1);
  p.expected = sum / n;
  std::tie(p.lo, p.hi) = ConformalEnds(outcomes, kLevel);
  // The signal's own interval (a bootstrap over the target's documents, when it has one) says
  // whether the curated quarter is closer at all.
  const bool has_interval = x.lo < x.hi;
  const bool closer = x.value > 0 && (!has_interval || x.lo > 0);
  const bool indistinct = has_interval && x.lo <= 0 && 0 <= x.hi;
  if (indistinct) {  // the gate (calibration.h): nothing measurable to pay the selection for
    p.verdict = "random";
  } else if (closer && p.expected > decision_cost) {
    p.verdict = "curate";
  } else if (p.expected < -decision_cost) {
    p.verdict = "random";
  } else {
    p.verdict = "uncertain";
  }
  // Clear: the probability agrees with the verdict at the threshold. A gated `random` whose curve
  // says curating would likely pay is therefore `weak`, never "random (clear)" at 95%.
  const bool pays = p.probability >= kClearProbability;
  const bool loses = p.probability <= 1 - kClearProbability;
  const bool sure = p.verdict == "curate" ? pays : p.verdict == "random" ? loses : pays || loses;
  p.strength = sure ? "clear" : "weak";
  return p;
}

Result<Prediction> Calibration::PredictFrom(const std::map<std::string, SignalValue>& signals,
                                            double decision_cost, bool scale_matches) const {
  auto chosen = signals.find(signal);
  if (chosen == signals.end()) {
    return Status::InvalidArgument("the calibration uses signal '" + signal +
                                   "', which this forecast did not measure" +
                                   (signal == "proxy_gain" ? " (add --proxy)" : ""));
  }
  Prediction p = Predict(chosen->second, decision_cost, scale_matches);
  p.outside = Outside(signals);
  if (!p.outside.empty()) p.strength = "weak";
  return p;
}

std::vector<OutsideSignal> Calibration::Outside(
    const std::map<std::string, SignalValue>& signals) const {
  std::vector<OutsideSignal> out;
  for (const auto& [name, range] : covered) {
    auto it = signals.find(name);
    if (it == signals.end()) continue;
    const double v = it->second.value;
    if (v < range.lo || v > range.hi) out.push_back({name, v, range});
  }
  return out;
}

std::vector<OutsideSignal> Calibration::FarSmaller(
    const std::map<std::string, double>& sizes) const {
  std::vector<OutsideSignal> out;
  for (const std::string& of : {"pool", "arm"}) {
    std::vector<OutsideSignal> smaller;
    bool all = true;
    for (const std::string& name : {of + "_docs", of + "_bytes"}) {
      auto seen = sizes_seen.find(name);
      auto it = sizes.find(name);
      if (seen == sizes_seen.end() || it == sizes.end()) continue;  // not judged
      if (it->second < kFarSmaller * seen->second.lo) {
        smaller.push_back({name, it->second, seen->second});
      } else {
        all = false;
      }
    }
    if (all) out.insert(out.end(), smaller.begin(), smaller.end());
  }
  return out;
}

nlohmann::json ScaleToJson(const PilotScale& s) {
  return {{"model", s.model},
          {"steps", s.steps},
          {"tokens", s.tokens},
          {"trials", s.trials},
          {"informative", s.informative}};
}

nlohmann::json Calibration::ToJson() const {
  nlohmann::json knots = nlohmann::json::array(), misses = nlohmann::json::array();
  for (const Knot& k : curve) knots.push_back({k.x, k.y});
  for (const Residual& r : residuals) misses.push_back({r.x, r.r});
  nlohmann::json j = {{"signal", signal},    {"form", "anchored_monotone"}, {"curve", knots},
                      {"residuals", misses}, {"neighbours", Neighbours()},  {"examples", examples},
                      {"groups", groups},    {"scale", ScaleToJson(scale)}, {"source", source}};
  if (!covered.empty()) j["covered"] = RangesJson(covered);
  if (!sizes_seen.empty()) j["sizes_seen"] = RangesJson(sizes_seen);
  return j;
}

namespace {

// A two-number array ([x, y]) of a calibration's curve, residuals or covered ranges.
Result<std::pair<double, double>> NumberPair(const JsonReader& r) {
  PF_ASSIGN_OR_RETURN(JsonReader first, r.At(0));
  PF_ASSIGN_OR_RETURN(JsonReader second, r.At(1));
  PF_ASSIGN_OR_RETURN(double a, first.AsNumber());
  PF_ASSIGN_OR_RETURN(double b, second.AsNumber());
  return std::pair<double, double>{a, b};
}

Result<std::vector<std::pair<double, double>>> NumberPairs(const JsonReader& r,
                                                           std::string_view key) {
  PF_ASSIGN_OR_RETURN(JsonReader field, r.Field(key));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> items, field.Elements());
  std::vector<std::pair<double, double>> out;
  for (const JsonReader& item : items) {
    PF_ASSIGN_OR_RETURN(auto pair, NumberPair(item));
    out.push_back(pair);
  }
  return out;
}

// An optional object of named [lo, hi] ranges (the signals covered, the sizes seen).
Result<std::map<std::string, Covered>> Ranges(const JsonReader& r, std::string_view key) {
  std::map<std::string, Covered> out;
  if (!r.Has(key)) return out;
  PF_ASSIGN_OR_RETURN(JsonReader field, r.Field(key));
  if (!field.node().is_object()) return field.Error("expected an object of ranges");
  for (const auto& [name, range] : field.node().items()) {
    PF_ASSIGN_OR_RETURN(auto lo_hi,
                        NumberPair(JsonReader(range, r.file(), field.path() + "." + name)));
    out[name] = {lo_hi.first, lo_hi.second};
  }
  return out;
}

Result<PilotScale> ScaleFromJson(const JsonReader& r) {
  PilotScale s;
  PF_ASSIGN_OR_RETURN(s.model, r.String("model"));
  PF_ASSIGN_OR_RETURN(s.steps, r.Int("steps"));
  PF_ASSIGN_OR_RETURN(s.tokens, r.Number("tokens"));
  PF_ASSIGN_OR_RETURN(int64_t trials, r.Int("trials"));
  PF_ASSIGN_OR_RETURN(int64_t informative, r.Int("informative"));
  s.trials = static_cast<int>(trials);
  s.informative = static_cast<int>(informative);
  return s;
}

Result<Calibration> ReadCalibration(const JsonReader& r) {
  Calibration c;
  PF_ASSIGN_OR_RETURN(std::string form, r.String("form"));
  if (form != "anchored_monotone") return r.Error("unknown form '" + form + "'");
  PF_ASSIGN_OR_RETURN(c.signal, r.String("signal"));
  PF_ASSIGN_OR_RETURN(auto curve, NumberPairs(r, "curve"));
  for (const auto& [x, y] : curve) c.curve.push_back({x, y});
  PF_ASSIGN_OR_RETURN(auto residuals, NumberPairs(r, "residuals"));
  for (const auto& [x, e] : residuals) c.residuals.push_back({x, e});
  if (c.curve.empty() || c.residuals.empty()) return r.Error("no curve or no residuals");
  std::stable_sort(c.curve.begin(), c.curve.end(),
                   [](const Knot& a, const Knot& b) { return a.x < b.x; });
  std::stable_sort(c.residuals.begin(), c.residuals.end(),
                   [](const Residual& a, const Residual& b) { return a.x < b.x; });
  PF_ASSIGN_OR_RETURN(int64_t examples, r.Int("examples"));
  PF_ASSIGN_OR_RETURN(int64_t groups, r.Int("groups"));
  c.examples = static_cast<int>(examples);
  c.groups = static_cast<int>(groups);
  PF_ASSIGN_OR_RETURN(JsonReader scale, r.Field("scale"));
  PF_ASSIGN_OR_RETURN(c.scale, ScaleFromJson(scale));
  PF_ASSIGN_OR_RETURN(c.source, r.String("source"));
  PF_ASSIGN_OR_RETURN(c.covered, Ranges(r, "covered"));
  PF_ASSIGN_OR_RETURN(c.sizes_seen, Ranges(r, "sizes_seen"));
  return c;
}

}  // namespace

Result<Calibration> Calibration::FromJson(const nlohmann::json& j, const std::string& source) {
  Result<Calibration> c = ReadCalibration(JsonReader(j, source));
  if (c.ok()) return c;
  return Status::Corruption(c.status().message() +
                            " (not a calibration this preflight reads: made by an older one? "
                            "rerun `preflight forecast --calibrate`)");
}

Result<Calibration> Fit(const std::vector<Example>& examples, const std::string& signal,
                        const std::string& source) {
  std::vector<Point> points;
  std::set<std::string> groups;
  for (const Example& e : examples) {
    auto it = e.signals.find(signal);
    if (it == e.signals.end()) continue;
    points.push_back({it->second.value, e.Label(), e.group.empty() ? e.name : e.group});
    groups.insert(points.back().group);
  }
  if (points.size() < 3) {
    return Status::InvalidArgument("a calibration needs at least 3 labelled trials with signal " +
                                   signal + "; have " + std::to_string(points.size()));
  }
  Calibration c;
  c.signal = signal;
  c.curve = FitCurve(points);
  c.residuals = OutOfGroupResiduals(points);
  for (const Residual& r : c.residuals) {
    c.held_out_error += r.r * r.r / static_cast<double>(c.residuals.size());
  }
  c.examples = static_cast<int>(points.size());
  c.groups = static_cast<int>(groups.size());
  c.scale = ScaleOf(examples);
  c.source = source;
  c.covered = CoveredRanges(examples);
  c.sizes_seen = SizesSeen(examples);
  return c;
}

Result<Calibration> Calibrate(const std::vector<Example>& examples,
                              const std::vector<std::string>& candidates,
                              const std::string& source) {
  std::optional<Calibration> best;
  double best_error = 0;
  for (const std::string& signal : candidates) {
    const bool everywhere = std::all_of(examples.begin(), examples.end(),
                                        [&](const Example& e) { return e.signals.count(signal); });
    if (!everywhere) continue;
    auto c = Fit(examples, signal, source);
    if (!c.ok()) continue;
    const double error = c->held_out_error;
    if (!best || error < best_error) {
      best = std::move(c).value();
      best_error = error;
    }
  }
  if (!best) {
    return Status::InvalidArgument(
        "no candidate signal was measured on every labelled trial (at least 3 needed)");
  }
  return *best;
}

std::optional<bool> Correct(const std::string& verdict, std::optional<double> net) {
  if (verdict != "curate" && verdict != "random") return std::nullopt;
  const bool paid = net && *net > 0;
  return (verdict == "curate") == paid;
}

const std::vector<std::string>& CandidateSignals() {
  // The cross-fitted four (cross_fit.h) after the in-sample three, so that a tie keeps the
  // older choice; a candidate not measured on every example is passed over (Calibrate).
  static const std::vector<std::string> kCandidates = {
      "byte_bigram_gain", "target_like_gain",   "byte_unigram_gain",    "xfit_bigram_gain",
      "ngram_curve_gain", "ngram_curve_saving", "xfit_target_like_gain"};
  return kCandidates;
}

const std::vector<std::string>& CoverageSignals() {
  static const std::vector<std::string> kCoverage = [] {
    std::vector<std::string> v = CandidateSignals();
    for (const char* more :
         {"byte_pair_coverage", "classifier_auc", "largest_source_kept", "top_cluster_gain"}) {
      v.push_back(more);
    }
    return v;
  }();
  return kCoverage;
}

const std::vector<std::string>& SizeNames() {
  static const std::vector<std::string> kSizes = {"pool_docs", "pool_bytes", "arm_docs",
                                                  "arm_bytes"};
  return kSizes;
}

std::map<std::string, double> CaseSizes(const nlohmann::json& inputs, const nlohmann::json& arms) {
  // A field that is not a number leaves its size out (not known: not judged).
  auto number = [](const nlohmann::json& o, const char* key) -> std::optional<double> {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number()) return std::nullopt;
    return o[key].get<double>();
  };
  std::map<std::string, double> out;
  double docs = 0, bytes = 0;
  int pools = 0;
  for (const nlohmann::json& in : inputs.is_array() ? inputs : nlohmann::json::array()) {
    if (JsonAt(in, {"role"}) != "pool") continue;
    const auto d = number(in, "docs"), b = number(in, "bytes");
    if (!d || !b) return out;
    docs += *d;
    bytes += *b;
    ++pools;
  }
  if (pools > 0) out = {{"pool_docs", docs}, {"pool_bytes", bytes}};
  if (!arms.is_object() || !arms.contains("curated") || !arms.contains("random")) return out;
  const auto ad = number(arms["curated"], "kept_docs"), bd = number(arms["random"], "kept_docs");
  const auto ab = number(arms["curated"], "kept_bytes"), bb = number(arms["random"], "kept_bytes");
  if (ad && bd && ab && bb) {
    out["arm_docs"] = std::min(*ad, *bd);
    out["arm_bytes"] = std::min(*ab, *bb);
  }
  return out;
}

const std::vector<std::string>& GainSignals() {
  static const std::vector<std::string> kGains = [] {
    std::vector<std::string> v = CandidateSignals();
    v.push_back("ngram4_coverage_gain");
    v.push_back("classifier_gap");
    return v;
  }();
  return kGains;
}

nlohmann::json SignalToJson(const SignalValue& x) {
  if (x.lo == x.value && x.hi == x.value) return {{"value", x.value}};  // no interval measured
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

}  // namespace preflight::forecast
