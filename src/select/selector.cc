#include "select/selector.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>

#include "base/clock.h"
#include "base/file.h"
#include "base/sha256.h"
#include "corpus/scanner.h"
#include "select/cut.h"
#include "select/gumbel.h"

namespace preflight::select {
namespace {

using corpus::Record;
using corpus::ScanSummary;
using corpus::ShardSpec;

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

// Byte strings of fixed-width integers, for the group's byte-level operations.
void PutU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
uint64_t GetU64(const std::string& in, size_t pos) {
  uint64_t v = 0;
  std::memcpy(&v, in.data() + pos, 8);
  return v;
}

Result<std::vector<uint64_t>> BroadcastU64(SelectionGroup& g, const std::vector<uint64_t>& values) {
  std::string bytes;
  if (g.leader())
    for (uint64_t v : values) PutU64(bytes, v);
  PF_RETURN_IF_ERROR(g.Broadcast(&bytes));
  std::vector<uint64_t> out(bytes.size() / 8);
  for (size_t i = 0; i < out.size(); ++i) out[i] = GetU64(bytes, i * 8);
  return out;
}

// Rank `rank` of `size`: the byte range [rank * T / size, (rank + 1) * T / size) of the inputs
// concatenated in order (T: their total size on disk). A plain file is cut at the range's ends
// (ChunkReader moves each cut to the next line start, so the parts tile its lines); an input that
// cannot be cut (.zst, a folder) goes whole to the rank whose range holds its first byte. Either
// way ranks hold consecutive records in rank order.
// `hash_here`: 1 for each input whose first byte is in this rank's range (it hashes that input).
Result<ShardSpec> PlanShard(const std::vector<std::string>& paths, int rank, int size,
                            std::vector<uint8_t>* hash_here) {
  std::vector<uint64_t> sizes(paths.size(), 0);
  std::vector<bool> whole(paths.size(), false);
  uint64_t total = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    whole[i] = IsDirectory(paths[i]) ||
               (paths[i].size() >= 4 && paths[i].compare(paths[i].size() - 4, 4, ".zst") == 0);
    if (!IsDirectory(paths[i])) {
      auto bytes = FileSize(paths[i]);
      if (!bytes.ok()) {
        return PathExists(paths[i]) ? bytes.status()
                                    : Status::NotFound(paths[i] + ": no such file");
      }
      sizes[i] = *bytes;
    }
    total += sizes[i];
  }
  auto cut = [&](int r) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * r / size);
  };
  const uint64_t lo = cut(rank), hi = cut(rank + 1);
  ShardSpec shard;
  uint64_t start = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    ShardSpec::Part part;
    const uint64_t end = start + sizes[i];
    hash_here->push_back((start >= lo && start < hi) || (start == total && rank == size - 1));
    if (whole[i]) {
      // The owner of the first byte; an input at the very end (or empty) goes to the rank whose
      // range ends there or, when every later range is empty, to the last one holding bytes.
      part.read = (start >= lo && start < hi) || (start == total && rank == size - 1);
    } else {
      part.begin = std::max(lo, start) - start;
      part.end = std::min(hi, end) - start;
      part.read = std::max(lo, start) < std::min(hi, end);
      if (!part.read) part.begin = part.end = 0;
    }
    shard.inputs.push_back(part);
    start = end;
  }
  return shard;
}

// Sums each input's counts over the group (hashes and file sizes come from the leader's pass 3).
Status CombineSummaries(SelectionGroup& g, ScanSummary* s) {
  std::vector<uint64_t> v;
  for (const auto& in : s->inputs) {
    v.push_back(in.records);
    v.push_back(in.docs);
    v.push_back(in.text_bytes);
    v.push_back(in.bad);
    v.push_back(in.blank);
  }
  PF_RETURN_IF_ERROR(g.SumU64(&v));
  s->records = s->docs = s->text_bytes = s->bad = 0;
  for (size_t i = 0; i < s->inputs.size(); ++i) {
    auto& in = s->inputs[i];
    in.records = v[5 * i];
    in.docs = v[5 * i + 1];
    in.text_bytes = v[5 * i + 2];
    in.bad = v[5 * i + 3];
    in.blank = v[5 * i + 4];
    s->records += in.records;
    s->docs += in.docs;
    s->text_bytes += in.text_bytes;
    s->bad += in.bad;
  }
  return Status::Ok();
}

