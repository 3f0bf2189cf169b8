#include "select/selector.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "base/clock.h"
#include "base/file.h"
#include "base/sha256.h"
#include "corpus/scanner.h"
#include "select/gumbel.h"

namespace preflight::select {
namespace {

using corpus::Record;
using corpus::ScanSummary;

// What selection keeps of each pool record: O(records), never O(bytes).
struct PoolIndex {
  std::vector<uint64_t> bytes;  // Text bytes of the record (0 if invalid).
  std::vector<uint8_t> valid;   // 1 for a document, 0 for a skipped bad line.
  std::vector<double> score;    // Selector's score (log weight, probability), if any.
  void Resize(uint64_t n) {
    if (bytes.size() < n) {
      bytes.resize(n, 0);
      valid.resize(n, 0);
    }
  }
};

nlohmann::json InputsJson(const ScanSummary& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& in : s.inputs) {
    out.push_back({{"path", in.path},
                   {"sha256", in.sha256},
                   {"docs", in.docs},
                   {"bytes", in.text_bytes},
                   {"file_bytes", in.file_bytes},
                   {"bad_lines", in.bad}});
  }
  return out;
}

// Scans the target: feature counts (dsir) or texts (classifier).
Result<ScanSummary> ScanTarget(const std::vector<std::string>& target, const SelectOptions& o,
                               std::vector<uint64_t>* counts, std::vector<std::string>* texts,
                               const StageProgress& progress) {
  const int threads = std::max(1, o.threads);
  std::vector<std::vector<uint64_t>> per_thread;
  if (counts) per_thread.assign(threads, std::vector<uint64_t>(o.dsir.buckets, 0));
  std::vector<std::pair<uint64_t, std::string>> collected;
  std::mutex mu;
  auto summary = corpus::ScanDocuments(
      target, o.read,
      [&](int t, const Record& r, std::string_view text) {
        if (counts) CountFeatures(text, o.dsir, per_thread[t].data());
        if (texts) {
          std::lock_guard<std::mutex> lock(mu);
          collected.emplace_back(r.index, std::string(text));
        }
      },
      [&](uint64_t done, uint64_t total) {
        if (progress) progress("target", done, total);
      });
  if (!summary.ok()) return summary.status();
  if (summary->docs == 0) {
    return Status::InvalidArgument(
        "the target has no documents (" +
        (target.empty() ? std::string("no --target given") : target.front()) + ")");
  }
  if (counts) *counts = SumCounts(per_thread, o.dsir.buckets);
  if (texts) {
    std::sort(collected.begin(), collected.end());
    for (auto& [i, t] : collected) texts->push_back(std::move(t));
  }
  return summary;
}

}  // namespace

const std::vector<std::string>& SelectorNames() {
  static const std::vector<std::string> kNames = {"random", "first", "dsir", "classifier"};
  return kNames;
}

Status SelectOptions::Validate() const {
  const auto& names = SelectorNames();
  if (std::find(names.begin(), names.end(), selector) == names.end()) {
    return Status::InvalidArgument("unknown selector '" + selector +
                                   "' (choose random, first, dsir or classifier)");
  }
  if (!(keep > 0 && keep <= 1)) {
    return Status::InvalidArgument("--keep must be in (0, 1], got " + nlohmann::json(keep).dump());
  }
  if (threads < 1) return Status::InvalidArgument("--threads must be at least 1");
  if (out_path.empty()) return Status::InvalidArgument("--out is required");
  if (selector == "dsir") PF_RETURN_IF_ERROR(dsir.Validate());
  if (selector == "classifier") PF_RETURN_IF_ERROR(classifier.Validate());
  return Status::Ok();
}

