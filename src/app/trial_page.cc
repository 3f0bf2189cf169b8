// What a trial's report shows beyond its numbers: the target's name, the forecast it tested
// (also its result's "forecast"), its provenance (receipt and input hashes) and what the selection
// kept (trial_parts.h).

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "app/trial_job.h"
#include "app/trial_parts.h"
#include "base/file.h"
#include "base/json.h"
#include "corpus/scanner.h"
#include "select/write_pass.h"
#include "trial/arm_specs.h"

namespace preflight::app {
namespace {

// How far the page reads a file for excerpts and shares: enough for a representative share,
// little enough that re-rendering a report stays well under a second.
constexpr uint64_t kMaxReadBytes = 64ull << 20;
constexpr uint64_t kMaxReadDocs = 100'000;
constexpr size_t kExcerptBytes = 160;
constexpr size_t kMaxShareValues = 1000;  // distinct values counted; the rest are "(other)"
constexpr size_t kSharesShown = 10;

const char* const kShareFields[] = {"source", "genre", "domain", "category"};

// Visits at most kMaxReadDocs records or kMaxReadBytes of `paths`, until `visit` returns false.
// Returns whether the read stopped at the bound (not at the end or on the visitor's word).
Result<bool> ReadBounded(const std::vector<std::string>& paths, const corpus::ReadOptions& options,
                         const std::function<bool(const corpus::Record&)>& visit) {
  static const std::string kStop = "the page has read enough";
  uint64_t docs = 0, bytes = 0;
  bool bounded = false;
  Status st = corpus::ScanLines(paths, options, [&](const corpus::Record& r) {
    if (docs >= kMaxReadDocs || bytes >= kMaxReadBytes) {
      bounded = true;
      return Status::Internal(kStop);
    }
    ++docs;
    bytes += r.line.size();
    return visit(r) ? Status::Ok() : Status::Internal(kStop);
  });
  if (!st.ok() && st.message() != kStop) return st;
  return bounded;
}

std::vector<report::SelectedDoc> ExplainedDocs(const nlohmann::json& list) {
  std::vector<report::SelectedDoc> docs;
  if (!list.is_array()) return docs;
  for (const nlohmann::json& d : list) {
    if (!d.is_object() || !d.contains("id") || !d["id"].is_string()) continue;
    docs.push_back(
        {d["id"].get<std::string>(),
         d.contains("score") && d["score"].is_number() ? d["score"].get<double>() : 0,
         d.contains("excerpt") && d["excerpt"].is_string() ? d["excerpt"].get<std::string>() : ""});
  }
  return docs;
}

// Fills in the excerpts of `docs` that their manifest did not give (one written before manifests
// carried them) from the pool (ids as the selection computed them).
Status FillExcerpts(const trial::TrialConfig& c, std::vector<report::SelectedDoc*> docs) {
  std::map<std::string, std::vector<report::SelectedDoc*>> wanted;
  for (report::SelectedDoc* d : docs) {
    if (d->excerpt.empty()) wanted[d->id].push_back(d);
  }
  if (wanted.empty()) return Status::Ok();
  corpus::ReadOptions options = trial::PoolReadOptions(c);
  options.skip_bad = true;
  auto read = ReadBounded(c.pool, options, [&](const corpus::Record& r) {
    auto it = wanted.find(select::DocumentId(r.line, c.id_field, std::string(r.file), r.line_no,
                                             r.row_group, r.row_in_group));
    if (it == wanted.end()) return true;
    auto text = corpus::ParseTextField(r.line, options, std::string(r.file));
    for (report::SelectedDoc* d : it->second)
      d->excerpt = text.ok() ? select::Excerpt(*text, kExcerptBytes) : "";
    wanted.erase(it);
    return !wanted.empty();
  });
  return read.status();
}

// The first source-like field a document has (kShareFields' order), "" for none.
std::string ShareFieldOf(const nlohmann::json& doc) {
  for (const char* field : kShareFields) {
    if (doc.contains(field)) return field;
  }
  return "";
}

// The kept documents' share by the first source-like field they carry.
Status FillShares(const trial::TrialConfig& c, const std::string& path, report::Selection* sel) {
  std::map<std::string, uint64_t> counts;
  auto read = ReadBounded({path}, trial::PoolReadOptions(c), [&](const corpus::Record& r) {
    ++sel->share_docs;
    bool maybe = false;
    for (const char* field : kShareFields) {
      maybe = maybe || r.line.find(fmt::format("\"{}\"", field)) != std::string_view::npos;
    }
    nlohmann::json doc = maybe ? nlohmann::json::parse(r.line, nullptr, false) : nlohmann::json();
    if (sel->share_field.empty() && doc.is_object()) sel->share_field = ShareFieldOf(doc);
    std::string value = "(none)";
    if (doc.is_object() && !sel->share_field.empty() && doc.contains(sel->share_field)) {
      const nlohmann::json& v = doc[sel->share_field];
      value = v.is_string() ? v.get<std::string>() : v.dump();
    }
    if (counts.size() >= kMaxShareValues && !counts.count(value)) value = "(other)";
    ++counts[value];
    return true;
  });
  PF_RETURN_IF_ERROR(read.status());
  sel->share_partial = *read;
  if (sel->share_field.empty()) return Status::Ok();
  std::vector<std::pair<std::string, uint64_t>> shares(counts.begin(), counts.end());
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (shares.size() > kSharesShown) {
    uint64_t rest = 0;
    for (size_t i = kSharesShown - 1; i < shares.size(); ++i) rest += shares[i].second;
    shares.resize(kSharesShown - 1);
    shares.push_back({"(all other values)", rest});
  }
  sel->shares = std::move(shares);
  return Status::Ok();
}

const trial::MadeArm* SelectedArm(const trial::TrialOutcome& o) {
  for (const trial::MadeArm& arm : o.data) {
    const std::string& kind = arm.record.data_kind;
    if (kind != "random" && kind != "first" && kind != "pool") return &arm;
  }
  return nullptr;
}

}  // namespace

std::string TargetStem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const char* ending : {".zst", ".zstd", ".gz", ".bz2", ".xz"}) {
    if (name.size() > std::strlen(ending) && name.ends_with(ending)) {
      name.resize(name.size() - std::strlen(ending));
      break;
    }
  }
  for (const char* ending : {".jsonl", ".json", ".ndjson", ".txt"}) {
    if (name.size() > std::strlen(ending) && name.ends_with(ending)) {
      name.resize(name.size() - std::strlen(ending));
      break;
    }
  }
  return name.empty() ? path : name;
}

