#include "cost/law_fit.h"

#include <lbfgs.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "base/compressed.h"
#include "base/file.h"
#include "base/number_format.h"
#include "ledger/receipt.h"

namespace preflight::cost {
namespace {

using nlohmann::json;
using Theta = std::array<double, 5>;  // a = ln A, b = ln B, e = ln E, alpha, beta
constexpr int kA = 0, kB = 1, kE = 2, kAlpha = 3, kBeta = 4;

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> SplitCommas(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ',')) out.push_back(Trim(field));
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// Parses the whole field as a number; nullopt when it is not one.
std::optional<double> ParseNumber(const std::string& field) {
  if (field.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size()) return std::nullopt;
  return v;
}

Status CheckPoint(const FitPoint& p) {
  const struct {
    const char* name;
    double value;
  } values[] = {{"N", p.params}, {"D", p.tokens}, {"loss", p.loss}};
  for (const auto& [name, value] : values) {
    if (std::isnan(value)) {
      return Status::InvalidArgument(p.where + ": " + name + " is NaN; remove or fix the run");
    }
    if (!std::isfinite(value) || value <= 0) {
      return Status::InvalidArgument(p.where + ": " + name +
                                     " must be a positive finite number (got " +
                                     FormatSci(value, 6) + ")");
    }
  }
  return Status::Ok();
}

// One run's data in log space, precomputed once.
struct LogPoint {
  double log_n, log_d, log_loss;
};

struct Problem {
  const std::vector<LogPoint>* points;
  const std::vector<int>* weights;  // multiplicity of each point (bootstrap); all 1 otherwise
  double delta;
};

// The Huber objective, divided by delta so that its gradient is O(1) per point and
// liblbfgs's relative gradient test is meaningful at delta = 1e-3.
double Objective(const Problem& p, const double* x, double* g) {
  double f = 0;
  double grad[kLawConstants] = {0, 0, 0, 0, 0};
  const double delta = p.delta;
  for (size_t i = 0; i < p.points->size(); ++i) {
    const int w = (*p.weights)[i];
    if (w == 0) continue;
    const LogPoint& q = (*p.points)[i];
    const double u1 = x[kA] - x[kAlpha] * q.log_n;
    const double u2 = x[kB] - x[kBeta] * q.log_d;
    const double u3 = x[kE];
    const double m = std::max({u1, u2, u3});
    const double e1 = std::exp(u1 - m), e2 = std::exp(u2 - m), e3 = std::exp(u3 - m);
    const double sum = e1 + e2 + e3;
    const double r = m + std::log(sum) - q.log_loss;  // ln(predicted) - ln(observed)
    double h, dh;
    if (std::fabs(r) <= delta) {
      h = 0.5 * r * r / delta;
      dh = r / delta;
    } else {
      h = std::fabs(r) - 0.5 * delta;
      dh = r > 0 ? 1 : -1;
    }
    f += w * h;
    const double s = w * dh / sum;  // d(LSE)/du_k = e_k / sum
    grad[kA] += s * e1;
    grad[kAlpha] -= s * e1 * q.log_n;
    grad[kB] += s * e2;
    grad[kBeta] -= s * e2 * q.log_d;
    grad[kE] += s * e3;
  }
  if (g) std::copy(grad, grad + kLawConstants, g);
  return f;
}

lbfgsfloatval_t Evaluate(void* instance, const lbfgsfloatval_t* x, lbfgsfloatval_t* g, int,
                         lbfgsfloatval_t) {
  return Objective(*static_cast<const Problem*>(instance), x, g);
}

struct EndPoint {
  Theta theta;
  double value;
};

// L-BFGS from `start`. liblbfgs may stop with a line-search status (rounding errors near a
// flat optimum are common with Huber); the point it stops at is still a valid candidate, so
// every outcome is kept and the best value across starts decides.
EndPoint Minimise(const Problem& problem, const Theta& start) {
  lbfgs_parameter_t param;
  lbfgs_parameter_init(&param);
  param.epsilon = 1e-8;
  param.max_iterations = 500;
  lbfgsfloatval_t* x = lbfgs_malloc(kLawConstants);
  std::copy(start.begin(), start.end(), x);
  lbfgsfloatval_t fx = 0;
  lbfgs(kLawConstants, x, &fx, Evaluate, nullptr, const_cast<Problem*>(&problem), &param);
  EndPoint out;
  std::copy(x, x + kLawConstants, out.theta.begin());
  // Recompute rather than trust fx: on some error paths liblbfgs leaves it unset.
  out.value = Objective(problem, x, nullptr);
  lbfgs_free(x);
  if (!std::isfinite(out.value)) out.value = std::numeric_limits<double>::infinity();
  return out;
}

std::vector<Theta> HoffmannGrid() {
  std::vector<Theta> grid;
  for (int ai = 0; ai <= 5; ++ai)
    for (int bi = 0; bi <= 5; ++bi)
      for (int ei = 0; ei <= 4; ++ei)
        for (int alpha_i = 0; alpha_i <= 4; ++alpha_i)
          for (int beta_i = 0; beta_i <= 4; ++beta_i)
            grid.push_back({5.0 * ai, 5.0 * bi, -1 + 0.5 * ei, 0.5 * alpha_i, 0.5 * beta_i});
  return grid;
}

// Sorted by value, ties broken by start order so that the result never depends on threads.
std::vector<EndPoint> MinimiseFromAll(const Problem& problem, const std::vector<Theta>& starts) {
  std::vector<EndPoint> ends(starts.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t i = 0; i < starts.size(); ++i) ends[i] = Minimise(problem, starts[i]);
  std::vector<size_t> order(ends.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return ends[x].value < ends[y].value; });
  std::vector<EndPoint> sorted;
  for (size_t i : order) sorted.push_back(ends[i]);
  return sorted;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * (v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

LossLaw LawFromTheta(const Theta& t) {
  LossLaw law;
  law.name = "fitted";
  law.citation = "fitted by preflight fit (Huber on log-loss, L-BFGS from Hoffmann's grid)";
  law.A = std::exp(t[kA]);
  law.B = std::exp(t[kB]);
  law.E = std::exp(t[kE]);
  law.alpha = t[kAlpha];
  law.beta = t[kBeta];
  return law;
}

}  // namespace

Result<std::vector<FitPoint>> ReadFitCsv(const std::string& path) {
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  std::vector<FitPoint> points;
  int col_n = 0, col_d = 1, col_loss = 2;
  bool first_content = true;
  std::stringstream in(text);
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = SplitCommas(line);
    const std::string where = path + ":" + std::to_string(line_no);
    if (first_content) {
      first_content = false;
      if (!ParseNumber(fields[0])) {  // a header: find the columns by name
        col_n = col_d = col_loss = -1;
        for (int i = 0; i < static_cast<int>(fields.size()); ++i) {
          std::string name = Lower(fields[i]);
          if (name == "n" || name == "params" || name == "parameters") col_n = i;
          if (name == "d" || name == "tokens" || name == "data") col_d = i;
          if (name == "loss" || name == "l") col_loss = i;
        }
        if (col_n < 0 || col_d < 0 || col_loss < 0) {
          return Status::InvalidArgument(
              where +
              ": the header must name columns N (or params), D (or tokens) and loss; "
              "got '" +
              line + "'");
        }
        continue;
      }
    }
    int needed = std::max({col_n, col_d, col_loss}) + 1;
    if (static_cast<int>(fields.size()) < needed) {
      return Status::InvalidArgument(where + ": expected " + std::to_string(needed) +
                                     " comma-separated values (N, D, loss), got " +
                                     std::to_string(fields.size()));
    }
    FitPoint p;
    p.where = where;
    const struct {
      int col;
      double* dest;
      const char* name;
    } columns[] = {{col_n, &p.params, "N"}, {col_d, &p.tokens, "D"}, {col_loss, &p.loss, "loss"}};
    for (const auto& c : columns) {
      std::optional<double> v = ParseNumber(fields[c.col]);
      if (!v) {
        return Status::InvalidArgument(where + ": " + c.name + " '" + fields[c.col] +
                                       "' is not a number");
      }
      *c.dest = *v;
    }
    PF_RETURN_IF_ERROR(CheckPoint(p));
    points.push_back(p);
  }
  return points;
}

