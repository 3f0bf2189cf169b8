#include "forecast/calibration.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

namespace preflight::forecast {
namespace {

constexpr double kLevel = 0.8;           // the interval's coverage
constexpr double kClearProbability = 0.9;  // a verdict this sure (either way) is "clear"
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

struct Point {
  double x = 0, y = 0;
  std::string group;
};

struct Line {
  double intercept = 0, slope = 0;
  double At(double x) const { return Clip(intercept + slope * x); }
};

// Least squares; a flat line at the mean when x does not vary.
Line FitLine(const std::vector<Point>& points) {
  double mx = 0, my = 0;
  for (const Point& p : points) {
    mx += p.x;
    my += p.y;
  }
  const double n = static_cast<double>(points.size());
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (const Point& p : points) {
    sxx += (p.x - mx) * (p.x - mx);
    sxy += (p.x - mx) * (p.y - my);
  }
  Line line;
  line.slope = sxx > 1e-300 ? sxy / sxx : 0;
  line.intercept = my - line.slope * mx;
  return line;
}

// The line for x > 0 and the one for x <= 0; a side with fewer than 3 points takes the line
// of all of them.
struct Lines {
  Line below, above;
  double At(double x) const { return x > 0 ? above.At(x) : below.At(x); }
};

Lines FitLines(const std::vector<Point>& points) {
  std::vector<Point> below, above;
  for (const Point& p : points) (p.x > 0 ? above : below).push_back(p);
  const Line all = FitLine(points);
  return {below.size() >= 3 ? FitLine(below) : all, above.size() >= 3 ? FitLine(above) : all};
}

// Each point's miss by the lines fitted without its group, by side (x <= 0, x > 0); in-sample
// misses, widened, when there are fewer than 3 groups.
std::pair<std::vector<double>, std::vector<double>> OutOfGroupResiduals(
    const std::vector<Point>& points) {
  std::set<std::string> groups;
  for (const Point& p : points) groups.insert(p.group);
  std::vector<double> below, above;
  auto add = [&](const Point& p, double r) { (p.x > 0 ? above : below).push_back(r); };
  if (groups.size() < 3) {
    const Lines lines = FitLines(points);
    const double n = static_cast<double>(points.size());
    const double widen = n > 2 ? std::sqrt(n / (n - 2)) : 2.0;
    for (const Point& p : points) add(p, widen * (p.y - lines.At(p.x)));
  } else {
    for (const std::string& g : groups) {
      std::vector<Point> rest;
      for (const Point& p : points)
        if (p.group != g) rest.push_back(p);
      const Lines lines = FitLines(rest);
      for (const Point& p : points)
        if (p.group == g) add(p, p.y - lines.At(p.x));
    }
  }
  return {below, above};
}

Piece MakePiece(const Line& line, std::vector<double> own, const std::vector<double>& all) {
  Piece piece{line.intercept, line.slope, {}, static_cast<int>(own.size())};
  piece.residuals = own.size() >= 3 ? std::move(own) : all;
  std::sort(piece.residuals.begin(), piece.residuals.end());
  return piece;
}

PilotScale ScaleOf(const std::vector<Example>& examples) {
  PilotScale s;
  std::map<std::pair<std::string, int64_t>, int> seen;
  for (const Example& e : examples) ++seen[{e.scale.model, e.scale.steps}];
  const auto most = std::max_element(seen.begin(), seen.end(), [](auto& a, auto& b) {
    return a.second < b.second;
  });
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

}  // namespace

Prediction Calibration::Predict(const SignalValue& x, double decision_cost,
                                bool scale_matches) const {
  const Piece& piece = x.value > 0 ? above : below;
  const std::vector<double>& residuals = piece.residuals;
  Prediction p;
  p.saving = Clip(piece.intercept + piece.slope * x.value);
  p.decision_cost = decision_cost;
  p.scale_matches = scale_matches;
  const double widen = scale_matches ? 1.0 : kOtherScaleWidening;
  std::vector<double> outcomes;
  for (double r : residuals) outcomes.push_back(Clip(p.saving + widen * r));
  if (outcomes.empty()) outcomes.push_back(p.saving);
  std::sort(outcomes.begin(), outcomes.end());
  double above = 0, sum = 0;
  for (double o : outcomes) {
    above += o > 0;
    sum += o;
  }
  const double n = static_cast<double>(outcomes.size());
  p.probability = above / n;
  p.expected = sum / n;
  std::tie(p.lo, p.hi) = ConformalEnds(outcomes, kLevel);
  if (p.expected > decision_cost) {
    p.verdict = "curate";
  } else if (p.expected < -decision_cost) {
    p.verdict = "random";
  } else {
    p.verdict = "uncertain";
  }
  const bool sure = p.probability >= kClearProbability || p.probability <= 1 - kClearProbability;
  p.strength = sure ? "clear" : "weak";
  return p;
}

nlohmann::json ScaleToJson(const PilotScale& s) {
  return {{"model", s.model},
          {"steps", s.steps},
          {"tokens", s.tokens},
          {"trials", s.trials},
          {"informative", s.informative}};
}

namespace {

nlohmann::json PieceToJson(const Piece& p) {
  return {{"intercept", p.intercept},
          {"slope", p.slope},
          {"residuals", p.residuals},
          {"examples", p.examples}};
}

Piece PieceFromJson(const nlohmann::json& j) {  // throws nlohmann::json::exception
  Piece p{j.at("intercept").get<double>(), j.at("slope").get<double>(),
          j.at("residuals").get<std::vector<double>>(), j.at("examples").get<int>()};
  if (p.residuals.empty()) throw nlohmann::json::other_error::create(501, "no residuals", &j);
  std::sort(p.residuals.begin(), p.residuals.end());
  return p;
}

}  // namespace

nlohmann::json Calibration::ToJson() const {
  return {{"signal", signal},         {"below", PieceToJson(below)},
          {"above", PieceToJson(above)}, {"examples", examples},
          {"groups", groups},         {"scale", ScaleToJson(scale)},
          {"source", source}};
}

Result<Calibration> Calibration::FromJson(const nlohmann::json& j) {
  Calibration c;
  try {
    c.signal = j.at("signal").get<std::string>();
    c.below = PieceFromJson(j.at("below"));
    c.above = PieceFromJson(j.at("above"));
    c.examples = j.at("examples").get<int>();
    c.groups = j.at("groups").get<int>();
    const nlohmann::json& s = j.at("scale");
    c.scale = {s.at("model").get<std::string>(), s.at("steps").get<int64_t>(),
               s.at("tokens").get<double>(), s.at("trials").get<int>(),
               s.at("informative").get<int>()};
    c.source = j.at("source").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("not a calibration (made by an older preflight? rerun "
                                          "`preflight forecast --calibrate`): ") +
                              e.what());
  }
  return c;
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
  const Lines lines = FitLines(points);
  auto [below, above] = OutOfGroupResiduals(points);
  std::vector<double> all = below;
  all.insert(all.end(), above.begin(), above.end());
  Calibration c;
  c.signal = signal;
  for (double r : all) c.held_out_error += r * r / static_cast<double>(all.size());
  c.below = MakePiece(lines.below, std::move(below), all);
  c.above = MakePiece(lines.above, std::move(above), all);
  c.examples = static_cast<int>(points.size());
  c.groups = static_cast<int>(groups.size());
  c.scale = ScaleOf(examples);
  c.source = source;
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
  static const std::vector<std::string> kCandidates = {
      "byte_bigram_gain", "byte_unigram_gain", "ngram4_coverage_gain",
      "classifier_gap",   "classifier_auc",    "byte_pair_coverage"};
  return kCandidates;
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