nlohmann::json ForecastUnderTestJson(const TrialJob& job) {
  if (job.forecast) {
    const forecast::Prediction& p = job.forecast->outcome.prediction;
    const trial::Saving& s = job.outcome.trial.comparisons.front().saving;
    nlohmann::json f = {{"receipt", job.forecast->receipt_hash},
                        {"verdict", p.verdict},
                        {"predicted_saving", p.saving},
                        {"interval", {p.lo, p.hi}},
                        {"strength", p.strength},
                        {"signals", job.forecast->outcome.signals},
                        {"core_seconds", job.forecast->outcome.core_seconds},
                        {"fraction_of_trial", job.forecast->outcome.fraction_of_trial},
                        {"correct", ForecastCorrect(p.verdict, s.net, s.caught_up)}};
    // A case too small for the calibration to speak to (its receipt's coverage says so).
    const nlohmann::json& made = job.forecast->outcome.result;
    if (const std::string note = forecast::FarSmallerNoteOf(made); !note.empty()) {
      f["far_smaller"] = made["coverage"]["far_smaller"];
      f["caution"] = note;
    }
    return f;
  }
  if (job.recorded_forecast.is_object() && job.recorded_forecast.contains("verdict")) {
    return job.recorded_forecast;  // a loaded trial: as result.json recorded it
  }
  if (!job.outcome.config.forecast_hash.empty()) {
    return {{"receipt", job.outcome.config.forecast_hash}};  // made by the caller, who marks it
  }
  return nullptr;
}

