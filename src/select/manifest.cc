#include "select/manifest.h"

#include <algorithm>
#include <cmath>

namespace preflight::select {
namespace {

nlohmann::json InputsJson(const corpus::ScanSummary& s) {
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

nlohmann::json ExplainJson(const std::vector<ScoredDoc>& docs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : docs) {
    out.push_back({{"id", d.id}, {"score", d.score}, {"bytes", d.bytes}, {"excerpt", d.excerpt}});
  }
  return out;
}

}  // namespace

SkippedLine ParseSkippedLine(const std::string& message, const std::vector<std::string>& inputs) {
  size_t file_end = 0;
  for (const std::string& p : inputs)
    if (p.size() > file_end && message.compare(0, p.size(), p) == 0) file_end = p.size();
  // "<input>:<digits>: why" names a line; otherwise the place ends at the first ": " after the
  // input's path (a folder's file).
  if (file_end > 0 && file_end < message.size() && message[file_end] == ':') {
    size_t q = file_end + 1;
    while (q < message.size() && message[q] >= '0' && message[q] <= '9') ++q;
    if (q > file_end + 1 && message.compare(q, 2, ": ") == 0)
      return {message.substr(0, q), message.substr(q + 2)};
  }
  const size_t colon = message.find(": ", file_end);
  if (colon == std::string::npos) return {"", message};
  return {message.substr(0, colon), message.substr(colon + 2)};
}

std::vector<SkippedLine> SkippedLines(const corpus::ScanSummary& pool,
                                      const corpus::ScanSummary& target,
                                      const std::vector<std::string>& inputs) {
  // TODO(corpus ReadStats): take the readers' structured list of bad lines (file, line, reason)
  // here instead of parsing their messages; nothing else changes.
  std::vector<SkippedLine> out;
  for (const auto* summary : {&pool, &target})
    for (const std::string& message : summary->bad_examples)
      if (out.size() < kSkippedListed) out.push_back(ParseSkippedLine(message, inputs));
  return out;
}

nlohmann::json BuildManifest(const SelectOptions& o, const nlohmann::json& params,
                             const corpus::ScanSummary& pool, const corpus::ScanSummary& target,
                             const SelectionResult& result, const SelectionOutputs& outputs) {
  nlohmann::json m;
  m["selector"] = o.selector;
  m["seed"] = o.seed;
  // The budget asked for: "keep" (a fraction of the pool's bytes; null under another budget),
  // and "budget": {"by": the flag without dashes, "value": as given}.
  const std::string by = o.BudgetFlag();
  m["keep"] = by == "keep" ? nlohmann::json(o.keep) : nlohmann::json();
  m["budget"] = {{"by", by},
                 {"value", by == "keep"        ? nlohmann::json(o.keep)
                           : by == "keep_docs" ? nlohmann::json(o.keep_docs)
                                               : nlohmann::json(o.keep_bytes)}};
  m["params"] = params;
  // Each input's fields: the pool's, and the target files' (the same unless given apart).
  m["text_field"] = o.read.text_field;
  m["id_field"] = o.id_field;
  m["target_text_field"] = o.TargetRead().text_field;
  m["target_id_field"] = o.TargetIdField();
  m["inputs"] = {{"pool", InputsJson(pool)}, {"target", InputsJson(target)}};
  m["pool_docs"] = pool.docs;
  m["pool_bytes"] = pool.text_bytes;
  // Under a document budget there is no byte budget (null), and budget_docs says it.
  m["budget_bytes"] = o.keep_docs > 0 ? nlohmann::json() : nlohmann::json(result.budget_bytes);
  if (o.keep_docs > 0) m["budget_docs"] = result.budget_docs;
  m["kept_docs"] = result.kept_docs;
  m["kept_bytes"] = result.kept_bytes;
  m["skipped_bad_lines"] = pool.bad + target.bad;
  if (!result.skipped.empty()) {
    nlohmann::json lines = nlohmann::json::array();
    for (const SkippedLine& s : result.skipped)
      lines.push_back({{"where", s.where}, {"why", s.why}});
    m["skipped_lines"] = lines;  // The first kSkippedListed; skipped_bad_lines counts them all.
  }
  if (!result.top_kept.empty()) {
    m["explain"] = {{"top_kept", ExplainJson(result.top_kept)},
                    {"lowest_kept", ExplainJson(result.bottom_kept)},
                    {"lowest_in_pool", ExplainJson(result.bottom_pool)}};
  }
  m["output"] = outputs.output_json();
  if (outputs.annotating()) {
    const nlohmann::json& a = outputs.annotations_json();
    m["annotations"] = {{"path", o.annotate_path}, {"sha256", a["sha256"]}, {"bytes", a["bytes"]}};
  }
  return m;
}

nlohmann::json CostJson(const SelectionResult& result, int threads, const nlohmann::json& mpi,
                        const nlohmann::json& passes) {
  // The cost is a measurement of this run, not a function of the inputs: it is the one block
  // that differs between identical selections.
  nlohmann::json cost = {{"core_seconds", result.core_seconds},
                         {"wall_seconds", result.wall_seconds},
                         {"threads", threads},
                         {"passes", passes}};
  if (!mpi.is_null()) cost["mpi"] = mpi;
  return cost;
}

Result<nlohmann::json> PassesJson(const SelectionContext& ctx, const PoolPass& pool) {
  std::vector<uint64_t> reads = pool.reads;
  reads.resize(pool.sharding.shards.size(), 0);
  PF_RETURN_IF_ERROR(ctx.group->SumU64(&reads));
  nlohmann::json out = nlohmann::json::array();
  for (const corpus::ShardedInput& in : pool.sharding.inputs) {
    double read = 0, bytes = 0;
    uint64_t most = 0;
    for (uint32_t f = in.first_file; f < in.first_file + in.files; ++f) {
      const corpus::ShardedFile& file = pool.sharding.files[f];
      for (uint32_t s = file.first_shard; s < file.first_shard + file.shards; ++s) {
        const double b = static_cast<double>(pool.sharding.shards[s].disk_bytes());
        read += b * static_cast<double>(reads[s]);
        bytes += b;
        most = std::max(most, reads[s]);
      }
    }
    const double passes = bytes > 0 ? std::round(read / bytes * 1000) / 1000 : most;
    out.push_back({{"path", in.path}, {"passes", passes}});
  }
  return out;
}

Result<nlohmann::json> GatherMpiCosts(const SelectionContext& ctx) {
  if (!ctx.distributed()) return nlohmann::json();
  SelectionGroup& g = *ctx.group;
  g.SetPhase("report");
  nlohmann::json mine = nlohmann::json::array();
  for (const auto& c : g.Costs())
    mine.push_back({{"phase", c.phase}, {"bytes_sent", c.bytes_sent}, {"seconds", c.seconds}});
  PF_ASSIGN_OR_RETURN(std::string all, g.GatherToLeader(mine.dump() + "\n"));
  nlohmann::json per_rank = nlohmann::json::array();
  size_t pos = 0;
  while (pos < all.size()) {
    const size_t nl = all.find('\n', pos);
    per_rank.push_back(nlohmann::json::parse(all.substr(pos, nl - pos), nullptr, false));
    pos = nl == std::string::npos ? all.size() : nl + 1;
  }
  return nlohmann::json{
      {"ranks", g.size()},
      {"cut", ctx.options->mpi_cut},
      {"phases_by_rank", per_rank},
      {"note",
       "per rank, per phase in order: bytes handed to MPI (its part of every collective, a "
       "broadcast counted at its root, the messages it sent) and wall seconds, work and waiting "
       "included (doc/mpi.md)"}};
}

}  // namespace preflight::select