std::string PackTexts(const std::vector<std::pair<uint64_t, std::string>>& texts) {
  std::string out;
  for (const auto& [i, t] : texts) {
    PutU64(out, t.size());
    out += t;
  }
  return out;
}

Result<std::vector<std::string>> UnpackTexts(const std::string& in) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < in.size()) {
    if (in.size() - pos < 8) return Status::Internal("negatives: truncated message");
    uint64_t n = GetU64(in, pos);
    pos += 8;
    if (in.size() - pos < n) return Status::Internal("negatives: truncated message");
    out.push_back(in.substr(pos, n));
    pos += n;
  }
  return out;
}

// The group's `count` highest (or lowest) scored documents from each process's own, ordered as
// one process orders them: by score, ties by index.
Result<std::vector<ScoredDoc>> MergeExplained(SelectionGroup& g, const std::vector<ScoredDoc>& mine,
                                              size_t count, bool lowest) {
  std::string bytes;
  for (const ScoredDoc& d : mine) {
    PutU64(bytes, d.index);
    PutU64(bytes, std::bit_cast<uint64_t>(d.score));
    PutU64(bytes, d.bytes);
    PutU64(bytes, d.id.size());
    bytes += d.id;
    PutU64(bytes, d.genre.size());
    bytes += d.genre;
  }
  PF_ASSIGN_OR_RETURN(std::string all, g.GatherToLeader(bytes));
  std::vector<ScoredDoc> docs;
  for (size_t pos = 0; pos + 32 <= all.size();) {
    ScoredDoc d;
    d.index = GetU64(all, pos);
    d.score = std::bit_cast<double>(GetU64(all, pos + 8));
    d.bytes = GetU64(all, pos + 16);
    const uint64_t id_len = GetU64(all, pos + 24);
    pos += 32;
    d.id = all.substr(pos, id_len);
    pos += id_len;
    if (pos + 8 > all.size()) return Status::Internal("explained documents: truncated message");
    const uint64_t genre_len = GetU64(all, pos);
    pos += 8;
    d.genre = all.substr(pos, genre_len);
    pos += genre_len;
    docs.push_back(std::move(d));
  }
  auto higher = [](const ScoredDoc& a, const ScoredDoc& b) {
    return a.score != b.score ? a.score > b.score : a.index < b.index;
  };
  std::sort(docs.begin(), docs.end(), higher);
  if (lowest) std::reverse(docs.begin(), docs.end());
  if (docs.size() > count) docs.resize(count);
  return docs;
}

}  // namespace