std::optional<report::ForecastTested> ForecastTestedOf(const TrialJob& job) {
  const trial::TrialOutcome& o = job.outcome;
  if (o.schedule || o.trial.comparisons.empty()) return std::nullopt;
  const nlohmann::json f = ForecastUnderTestJson(job);
  if (!f.is_object() || !f.contains("receipt") || !f["receipt"].is_string()) return std::nullopt;
  report::ForecastTested out;
  out.receipt = f["receipt"].get<std::string>();
  const trial::Saving& s = o.trial.comparisons.front().saving;
  if (s.caught_up) out.measured_net = s.net;
  if (!f.contains("verdict") || !f["verdict"].is_string()) return out;
  out.verdict = f["verdict"].get<std::string>();
  if (f.contains("predicted_saving") && f["predicted_saving"].is_number()) {
    out.predicted_saving = f["predicted_saving"].get<double>();
  }
  if (f.contains("interval") && f["interval"].is_array() && f["interval"].size() == 2 &&
      f["interval"][0].is_number() && f["interval"][1].is_number()) {
    out.interval = std::pair{f["interval"][0].get<double>(), f["interval"][1].get<double>()};
  }
  const nlohmann::json correct = ForecastCorrect(out.verdict, s.net, s.caught_up);
  if (correct.is_boolean()) out.correct = correct.get<bool>();
  return out;
}

report::Provenance ProvenanceOf(const TrialJob& job) {
  report::Provenance p;
  p.receipt = job.receipt_hash;
  for (const ledger::InputRecord& in : job.outcome.inputs) {
    p.inputs.push_back({in.role, in.path, in.sha256, in.docs, in.bytes});
  }
  return p;
}

Result<std::optional<report::Selection>> SelectionOf(const TrialJob& job) {
  const trial::TrialOutcome& o = job.outcome;
  const trial::MadeArm* arm = SelectedArm(o);
  if (arm == nullptr) return std::optional<report::Selection>();
  // A trial read back from its folder knows its arms' records, not their paths.
  const std::string path =
      arm->path.empty() ? trial::RunFolder(o.out_dir).ArmPath(arm->name) : arm->path;
  if (!PathExists(path)) return std::optional<report::Selection>();
  report::Selection sel;
  sel.arm = arm->name;
  sel.selector = arm->record.data_kind;
  const std::string manifest_path = path + ".manifest.json";
  if (PathExists(manifest_path)) {
    PF_ASSIGN_OR_RETURN(nlohmann::json manifest, ReadJsonFile(manifest_path));
    const nlohmann::json explain = manifest.is_object() && manifest.contains("explain")
                                       ? manifest["explain"]
                                       : nlohmann::json::object();
    if (explain.is_object()) {
      sel.highest = ExplainedDocs(JsonAt(explain, {"top_kept"}));
      if (explain.contains("lowest_kept")) {
        sel.lowest = ExplainedDocs(explain["lowest_kept"]);
        sel.lowest_label = "Lowest-scored kept documents";
      } else {
        sel.lowest = ExplainedDocs(JsonAt(explain, {"lowest_in_pool"}));
        sel.lowest_label = "Lowest-scored documents in the pool (left out: the other end)";
      }
    }
  }
  std::vector<report::SelectedDoc*> docs;
  for (auto* list : {&sel.highest, &sel.lowest}) {
    for (report::SelectedDoc& d : *list) docs.push_back(&d);
  }
  // The pool or the arm may have moved since the trial: the page then goes without excerpts or
  // shares rather than without a report.
  if (!FillExcerpts(o.config, docs).ok()) {
    for (report::SelectedDoc* d : docs) d->excerpt.clear();
  }
  if (!FillShares(o.config, path, &sel).ok()) {
    sel.share_field.clear();
    sel.shares.clear();
    sel.share_docs = 0;
  }
  return std::optional<report::Selection>(std::move(sel));
}

}  // namespace preflight::app
