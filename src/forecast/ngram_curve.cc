#include "forecast/ngram_curve.h"

#include <algorithm>
#include <cmath>

#include "engine/data.h"
#include "select/gumbel.h"
#include "trial/byte_ngram.h"

namespace preflight::forecast {
namespace {

constexpr uint16_t kBoundary = 256;  // engine::Tokenize's document boundary

// The windows a run of the schedule reads, in order, each preceded by the boundary token.
std::vector<uint16_t> ScheduledWindows(const std::vector<uint16_t>& stream,
                                       const NgramSchedule& s) {
  const int64_t span = s.context + 1;
  const int64_t windows = s.steps * s.batch;
  std::vector<uint16_t> out;
  out.reserve(static_cast<size_t>(windows * (span + 1)));
  const int64_t n = static_cast<int64_t>(stream.size());
  for (int64_t w = 0; w < windows; ++w) {
    int64_t start = 0, len = std::min(span, n);
    if (n > span) {
      const double u = select::UniformFor(s.seed, static_cast<uint64_t>(w));
      start = std::min(n - span, static_cast<int64_t>(u * static_cast<double>(n - span + 1)));
    }
    out.push_back(kBoundary);
    out.insert(out.end(), stream.begin() + start, stream.begin() + start + len);
  }
  return out;
}

// Bits of each document's first max_doc_tokens bytes under `model`, at its top order.
void ScoreDocuments(const trial::ByteNgramModel& model, const std::vector<std::vector<uint16_t>>& docs,
                    int64_t max_tokens, std::vector<double>* bits) {
  double p[trial::kMaxNgramOrder + 1];
  const int order = model.order();
  bits->assign(docs.size(), 0.0);
  for (size_t d = 0; d < docs.size(); ++d) {
    const std::vector<uint16_t>& s = docs[d];  // [boundary, bytes...]
    const int64_t last = std::min<int64_t>(static_cast<int64_t>(s.size()) - 1, max_tokens);
    for (int64_t i = 1; i <= last; ++i) {
      const int64_t context = std::min<int64_t>(i, order - 1);
      model.Probabilities(s.data() + i - context, static_cast<int>(context), s[i], p);
      (*bits)[d] -= std::log2(p[order]);
    }
  }
}

}  // namespace

ArmCurve FitArmCurve(const std::vector<std::string>& arm, const std::vector<std::string>& docs,
                     const NgramSchedule& s) {
  ArmCurve curve;
  std::vector<std::vector<uint16_t>> streams;
  for (const std::string& d : docs) {
    streams.push_back(engine::Tokenize({d}));
    curve.tokens.push_back(
        static_cast<double>(std::min<int64_t>(static_cast<int64_t>(d.size()), s.max_doc_tokens)));
  }
  const std::vector<uint16_t> read = ScheduledWindows(engine::Tokenize(arm), s);
  const int64_t per_step = static_cast<int64_t>(read.size()) / std::max<int64_t>(1, s.steps);
  for (int j = std::max(1, s.points) - 1; j >= 0; --j) {
    const int64_t steps = std::max<int64_t>(1, s.steps >> j);
    const auto end = read.begin() + std::min<int64_t>(steps * per_step, read.size());
    const trial::ByteNgramModel model(std::vector<uint16_t>(read.begin(), end), s.order);
    curve.tokens_seen.push_back(static_cast<double>(end - read.begin()));
    curve.bits.emplace_back();
    ScoreDocuments(model, streams, s.max_doc_tokens, &curve.bits.back());
  }
  return curve;
}

double CurveSaving(const std::vector<double>& tokens_seen, const std::vector<double>& curated_bpb,
                   const std::vector<double>& random_bpb) {
  // Point 0: no training token, the uniform model over the 257 symbols, for both arms.
  std::vector<double> t = {0}, c = {std::log2(257.0)}, r = {std::log2(257.0)};
  t.insert(t.end(), tokens_seen.begin(), tokens_seen.end());
  c.insert(c.end(), curated_bpb.begin(), curated_bpb.end());
  r.insert(r.end(), random_bpb.begin(), random_bpb.end());
  const size_t best = static_cast<size_t>(std::min_element(r.begin(), r.end()) - r.begin());
  if (t[best] <= 0) return 0;  // the random arm's model never improved: nothing to reach
  const double target = r[best];
  for (size_t p = 1; p < t.size(); ++p) {
    if (c[p] > target) continue;
    const double at = c[p - 1] > c[p] ? (c[p - 1] - target) / (c[p - 1] - c[p]) : 1.0;
    const double tokens = t[p - 1] + std::clamp(at, 0.0, 1.0) * (t[p] - t[p - 1]);
    return std::clamp(1 - tokens / t[best], -1.0, 1.0);
  }
  return -1;  // never reached within the budget
}

namespace {

struct CurvePair {
  std::vector<double> curated, random;
};

// Both curves (bits per byte per point) over the documents `pick` (indices, repeats allowed).
CurvePair Curves(const ArmCurve& c, const ArmCurve& r, const std::vector<size_t>& pick) {
  CurvePair out;
  for (size_t p = 0; p < c.bits.size(); ++p) {
    double cb = 0, rb = 0, n = 0;
    for (size_t d : pick) {
      cb += c.bits[p][d];
      rb += r.bits[p][d];
      n += c.tokens[d];
    }
    out.curated.push_back(n > 0 ? cb / n : 0);
    out.random.push_back(n > 0 ? rb / n : 0);
  }
  return out;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

}  // namespace

CurveSignals CompareCurves(const ArmCurve& curated, const ArmCurve& random, int resamples,
                           double level, uint64_t seed) {
  CurveSignals out;
  out.tokens_seen = random.tokens_seen;
  const size_t n = curated.tokens.size();
  std::vector<size_t> all(n);
  for (size_t d = 0; d < n; ++d) all[d] = d;
  const CurvePair whole = Curves(curated, random, all);
  out.curated_bpb = whole.curated;
  out.random_bpb = whole.random;
  auto gain_of = [](const CurvePair& c) {
    return c.random.empty() ? 0.0 : c.random.back() - c.curated.back();
  };
  out.gain = {gain_of(whole), 0, 0, level, 0};
  out.saving = {CurveSaving(out.tokens_seen, whole.curated, whole.random), 0, 0, level, 0};
  out.gain.lo = out.gain.hi = out.gain.gain;
  out.saving.lo = out.saving.hi = out.saving.gain;
  if (n < 2 || resamples < 1 || curated.bits.empty()) return out;
  std::vector<double> gains, savings;
  std::vector<size_t> draw(n);
  for (int k = 0; k < resamples; ++k) {
    for (size_t i = 0; i < n; ++i) {
      const double u = select::UniformFor(seed, static_cast<uint64_t>(k) * n + i);
      draw[i] = std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)));
    }
    const CurvePair c = Curves(curated, random, draw);
    gains.push_back(gain_of(c));
    savings.push_back(CurveSaving(out.tokens_seen, c.curated, c.random));
  }
  const double tail = (1 - level) / 2;
  out.gain.lo = Percentile(gains, tail);
  out.gain.hi = Percentile(gains, 1 - tail);
  out.saving.lo = Percentile(savings, tail);
  out.saving.hi = Percentile(savings, 1 - tail);
  out.gain.resamples = out.saving.resamples = resamples;
  return out;
}

}  // namespace preflight::forecast