Result<std::vector<FitPoint>> ReadFitLedger(const std::string& path, LedgerScan* scan) {
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileDecompressed(path));  // .gz, .zst read too
  LedgerScan local;
  std::vector<FitPoint> points;
  std::stringstream in(text);
  std::string line;
  int line_no = 0;
  auto number_at = [](const json& obj, std::initializer_list<const char*> keys) -> double {
    const json* cur = &obj;
    for (const char* k : keys) {
      if (!cur->is_object() || !cur->contains(k)) return std::nan("");
      cur = &(*cur)[k];
    }
    return cur->is_number() ? cur->get<double>() : std::nan("");
  };
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  while (std::getline(in, line)) {
    ++line_no;
    if (Trim(line).empty()) continue;
    ++local.lines;
    json receipt = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (receipt.is_discarded() || !receipt.is_object()) {
      return Status::Corruption(path + ":" + std::to_string(line_no) +
                                ": not a JSON object (is this a ledger? see `preflight ledger "
                                "verify`)");
    }
    const std::optional<ledger::ReceiptKind> kind = ledger::KindOf(receipt);
    if ((kind != ledger::ReceiptKind::kTrial && kind != ledger::ReceiptKind::kTrain) ||
        !receipt.contains("result") || !receipt["result"].is_object()) {
      continue;
    }
    const json& result = receipt["result"];
    std::vector<const json*> runs;
    if (result.contains("runs") && result["runs"].is_array()) {
      for (const json& r : result["runs"]) runs.push_back(&r);
    } else {
      runs.push_back(&result);
    }
    bool used = false;
    for (size_t i = 0; i < runs.size(); ++i) {
      const json& r = *runs[i];
      FitPoint p;
      p.params = number_at(r, {"params"});
      if (!positive(p.params)) p.params = number_at(r, {"model", "params"});
      p.tokens = number_at(r, {"tokens"});
      p.loss = number_at(r, {"loss"});
      if (!positive(p.loss)) p.loss = number_at(r, {"final_eval_loss"});
      if (!positive(p.loss)) p.loss = number_at(r, {"final_eval_bpb"});
      if (!positive(p.params) || !positive(p.tokens) || !positive(p.loss)) {
        ++local.objects_skipped;
        continue;
      }
      p.where = path + ":" + std::to_string(line_no) +
                (runs.size() > 1 ? " run " + std::to_string(i) : "");
      points.push_back(p);
      used = true;
    }
    if (used) ++local.receipts_used;
  }
  if (scan) *scan = local;
  return points;
}