nlohmann::json ReceiptInputs(const nlohmann::json& manifest_inputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const char* role : {"pool", "target"}) {
    if (!manifest_inputs.contains(role)) continue;
    for (const auto& p : manifest_inputs[role]) {
      out.push_back({{"role", std::string(role) == "pool" ? "pool" : "target_select"},
                     {"path", p["path"]},
                     {"sha256", p["sha256"]},
                     {"docs", p["docs"]},
                     {"bytes", p["bytes"]}});
    }
  }
  return out;
}

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
                                     const StageProgress& progress, SelectionGroup* group_in) {
  PF_RETURN_IF_ERROR(o.Validate());
  PF_ASSIGN_OR_RETURN(CutMethod cut_method, ParseCutMethod(o.mpi_cut));
  if (pool.empty()) return Status::InvalidArgument("no --pool given");
  const bool needs_target = o.selector == "dsir" || o.selector == "classifier";
  if (needs_target && target.empty()) {
    return Status::InvalidArgument("--target is required for the " + o.selector + " selector");
  }
  SelectionGroup alone;
  SelectionGroup& g = group_in ? *group_in : alone;
  const bool distributed = g.size() > 1;
  const bool leader = g.leader();
  CostMeter meter;
  const int threads = std::max(1, o.threads);
  const std::string manifest_path =
      o.manifest_path.empty() ? o.out_path + ".manifest.json" : o.manifest_path;

  // Open the outputs first: an unwritable path fails before any work, and nothing is left behind.
  // Only the leader writes.
  AtomicFile out, manifest_file;
  Status opened;
  if (leader) {
    if (Status st = out.Open(o.out_path); !st.ok()) {
      opened = Status::InvalidArgument(st.message());
    } else if (Status st2 = manifest_file.Open(manifest_path); !st2.ok()) {
      opened = Status::InvalidArgument(st2.message());
    }
  }
  g.SetPhase("open");
  PF_RETURN_IF_ERROR(g.Agree(opened));

  // Target first (small): it is what the dsir pool pass is compared against. The leader reads it;
  // a dsir group receives its feature counts, a classifier group its byte count.
  std::vector<uint64_t> target_counts;
  std::vector<std::string> target_texts;
  ScanSummary target_summary;
  if (needs_target) {
    g.SetPhase("target");
    Status scanned;
    if (leader) {
      auto summary = ScanTarget(target, o, o.selector == "dsir" ? &target_counts : nullptr,
                                o.selector == "classifier" ? &target_texts : nullptr, progress);
      if (summary.ok()) {
        target_summary = std::move(*summary);
      } else {
        scanned = summary.status();
      }
    }
    PF_RETURN_IF_ERROR(g.Agree(scanned));
    if (distributed) {
      std::vector<uint64_t> shared = target_counts;
      shared.push_back(target_summary.text_bytes);
      PF_ASSIGN_OR_RETURN(shared, BroadcastU64(g, shared));
      target_summary.text_bytes = shared.back();
      shared.pop_back();
      target_counts = std::move(shared);
    }
  }

  // This process's part of the pool, numbered as in a whole read.
  ShardSpec shard;
  std::vector<uint8_t> hash_here;  // Inputs this process hashes (a group's pass 3).
  uint64_t local_records = 0;
  if (distributed) {
    g.SetPhase("count");
    auto planned = PlanShard(pool, g.rank(), g.size(), &hash_here);
    Status st = planned.status();
    std::vector<corpus::PartCount> counts;
    if (planned.ok()) {
      shard = std::move(*planned);
      auto counted = corpus::CountParts(pool, o.read, shard);
      if (counted.ok()) {
        counts = std::move(*counted);
      } else {
        st = counted.status();
      }
    }
    PF_RETURN_IF_ERROR(g.Agree(st));
    std::vector<uint64_t> before(2 * pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      before[2 * i] = counts[i].lines;
      before[2 * i + 1] = counts[i].records;
      local_records += counts[i].records;
    }
    PF_RETURN_IF_ERROR(g.ExclusivePrefixU64(&before));
    shard.first_index = 0;
    for (size_t i = 0; i < pool.size(); ++i) {
      shard.inputs[i].lines_before = static_cast<int64_t>(before[2 * i]);
      shard.first_index += before[2 * i + 1];
    }
  }
  const uint64_t base = shard.first_index;

  // Pass 1 over the pool: bytes per record, and for dsir the pool's feature counts.
  g.SetPhase("pool");
  PoolIndex index;
  std::vector<std::vector<uint64_t>> pool_counts_by_thread;
  if (o.selector == "dsir")
    pool_counts_by_thread.assign(threads, std::vector<uint64_t>(o.dsir.buckets, 0));
  auto scanned = corpus::ScanDocuments(
      pool, o.read,
      [&](int t, const Record& r, std::string_view text) {
        index.bytes[r.index - base] = text.size();
        index.valid[r.index - base] = 1;
        if (o.selector == "dsir") CountFeatures(text, o.dsir, pool_counts_by_thread[t].data());
      },
      [&](uint64_t d, uint64_t n) {
        if (progress) progress("pool", d, n);
      },
      [&](uint64_t records) { index.Resize(records - base); }, distributed ? &shard : nullptr);
  PF_RETURN_IF_ERROR(g.Agree(scanned.status()));
  ScanSummary pool_summary = std::move(*scanned);
  if (!distributed) local_records = pool_summary.records;
  index.Resize(local_records);
  if (distributed) PF_RETURN_IF_ERROR(CombineSummaries(g, &pool_summary));
  if (pool_summary.docs == 0) {
    return Status::InvalidArgument("the pool has no documents (" + pool.front() + ")");
  }
  const uint64_t budget =
      static_cast<uint64_t>(std::ceil(o.keep * static_cast<double>(pool_summary.text_bytes)));

  // The budget cut: TakeByBudget alone; across a group, the exact distributed cut (cut.h).
  // Returns this process's taken records as global indices, in increasing order.
  auto cut = [&](std::vector<Candidate> local, uint64_t bytes) -> Result<std::vector<uint64_t>> {
    if (!distributed) return TakeByBudget(std::move(local), bytes);
    PF_ASSIGN_OR_RETURN(std::vector<uint8_t> taken, CutByBudget(g, local, bytes, cut_method));
    std::vector<uint64_t> ids;
    for (size_t k = 0; k < local.size(); ++k)
      if (taken[k]) ids.push_back(local[k].index);
    return ids;
  };

  nlohmann::json params = nlohmann::json::object();
  std::vector<Candidate> candidates;
  candidates.reserve(local_records);

  if (o.selector == "random" || o.selector == "first") {
    for (uint64_t k = 0; k < local_records; ++k) {
      if (!index.valid[k]) continue;
      const uint64_t i = base + k;
      double key = o.selector == "random" ? GumbelFor(o.seed, i) : -static_cast<double>(i);
      candidates.push_back({i, key, index.bytes[k]});
    }
  } else {
    std::vector<double> score(local_records, 0.0);
    std::optional<DsirModel> dsir_model;
    std::optional<Classifier> classifier;
    if (o.selector == "dsir") {
      g.SetPhase("dsir-counts");
      std::vector<uint64_t> pool_counts = SumCounts(pool_counts_by_thread, o.dsir.buckets);
      PF_RETURN_IF_ERROR(g.SumU64(&pool_counts));
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
      g.SetPhase("negatives");
      std::vector<Candidate> uniform;
      for (uint64_t k = 0; k < local_records; ++k)
        if (index.valid[k])
          uniform.push_back(
              {base + k, GumbelFor(o.seed ^ 0x6e656761ull, base + k), index.bytes[k]});
      uint64_t neg_budget =
          static_cast<uint64_t>(o.classifier.negative_ratio * target_summary.text_bytes);
      PF_ASSIGN_OR_RETURN(std::vector<uint64_t> neg_ids, cut(std::move(uniform), neg_budget));
      std::vector<uint8_t> is_neg(local_records, 0);
      for (uint64_t i : neg_ids) is_neg[i - base] = 1;
      std::vector<std::pair<uint64_t, std::string>> negs;
      std::mutex mu;
      Status read = corpus::ScanDocuments(
                        pool, o.read,
                        [&](int, const Record& r, std::string_view text) {
                          if (!is_neg[r.index - base]) return;
                          std::lock_guard<std::mutex> lock(mu);
                          negs.emplace_back(r.index, std::string(text));
                        },
                        {}, {}, distributed ? &shard : nullptr)
                        .status();
      PF_RETURN_IF_ERROR(g.Agree(read));
      std::sort(negs.begin(), negs.end());
      std::vector<std::string> neg_texts;
      if (distributed) {
        // The leader trains on every process's negatives, in index order (= rank order).
        PF_ASSIGN_OR_RETURN(std::string all, g.GatherToLeader(PackTexts(negs)));
        if (leader) {
          PF_ASSIGN_OR_RETURN(neg_texts, UnpackTexts(all));
        }
      } else {
        for (auto& [i, t] : negs) neg_texts.push_back(std::move(t));
      }
      uint64_t neg_bytes = 0;
      for (const std::string& t : neg_texts) neg_bytes += t.size();
      g.SetPhase("model");
      Status trained;
      std::string model_bytes;
      if (leader) {
        auto model =
            Classifier::Train(target_texts, neg_texts, o.classifier, o.seed, DirName(o.out_path));
        if (!model.ok()) {
          trained = model.status();
        } else if (distributed) {
          auto bytes = model->Serialize(DirName(o.out_path));
          if (bytes.ok()) {
            model_bytes = std::move(*bytes);
          } else {
            trained = bytes.status();
          }
        } else {
          classifier = std::move(*model);
        }
      }
      PF_RETURN_IF_ERROR(g.Agree(trained));
      if (distributed) {
        // Every process, the leader too, scores with the model as broadcast.
        PF_RETURN_IF_ERROR(g.Broadcast(&model_bytes));
        auto model = Classifier::Deserialize(model_bytes);
        PF_RETURN_IF_ERROR(g.Agree(model.status()));
        classifier = std::move(*model);
      }
      params = o.classifier.ToJson();
      params["training"] = {
          {"positives_docs", target_texts.size()},
          {"positives_bytes", target_summary.text_bytes},
          {"negatives_docs", neg_texts.size()},
          {"negatives_bytes", neg_bytes},
          {"negatives", "uniform sample of the pool by bytes (Gumbel keys, seed ^ 0x6e656761)"}};
    }
    // Pass 2: score every pool document of this process's part.
    g.SetPhase("score");
    Status scored = corpus::ScanDocuments(
                        pool, o.read,
                        [&](int, const Record& r, std::string_view text) {
                          score[r.index - base] = dsir_model
                                                      ? dsir_model->LogWeight(text)
                                                      : classifier->PositiveProbability(text);
                        },
                        [&](uint64_t d, uint64_t t) {
                          if (progress) progress("score", d, t);
                        },
                        {}, distributed ? &shard : nullptr)
                        .status();
    PF_RETURN_IF_ERROR(g.Agree(scored));
    for (uint64_t k = 0; k < local_records; ++k) {
      if (!index.valid[k]) continue;
      const uint64_t i = base + k;
      double key = dsir_model ? score[k] + GumbelFor(o.seed, i) : score[k];
      candidates.push_back({i, key, index.bytes[k]});
    }
    index.score = std::move(score);
  }

  g.SetPhase("cut");
  PF_ASSIGN_OR_RETURN(std::vector<uint64_t> kept_local, cut(std::move(candidates), budget));

  // The documents that explain the choice: the best-scoring kept ones and the worst in the pool.
  // Each process finds its own; the leader keeps the best of those.
  constexpr size_t kExplain = 5;
  std::vector<ScoredDoc> top, bottom;
  if (!index.score.empty()) {
    auto higher = [&](uint64_t a, uint64_t b) {
      const double sa = index.score[a - base], sb = index.score[b - base];
      return sa != sb ? sa > sb : a < b;
    };
    std::vector<uint64_t> by_score = kept_local;
    std::sort(by_score.begin(), by_score.end(), higher);
    for (size_t k = 0; k < std::min(kExplain, by_score.size()); ++k) {
      const uint64_t i = by_score[k];
      top.push_back({i, "", "", index.score[i - base], index.bytes[i - base]});
    }
    std::vector<uint64_t> all;
    for (uint64_t k = 0; k < local_records; ++k)
      if (index.valid[k]) all.push_back(base + k);
    std::sort(all.begin(), all.end(), higher);
    for (size_t k = 0; k < std::min(kExplain, all.size()); ++k) {
      uint64_t i = all[all.size() - 1 - k];
      bottom.push_back({i, "", "", index.score[i - base], index.bytes[i - base]});
    }
  }
  uint64_t kept_docs = kept_local.size();
  uint64_t local_kept_bytes = 0;
  for (uint64_t i : kept_local) local_kept_bytes += index.bytes[i - base];

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

  Sha256 out_sha;
  uint64_t kept_bytes = 0;
  if (!distributed) {
    // Pass 3: copy the kept lines byte for byte, in pool order.
    const std::vector<uint64_t>& kept = kept_local;
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
  } else {
    // Pass 3 in a group: each process copies its own kept lines, in pool order, and names its own
    // explained documents.
    g.SetPhase("copy");
    std::string lines;
    size_t next = 0;
    Status copied = corpus::ScanLines(
        pool, o.read,
        [&](const Record& r) -> Status {
          if (!top.empty() || !bottom.empty()) describe(r);
          if (next >= kept_local.size() || kept_local[next] != r.index) return Status::Ok();
          ++next;
          lines.append(r.line);
          lines.push_back('\n');
          return Status::Ok();
        },
        nullptr, &shard);
    if (copied.ok() && next != kept_local.size())
      copied = Status::Internal("the pool changed while it was being read (re-run the selection)");
    PF_RETURN_IF_ERROR(g.Agree(copied));
    // Each input's SHA-256 (sequential by nature) on the process that holds its first byte: a pool
    // of many files is hashed in parallel.
    g.SetPhase("hash");
    std::string hashes;
    Status hashed;
    for (size_t i = 0; i < pool.size(); ++i) {
      if (!hash_here[i]) continue;
      auto h = corpus::HashInput(pool[i]);
      if (!h.ok()) {
        hashed = h.status();
        break;
      }
      PutU64(hashes, i);
      PutU64(hashes, h->file_bytes);
      PutU64(hashes, h->sha256.size());
      hashes += h->sha256;
    }
    PF_RETURN_IF_ERROR(g.Agree(hashed));
    PF_ASSIGN_OR_RETURN(std::string all, g.GatherToLeader(hashes));
    for (size_t pos = 0; pos + 24 <= all.size();) {
      const uint64_t i = GetU64(all, pos), bytes = GetU64(all, pos + 8), n = GetU64(all, pos + 16);
      pos += 24;
      if (i < pool_summary.inputs.size()) {
        pool_summary.inputs[i].file_bytes = bytes;
        pool_summary.inputs[i].sha256 = all.substr(pos, n);
      }
      pos += n;
    }
    if (o.selector == "dsir" || o.selector == "classifier") {
      g.SetPhase("explain");
      PF_ASSIGN_OR_RETURN(top, MergeExplained(g, top, kExplain, /*lowest=*/false));
      PF_ASSIGN_OR_RETURN(bottom, MergeExplained(g, bottom, kExplain, /*lowest=*/true));
    }
    // The kept lines of every process, in rank order (= pool order), into the leader's output.
    g.SetPhase("write");
    Status written = g.StreamToLeader(lines, [&](std::string_view piece) {
      out_sha.Update(piece);
      return out.Write(piece);
    });
    std::string().swap(lines);
    g.SetPhase("finish");
    PF_RETURN_IF_ERROR(g.Agree(written));
    std::vector<uint64_t> totals = {local_kept_bytes, kept_docs};
    PF_RETURN_IF_ERROR(g.SumU64(&totals));  // Every process reports the same counts.
    kept_bytes = totals[0];
    kept_docs = totals[1];
  }

  SelectionResult result;
  result.pool_docs = pool_summary.docs;
  result.pool_bytes = pool_summary.text_bytes;
  result.kept_docs = kept_docs;
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
  // Measured costs: a group's core-seconds are those of all its processes.
  PF_ASSIGN_OR_RETURN(result.core_seconds, g.SumDouble(meter.core_seconds()));
  nlohmann::json mpi;
  if (distributed) {
    g.SetPhase("report");
    nlohmann::json mine = nlohmann::json::array();
    for (const auto& c : g.Costs())
      mine.push_back({{"phase", c.phase}, {"bytes_sent", c.bytes_sent}, {"seconds", c.seconds}});
    PF_ASSIGN_OR_RETURN(std::string all, g.GatherToLeader(mine.dump() + "\n"));
    nlohmann::json per_rank = nlohmann::json::array();
    size_t pos = 0;
    while (pos < all.size()) {
      size_t nl = all.find('\n', pos);
      per_rank.push_back(nlohmann::json::parse(all.substr(pos, nl - pos), nullptr, false));
      pos = nl == std::string::npos ? all.size() : nl + 1;
    }
    mpi = {{"ranks", g.size()},
           {"cut", o.mpi_cut},
           {"phases_by_rank", per_rank},
           {"note",
            "per rank, per phase in order: bytes handed to MPI (its part of every "
            "collective, a broadcast counted at its root, the messages it sent) and wall "
            "seconds, work and waiting included (doc/mpi.md)"}};
  }
  if (!leader) {
    result.wall_seconds = meter.wall_seconds();
    return result;
  }
  if (Status st = out.Commit(); !st.ok()) return st;
  result.wall_seconds = meter.wall_seconds();
  // The cost is a measurement of this run, not a function of the inputs: it is the one block that
  // differs between identical selections.
  m["cost"] = {{"core_seconds", result.core_seconds},
               {"wall_seconds", result.wall_seconds},
               {"threads", threads}};
  if (distributed) m["cost"]["mpi"] = mpi;
  result.manifest = m;
  PF_RETURN_IF_ERROR(manifest_file.Write(m.dump(2) + "\n"));
  PF_RETURN_IF_ERROR(manifest_file.Commit());
  return result;
}

}  // namespace preflight::select
