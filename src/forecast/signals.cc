#include "forecast/signals.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "select/gumbel.h"
#include "engine/train.h"

namespace preflight::forecast {
namespace {

// Counts of one byte model: unigram counts and, for order 2, bigram counts with the number of
// distinct successors of each byte (Witten-Bell's "types").
struct ByteCounts {
  std::array<double, 256> unigram{};
  double unigram_total = 0;
  std::vector<double> bigram = std::vector<double>(256 * 256, 0.0);
  std::array<double, 256> context_total{}, context_types{};

  explicit ByteCounts(const std::vector<std::string>& docs) {
    for (const std::string& d : docs) {
      for (size_t i = 0; i < d.size(); ++i) {
        const auto b = static_cast<unsigned char>(d[i]);
        unigram[b] += 1;
        if (i == 0) continue;
        const auto a = static_cast<unsigned char>(d[i - 1]);
        double& c = bigram[a * 256u + b];
        if (c == 0) context_types[a] += 1;
        c += 1;
        context_total[a] += 1;
      }
      unigram_total += static_cast<double>(d.size());
    }
  }

  // P(b) with Witten-Bell interpolation to uniform: the 256 byte values are all possible.
  double Unigram(unsigned char b) const {
    double types = 0;
    for (double c : unigram) types += c > 0;
    return (unigram[b] + types / 256.0) / (unigram_total + types);
  }
  double Bigram(unsigned char a, unsigned char b, double lower) const {
    const double n = context_total[a], t = context_types[a];
    if (n == 0) return lower;
    return (bigram[a * 256u + b] + t * lower) / (n + t);
  }
};

}  // namespace

std::vector<double> ByteNgramDocumentBits(const std::vector<std::string>& train,
                                 const std::vector<std::string>& target, int order) {
  const ByteCounts counts(train);
  std::array<double, 256> unigram{};
  for (int b = 0; b < 256; ++b) unigram[b] = counts.Unigram(static_cast<unsigned char>(b));
  std::vector<double> bits(target.size(), 0.0);
  for (size_t d = 0; d < target.size(); ++d) {
    const std::string& text = target[d];
    for (size_t i = 0; i < text.size(); ++i) {
      const auto b = static_cast<unsigned char>(text[i]);
      double p = unigram[b];
      if (order >= 2 && i > 0) p = counts.Bigram(static_cast<unsigned char>(text[i - 1]), b, p);
      bits[d] -= std::log2(p);
    }
  }
  return bits;
}

double ByteNgramBits(const std::vector<std::string>& train, const std::vector<std::string>& target,
                     int order) {
  const std::vector<double> bits = ByteNgramDocumentBits(train, target, order);
  double total = 0, bytes = 0;
  for (size_t d = 0; d < target.size(); ++d) {
    total += bits[d];
    bytes += static_cast<double>(target[d].size());
  }
  return bytes > 0 ? total / bytes : 0;
}

GainEstimate BootstrapGain(const std::vector<double>& saved, const std::vector<double>& bytes,
                           int resamples, double level, uint64_t seed) {
  const size_t n = saved.size();
  auto gain_of = [&](const std::vector<size_t>& docs) {
    double s = 0, b = 0;
    for (size_t d : docs) {
      s += saved[d];
      b += bytes[d];
    }
    return b > 0 ? s / b : 0.0;
  };
  GainEstimate e;
  e.level = level;
  std::vector<size_t> all(n);
  for (size_t d = 0; d < n; ++d) all[d] = d;
  e.gain = gain_of(all);
  e.lo = e.hi = e.gain;
  if (n < 2 || resamples < 1) return e;
  std::vector<double> gains;
  std::vector<size_t> draw(n);
  for (int k = 0; k < resamples; ++k) {
    for (size_t i = 0; i < n; ++i) {
      const double u = select::UniformFor(seed, static_cast<uint64_t>(k) * n + i);
      draw[i] = std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)));
    }
    gains.push_back(gain_of(draw));
  }
  std::sort(gains.begin(), gains.end());
  auto at = [&](double q) {
    return gains[std::min(gains.size() - 1,
                          static_cast<size_t>(q * static_cast<double>(gains.size())))];
  };
  e.lo = at((1 - level) / 2);
  e.hi = at(1 - (1 - level) / 2);
  e.resamples = resamples;
  return e;
}