Result<SelectionResult> RunSelection(const std::vector<std::string>& pool,
                                     const std::vector<std::string>& target, const SelectOptions& o,
                                     const StageProgress& progress) {
  PF_RETURN_IF_ERROR(o.Validate());
  if (pool.empty()) return Status::InvalidArgument("no --pool given");
  const bool needs_target = o.selector == "dsir" || o.selector == "classifier";
  if (needs_target && target.empty()) {
    return Status::InvalidArgument("--target is required for the " + o.selector + " selector");
  }
  CostMeter meter;
  const int threads = std::max(1, o.threads);
  const std::string manifest_path =
      o.manifest_path.empty() ? o.out_path + ".manifest.json" : o.manifest_path;

  // Open the outputs first: an unwritable path fails before any work, and nothing is left behind.
  AtomicFile out, manifest_file;
  if (Status st = out.Open(o.out_path); !st.ok()) return Status::InvalidArgument(st.message());
  if (Status st = manifest_file.Open(manifest_path); !st.ok())
    return Status::InvalidArgument(st.message());

  // Target first (small): it is what the dsir pool pass is compared against.
  std::vector<uint64_t> target_counts;
  std::vector<std::string> target_texts;
  ScanSummary target_summary;
  if (needs_target) {
    PF_ASSIGN_OR_RETURN(target_summary,
                        ScanTarget(target, o, o.selector == "dsir" ? &target_counts : nullptr,
                                   o.selector == "classifier" ? &target_texts : nullptr, progress));
  }

  // Pass 1 over the pool: bytes per record, and for dsir the pool's feature counts.
  PoolIndex index;
  std::vector<std::vector<uint64_t>> pool_counts_by_thread;
  if (o.selector == "dsir")
    pool_counts_by_thread.assign(threads, std::vector<uint64_t>(o.dsir.buckets, 0));
  PF_ASSIGN_OR_RETURN(ScanSummary pool_summary,
                      corpus::ScanDocuments(
                          pool, o.read,
                          [&](int t, const Record& r, std::string_view text) {
                            index.bytes[r.index] = text.size();
                            index.valid[r.index] = 1;
                            if (o.selector == "dsir")
                              CountFeatures(text, o.dsir, pool_counts_by_thread[t].data());
                          },
                          [&](uint64_t d, uint64_t n) {
                            if (progress) progress("pool", d, n);
                          },
                          [&](uint64_t records) { index.Resize(records); }));
  index.Resize(pool_summary.records);
  if (pool_summary.docs == 0) {
    return Status::InvalidArgument("the pool has no documents (" + pool.front() + ")");
  }
  const uint64_t n = pool_summary.records;
  const uint64_t budget =
      static_cast<uint64_t>(std::ceil(o.keep * static_cast<double>(pool_summary.text_bytes)));

  nlohmann::json params = nlohmann::json::object();
  std::vector<Candidate> candidates;
  candidates.reserve(pool_summary.docs);

  if (o.selector == "random" || o.selector == "first") {
    for (uint64_t i = 0; i < n; ++i) {
      if (!index.valid[i]) continue;
      double key = o.selector == "random" ? GumbelFor(o.seed, i) : -static_cast<double>(i);
      candidates.push_back({i, key, index.bytes[i]});
    }
  } else {
    std::vector<double> score(n, 0.0);
    std::function<double(std::string_view)> scorer;
    std::optional<DsirModel> dsir_model;
    std::optional<Classifier> classifier;
    if (o.selector == "dsir") {
      std::vector<uint64_t> pool_counts = SumCounts(pool_counts_by_thread, o.dsir.buckets);
      PF_ASSIGN_OR_RETURN(DsirModel model, DsirModel::Fit(target_counts, pool_counts, o.dsir));
      dsir_model = std::move(model);
      params = {{"buckets", o.dsir.buckets},
                {"ngrams", o.dsir.ngrams},
                {"smoothing", o.dsir.smoothing},
                {"length", o.dsir.length},
                {"reference_features", o.dsir.reference_features},
                {"tokenizer", "ascii-lowercase wordpunct"},
                {"hash", "fnv1a-64+splitmix64, bigram splitmix"}};
    } else {
      // Negatives: a uniform sample of the pool, by bytes, with the selection seed.
      std::vector<Candidate> uniform;
      for (uint64_t i = 0; i < n; ++i)
        if (index.valid[i])
          uniform.push_back({i, GumbelFor(o.seed ^ 0x6e656761ull, i), index.bytes[i]});
      uint64_t neg_budget =
          static_cast<uint64_t>(o.classifier.negative_ratio * target_summary.text_bytes);
      std::vector<uint64_t> neg_ids = TakeByBudget(std::move(uniform), neg_budget);
      std::vector<uint8_t> is_neg(n, 0);
      for (uint64_t i : neg_ids) is_neg[i] = 1;
      std::vector<std::pair<uint64_t, std::string>> negs;
      std::mutex mu;
      PF_RETURN_IF_ERROR(
          corpus::ScanDocuments(pool, o.read, [&](int, const Record& r, std::string_view text) {
            if (!is_neg[r.index]) return;
            std::lock_guard<std::mutex> lock(mu);
            negs.emplace_back(r.index, std::string(text));
          }).status());
      std::sort(negs.begin(), negs.end());
      std::vector<std::string> neg_texts;
      uint64_t neg_bytes = 0;
      for (auto& [i, t] : negs) {
        neg_bytes += t.size();
        neg_texts.push_back(std::move(t));
      }
      PF_ASSIGN_OR_RETURN(Classifier model, Classifier::Train(target_texts, neg_texts, o.classifier,
                                                              o.seed, DirName(o.out_path)));
      classifier = std::move(model);
      params = o.classifier.ToJson();
      params["training"] = {
          {"positives_docs", target_texts.size()},
          {"positives_bytes", target_summary.text_bytes},
          {"negatives_docs", neg_texts.size()},
          {"negatives_bytes", neg_bytes},
          {"negatives", "uniform sample of the pool by bytes (Gumbel keys, seed ^ 0x6e656761)"}};
    }
    // Pass 2: score every pool document.
    PF_RETURN_IF_ERROR(corpus::ScanDocuments(
                           pool, o.read,
                           [&](int, const Record& r, std::string_view text) {
                             score[r.index] = dsir_model ? dsir_model->LogWeight(text)
                                                         : classifier->PositiveProbability(text);
                           },
                           [&](uint64_t d, uint64_t t) {
                             if (progress) progress("score", d, t);
                           })
                           .status());
    for (uint64_t i = 0; i < n; ++i) {
      if (!index.valid[i]) continue;
      double key = dsir_model ? score[i] + GumbelFor(o.seed, i) : score[i];
      candidates.push_back({i, key, index.bytes[i]});
    }
    index.score = std::move(score);
  }

  std::vector<uint64_t> kept = TakeByBudget(std::move(candidates), budget);

  // The documents that explain the choice: the best-scoring kept ones and the worst in the pool.
  constexpr size_t kExplain = 5;
  std::vector<ScoredDoc> top, bottom;
  if (!index.score.empty()) {
    std::vector<uint64_t> by_score;
    for (uint64_t i : kept) by_score.push_back(i);
    auto higher = [&](uint64_t a, uint64_t b) {
      return index.score[a] != index.score[b] ? index.score[a] > index.score[b] : a < b;
    };
    std::sort(by_score.begin(), by_score.end(), higher);
    for (size_t k = 0; k < std::min(kExplain, by_score.size()); ++k)
      top.push_back({by_score[k], "", "", index.score[by_score[k]], index.bytes[by_score[k]]});
    std::vector<uint64_t> all;
    for (uint64_t i = 0; i < n; ++i)
      if (index.valid[i]) all.push_back(i);
    std::sort(all.begin(), all.end(), higher);
    for (size_t k = 0; k < std::min(kExplain, all.size()); ++k) {
      uint64_t i = all[all.size() - 1 - k];
      bottom.push_back({i, "", "", index.score[i], index.bytes[i]});
    }
  }
  auto describe = [&](const Record& r) {
    for (auto* list : {&top, &bottom}) {
      for (ScoredDoc& d : *list) {
        if (d.index != r.index) continue;
        auto j = nlohmann::json::parse(r.line, nullptr, false);
        d.id = j.is_object() && j.contains("id")
                   ? (j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump())
                   : pool[r.input] + ":" + std::to_string(r.line_no);
        if (j.is_object() && j.contains("genre") && j["genre"].is_string()) d.genre = j["genre"];
      }
    }
  };

  // Pass 3: copy the kept lines byte for byte, in pool order.
  Sha256 out_sha;
  uint64_t kept_bytes = 0;
  size_t next = 0;
  std::string buffer;
  buffer.reserve(1 << 20);
  PF_RETURN_IF_ERROR(corpus::ScanLines(pool, o.read, [&](const Record& r) -> Status {
    if (!top.empty()) describe(r);
    if (next >= kept.size() || kept[next] != r.index) return Status::Ok();
    ++next;
    kept_bytes += index.bytes[r.index];
    buffer.append(r.line);
    buffer.push_back('\n');
    if (buffer.size() >= (1 << 20)) {
      out_sha.Update(buffer);
      PF_RETURN_IF_ERROR(out.Write(buffer));
      buffer.clear();
    }
    return Status::Ok();
  }));
  out_sha.Update(buffer);
  PF_RETURN_IF_ERROR(out.Write(buffer));
  if (next != kept.size())
    return Status::Internal("the pool changed while it was being read (re-run the selection)");

  SelectionResult result;
  result.pool_docs = pool_summary.docs;
  result.pool_bytes = pool_summary.text_bytes;
  result.kept_docs = kept.size();
  result.kept_bytes = kept_bytes;
  result.budget_bytes = budget;
  nlohmann::json m;
  m["selector"] = o.selector;
  m["seed"] = o.seed;
  m["keep"] = o.keep;
  m["params"] = params;
  m["text_field"] = o.read.text_field;
  m["inputs"] = {{"pool", InputsJson(pool_summary)}, {"target", InputsJson(target_summary)}};
  m["pool_docs"] = pool_summary.docs;
  m["pool_bytes"] = pool_summary.text_bytes;
  m["budget_bytes"] = budget;
  m["kept_docs"] = result.kept_docs;
  m["kept_bytes"] = kept_bytes;
  m["skipped_bad_lines"] = pool_summary.bad + target_summary.bad;
  auto explain = [](const std::vector<ScoredDoc>& docs) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : docs)
      out.push_back({{"id", d.id}, {"score", d.score}, {"bytes", d.bytes}});
    return out;
  };
  if (!top.empty())
    m["explain"] = {{"top_kept", explain(top)}, {"lowest_in_pool", explain(bottom)}};
  result.top_kept = top;
  result.bottom_pool = bottom;
  m["output"] = {
      {"path", o.out_path}, {"sha256", out_sha.HexDigest()}, {"bytes", out.bytes_written()}};
  PF_RETURN_IF_ERROR(out.Commit());
  result.core_seconds = meter.core_seconds();
  result.wall_seconds = meter.wall_seconds();
  // The cost is a measurement of this run, not a function of the inputs: it is the one block that
  // differs between identical selections.
  m["cost"] = {{"core_seconds", result.core_seconds},
               {"wall_seconds", result.wall_seconds},
               {"threads", threads}};
  result.manifest = m;
  PF_RETURN_IF_ERROR(manifest_file.Write(m.dump(2) + "\n"));
  PF_RETURN_IF_ERROR(manifest_file.Commit());
  return result;
}

}  // namespace preflight::select
