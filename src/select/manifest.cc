#include "select/manifest.h"

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
  for (const auto& d : docs) out.push_back({{"id", d.id}, {"score", d.score}, {"bytes", d.bytes}});
  return out;
}

}  // namespace

nlohmann::json BuildManifest(const SelectOptions& o, const nlohmann::json& params,
                             const corpus::ScanSummary& pool, const corpus::ScanSummary& target,
                             const SelectionResult& result, OutputFile& kept,
                             OutputFile* annotations) {
  nlohmann::json m;
  m["selector"] = o.selector;
  m["seed"] = o.seed;
  m["keep"] = o.keep;
  m["params"] = params;
  m["text_field"] = o.read.text_field;
  m["inputs"] = {{"pool", InputsJson(pool)}, {"target", InputsJson(target)}};
  m["pool_docs"] = pool.docs;
  m["pool_bytes"] = pool.text_bytes;
  m["budget_bytes"] = result.budget_bytes;
  m["kept_docs"] = result.kept_docs;
  m["kept_bytes"] = result.kept_bytes;
  m["skipped_bad_lines"] = pool.bad + target.bad;
  if (!result.top_kept.empty()) {
    m["explain"] = {{"top_kept", ExplainJson(result.top_kept)},
                    {"lowest_in_pool", ExplainJson(result.bottom_pool)}};
  }
  m["output"] = {
      {"path", o.out_path}, {"sha256", kept.file_sha256()}, {"bytes", kept.file_bytes()}};
  if (kept.compression() != Compression::kNone) {
    m["output"]["compression"] = CompressionName(kept.compression());
    m["output"]["jsonl_sha256"] = kept.content_sha256();
    m["output"]["jsonl_bytes"] = kept.content_bytes();
  }
  if (annotations) {
    m["annotations"] = {{"path", o.annotate_path},
                        {"sha256", annotations->file_sha256()},
                        {"bytes", annotations->file_bytes()}};
  }
  return m;
}

nlohmann::json CostJson(const SelectionResult& result, int threads, const nlohmann::json& mpi) {
  // The cost is a measurement of this run, not a function of the inputs: it is the one block
  // that differs between identical selections.
  nlohmann::json cost = {{"core_seconds", result.core_seconds},
                         {"wall_seconds", result.wall_seconds},
                         {"threads", threads}};
  if (!mpi.is_null()) cost["mpi"] = mpi;
  return cost;
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