GainEstimate ByteNgramGain(const std::vector<std::string>& curated,
                           const std::vector<std::string>& random,
                           const std::vector<std::string>& target, int order, int resamples,
                           double level, uint64_t seed) {
  const std::vector<double> c = ByteNgramDocumentBits(curated, target, order);
  const std::vector<double> r = ByteNgramDocumentBits(random, target, order);
  std::vector<double> saved(target.size()), bytes(target.size());
  for (size_t d = 0; d < target.size(); ++d) {
    saved[d] = r[d] - c[d];
    bytes[d] = static_cast<double>(target[d].size());
  }
  return BootstrapGain(saved, bytes, resamples, level, seed);
}

double ByteBigramCoverage(const std::vector<std::string>& arm,
                          const std::vector<std::string>& target) {
  std::vector<bool> seen(256 * 256, false);
  for (const std::string& d : arm) {
    for (size_t i = 1; i < d.size(); ++i) {
      seen[static_cast<unsigned char>(d[i - 1]) * 256u + static_cast<unsigned char>(d[i])] = true;
    }
  }
  double covered = 0, pairs = 0;
  for (const std::string& d : target) {
    for (size_t i = 1; i < d.size(); ++i) {
      covered +=
          seen[static_cast<unsigned char>(d[i - 1]) * 256u + static_cast<unsigned char>(d[i])];
      pairs += 1;
    }
  }
  return pairs > 0 ? covered / pairs : 0;
}

Result<ProxyResult> ProxyGain(const std::vector<std::string>& curated,
                              const std::vector<std::string>& random,
                              const std::vector<std::string>& target, const ProxyOptions& o) {
  if (o.proxy_steps < 1 || o.proxy_steps > o.trial_steps) {
    return Status::InvalidArgument("proxy steps must be in [1, trial steps]");
  }
  engine::TrainOptions t;
  t.model = o.model;
  t.steps = o.trial_steps;  // the trial's schedule (warmup, cosine), stopped early
  t.stop_after_step = o.proxy_steps;
  t.seed = 1;  // the trial's first seed: the proxy's curve is the first steps of its runs
  t.eval_every = std::max<int64_t>(1, o.proxy_steps / std::max<int64_t>(1, o.evals));
  t.eval_max_windows = o.eval_max_windows;
  t.threads = o.threads;
  t.lr = o.lr;
  auto run = [&](const std::vector<std::string>& docs, ProxyRun* out) -> Status {
    PF_ASSIGN_OR_RETURN(engine::TrainResult r, engine::TrainOnDocuments(t, docs, target));
    for (const engine::EvalPoint& p : r.curve) {
      out->steps.push_back(p.step);
      out->bpb.push_back(p.eval_bpb);
    }
    out->core_seconds = r.core_seconds;
    out->train_core_seconds = r.train_core_seconds;
    out->flops = r.flops;
    out->trained_steps = r.steps;
    return Status::Ok();
  };
  ProxyResult result;
  PF_RETURN_IF_ERROR(run(curated, &result.curated));
  PF_RETURN_IF_ERROR(run(random, &result.random));
  // Both runs evaluate at the same steps (same schedule); the lead in the second half is the
  // signal: the first evals mostly show the shared start.
  double sum = 0;
  int n = 0;
  for (size_t i = 0; i < result.curated.steps.size() && i < result.random.steps.size(); ++i) {
    if (2 * result.curated.steps[i] < o.proxy_steps) continue;
    sum += result.random.bpb[i] - result.curated.bpb[i];
    ++n;
  }
  if (n == 0) return Status::Internal("the proxy runs made no eval in their second half");
  result.gain = sum / n;
  result.core_seconds = result.curated.core_seconds + result.random.core_seconds;
  result.flops = result.curated.flops + result.random.flops;
  const int64_t steps = result.curated.trained_steps + result.random.trained_steps;
  result.train_core_seconds_per_step =
      (result.curated.train_core_seconds + result.random.train_core_seconds) /
      static_cast<double>(std::max<int64_t>(1, steps));
  return result;
}

}  // namespace preflight::forecast