Result<FitResult> FitLossLaw(const std::vector<FitPoint>& points, const FitOptions& options) {
  for (const FitPoint& p : points) PF_RETURN_IF_ERROR(CheckPoint(p));
  if (static_cast<int>(points.size()) < kLawConstants) {
    return Status::InvalidArgument("a fit needs at least " + std::to_string(kLawConstants) +
                                   " runs (one per constant: E, A, B, alpha, beta); got " +
                                   std::to_string(points.size()) +
                                   ". Add runs at more model sizes and token counts.");
  }
  if (!(options.huber_delta > 0) || options.bootstrap < 0) {
    return Status::InvalidArgument("--delta must be positive and --bootstrap >= 0");
  }
  std::vector<LogPoint> logs;
  for (const FitPoint& p : points) {
    logs.push_back({std::log(p.params), std::log(p.tokens), std::log(p.loss)});
  }
  std::vector<int> ones(points.size(), 1);
  Problem full{&logs, &ones, options.huber_delta};
  const std::vector<Theta> grid = HoffmannGrid();
  std::vector<EndPoint> ends = MinimiseFromAll(full, grid);
  const EndPoint& best = ends.front();

  FitResult out;
  out.law = LawFromTheta(best.theta);
  out.objective = best.value * options.huber_delta;  // undo the 1/delta scaling
  out.points = static_cast<int>(points.size());
  out.starts = static_cast<int>(grid.size());
  double sq = 0;
  for (const FitPoint& p : points) {
    double r = std::log(out.law.Loss(p.params, p.tokens)) - std::log(p.loss);
    sq += r * r;
  }
  out.rms_log_error = std::sqrt(sq / points.size());

  // Warm starts for the bootstrap: the best distinct end points of the full fit.
  std::vector<Theta> warm;
  for (const EndPoint& e : ends) {
    bool distinct = true;
    for (const Theta& t : warm) {
      double diff = 0;
      for (int k = 0; k < kLawConstants; ++k) diff = std::max(diff, std::fabs(t[k] - e.theta[k]));
      if (diff < 1e-3) distinct = false;
    }
    if (distinct && std::isfinite(e.value)) warm.push_back(e.theta);
    if (warm.size() == 8) break;
  }

  auto exponent = [](const LossLaw& l) { return l.beta / (l.alpha + l.beta); };
  std::vector<double> es, as, bs, alphas, betas, exps;
  std::mt19937_64 rng(options.seed);
  for (int r = 0; r < options.bootstrap; ++r) {
    std::vector<int> weights(points.size(), 0);
    for (size_t i = 0; i < points.size(); ++i) ++weights[rng() % points.size()];
    Problem resample{&logs, &weights, options.huber_delta};
    std::vector<EndPoint> fits = MinimiseFromAll(resample, warm);
    LossLaw law = LawFromTheta(fits.front().theta);
    es.push_back(law.E), as.push_back(law.A), bs.push_back(law.B);
    alphas.push_back(law.alpha), betas.push_back(law.beta), exps.push_back(exponent(law));
  }
  out.bootstrap = options.bootstrap;
  auto interval = [&](const std::vector<double>& v, double point) -> Interval {
    if (v.empty()) return {point, point};
    return {Percentile(v, 0.025), Percentile(v, 0.975)};
  };
  out.E = interval(es, out.law.E);
  out.A = interval(as, out.law.A);
  out.B = interval(bs, out.law.B);
  out.alpha = interval(alphas, out.law.alpha);
  out.beta = interval(betas, out.law.beta);
  out.optimal_params_exponent = interval(exps, exponent(out.law));
  return out;
}

}  // namespace preflight::cost
