#include "forecast/cross_fit.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "base/clock.h"
#include "base/file.h"
#include "corpus/scanner.h"
#include "forecast/arm_reader.h"
#include "forecast/pool_signals.h"
#include "forecast/signals.h"
#include "select/batch.h"
#include "select/selector.h"

namespace preflight::forecast {
namespace {

constexpr size_t kPieceBytes = 4096;
constexpr size_t kMinDocuments = 4;
constexpr double kZ80 = 1.2815515655446004;  // the normal's 90th percentile

uint64_t PathBytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return fs::file_size(path, ec);
  uint64_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
    if (entry.is_regular_file(ec)) total += entry.file_size(ec);
  }
  return total;
}

Status WriteTexts(const std::string& path, const std::vector<std::string>& texts) {
  std::string out;
  for (size_t k = 0; k < texts.size(); ++k) {
    out += nlohmann::json{{"id", fmt::format("half-{}", k)}, {"text", texts[k]}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  return WriteFileAtomically(path, out);
}

// The pool the two selections read: the pool itself, or at most kMaxPoolBytes of its lines,
// evenly spread, written under the work folder.
Result<std::vector<std::string>> SelectionPool(const CrossFitOptions& o) {
  uint64_t bytes = 0;
  for (const std::string& p : o.spec.pool) bytes += PathBytes(p);
  if (bytes <= kMaxPoolBytes) return o.spec.pool;
  const double r = static_cast<double>(kMaxPoolBytes) / static_cast<double>(bytes);
  corpus::ReadOptions read;
  read.text_field = o.spec.text_field;
  std::string sample;
  uint64_t k = 0;
  PF_RETURN_IF_ERROR(corpus::ScanLines(o.spec.pool, read, [&](const corpus::Record& rec) -> Status {
    const double at = static_cast<double>(k++);
    if (std::floor((at + 1) * r) > std::floor(at * r)) {
      sample.append(rec.line);
      sample += '\n';
    }
    return Status::Ok();
  }));
  const std::string path = JoinPath(o.work_dir, "xfit-pool.jsonl");
  PF_RETURN_IF_ERROR(WriteFileAtomically(path, sample));
  return std::vector<std::string>{path};
}

// The pool's quarters selected with each half, as one batch, read as the other signals read an
// arm; `passes_read`: how often the batch read each pool input (the manifests' cost.passes).
Result<std::vector<std::vector<std::string>>> SelectWithHalves(
    const CrossFitOptions& o, const std::vector<std::string>& pool,
    const std::vector<std::string>& half_paths, nlohmann::json* passes_read) {
  std::vector<select::SelectionRequest> requests;
  for (size_t h = 0; h < half_paths.size(); ++h) {
    select::SelectOptions s;
    s.selector = o.spec.selector;
    s.keep = o.spec.keep;
    s.seed = o.spec.selection_seed;
    s.threads = o.spec.threads;
    s.out_path = JoinPath(o.work_dir, fmt::format("xfit-curated-{}.jsonl", h));
    s.read.text_field = o.spec.text_field;
    s.id_field = o.spec.id_field;
    s.target_text_field = "text";
    s.target_id_field = "id";
    requests.push_back({{half_paths[h]}, s});
  }
  const select::PreparedInputs* passes = pool == o.spec.pool ? o.passes : nullptr;
  PF_ASSIGN_OR_RETURN(std::vector<select::SelectionResult> made,
                      select::RunSelections(pool, requests, {}, nullptr, passes));
  *passes_read = made.front().manifest["cost"]["passes"];
  std::vector<std::vector<std::string>> arms;
  for (const select::SelectionRequest& r : requests) {
    PF_ASSIGN_OR_RETURN(std::vector<std::string> arm,
                        ReadSample(r.options.out_path, o.spec.text_field, o.signal_bytes));
    arms.push_back(std::move(arm));
  }
  return arms;
}

std::vector<std::string> Concat(const std::vector<std::string>& a,
                                const std::vector<std::string>& b) {
  std::vector<std::string> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

ArmCurve ConcatCurves(const ArmCurve& a, const ArmCurve& b) {
  ArmCurve out = a;
  for (size_t p = 0; p < out.bits.size(); ++p) {
    out.bits[p].insert(out.bits[p].end(), b.bits[p].begin(), b.bits[p].end());
  }
  out.tokens.insert(out.tokens.end(), b.tokens.begin(), b.tokens.end());
  return out;
}

// xfit_bigram_gain: each half's documents under the quarter the other half selected.
SignalValue CrossFitBigram(const std::vector<std::vector<std::string>>& arms,
                           const std::vector<std::string>& random,
                           const std::vector<std::vector<std::string>>& halves) {
  std::vector<double> saved, bytes;
  for (int h = 0; h < 2; ++h) {
    const std::vector<std::string>& judged = halves[1 - h];
    const std::vector<double> c = ByteNgramDocumentBits(arms[h], judged, 2);
    const std::vector<double> r = ByteNgramDocumentBits(random, judged, 2);
    for (size_t d = 0; d < judged.size(); ++d) {
      saved.push_back(r[d] - c[d]);
      bytes.push_back(static_cast<double>(judged[d].size()));
    }
  }
  const GainEstimate g = BootstrapGain(saved, bytes);
  return {g.gain, g.lo, g.hi};
}

// The two halves' document-level target-like gains, averaged; their errors combined.
std::pair<SignalValue, SignalValue> CrossFitTargetLike(
    const std::vector<std::vector<std::string>>& arms, const std::vector<std::string>& random,
    const std::vector<std::vector<std::string>>& halves) {
  double gain = 0, share = 0, variance = 0;
  for (int h = 0; h < 2; ++h) {
    const TargetLike t = TargetLikeShare(halves[1 - h], arms[h], random, SIZE_MAX);
    gain += t.gain / 2;
    share += t.curated / 2;
    const double se = (t.hi - t.lo) / (2 * kZ80);
    variance += se * se / 4;
  }
  const double half_width = kZ80 * std::sqrt(variance);
  return {{gain, gain - half_width, gain + half_width}, {share, share, share}};
}

// The curves and the document-level target-like share (CrossFitOptions::curve_signals).
void CurveSignalsInto(const CrossFitOptions& o, const std::vector<std::vector<std::string>>& arms,
                      const std::vector<std::string>& random,
                      const std::vector<std::vector<std::string>>& halves, CrossFitResult& out) {
  const ArmCurve curated = ConcatCurves(FitArmCurve(arms[0], halves[1], o.schedule),
                                        FitArmCurve(arms[1], halves[0], o.schedule));
  const ArmCurve random_curve = FitArmCurve(random, Concat(halves[1], halves[0]), o.schedule);
  const CurveSignals curve = CompareCurves(curated, random_curve);
  out.signals["ngram_curve_gain"] = {curve.gain.gain, curve.gain.lo, curve.gain.hi};
  out.signals["ngram_curve_saving"] = {curve.saving.gain, curve.saving.lo, curve.saving.hi};
  std::tie(out.signals["xfit_target_like_gain"], out.signals["xfit_target_like_share"]) =
      CrossFitTargetLike(arms, random, halves);
  out.evidence["ngram_curve"] = {{"order", o.schedule.order},
                                 {"tokens_seen", curve.tokens_seen},
                                 {"curated_bpb", curve.curated_bpb},
                                 {"random_bpb", curve.random_bpb}};
}

}  // namespace

std::vector<std::vector<std::string>> SplitHalves(const std::vector<std::string>& target) {
  std::vector<std::string> pieces;
  if (target.size() >= kMinDocuments) {
    pieces = target;
  } else {
    for (const std::string& d : target) {
      for (size_t at = 0; at < d.size(); at += kPieceBytes) {
        pieces.push_back(d.substr(at, kPieceBytes));
      }
    }
  }
  std::vector<std::vector<std::string>> halves(2);
  for (size_t d = 0; d < pieces.size(); ++d) halves[d % 2].push_back(std::move(pieces[d]));
  return halves;
}

Result<CrossFitResult> CrossFitSignals(const CrossFitOptions& o,
                                       const std::vector<std::string>& target,
                                       const std::vector<std::string>& random) {
  const std::vector<std::vector<std::string>> halves = SplitHalves(target);
  if (halves[0].empty() || halves[1].empty()) {
    return Status::InvalidArgument(
        "the target's selectable part is too short to split in two for the cross-fitted signals");
  }
  CostMeter meter;
  CrossFitResult out;
  PF_ASSIGN_OR_RETURN(std::vector<std::string> pool, SelectionPool(o));
  std::vector<std::string> half_paths;
  for (int h = 0; h < 2; ++h) {
    half_paths.push_back(JoinPath(o.work_dir, fmt::format("xfit-half-{}.jsonl", h)));
    PF_RETURN_IF_ERROR(WriteTexts(half_paths.back(), halves[h]));
  }
  nlohmann::json passes;
  PF_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> arms,
                      SelectWithHalves(o, pool, half_paths, &passes));
  out.selection_core_seconds = meter.core_seconds();
  out.signals["xfit_bigram_gain"] = CrossFitBigram(arms, random, halves);
  out.evidence = {{"halves", {halves[0].size(), halves[1].size()}},
                  {"signal_docs", {arms[0].size(), arms[1].size()}},
                  {"selection_core_seconds", out.selection_core_seconds},
                  {"pool_passes", passes}};
  if (o.curve_signals) CurveSignalsInto(o, arms, random, halves, out);
  return out;
}

}  // namespace preflight::forecast
