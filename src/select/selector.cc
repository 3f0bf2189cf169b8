// The selection driver: open the outputs, read the target and the pool, let the selector score,
// cut to the budget, write, and record the manifest. The parts live beside it: pool_pass (reading
// and sharding), scorer.h and *_selector.cc (the selectors), write_pass (copying the kept lines),
// output (files), manifest.

#include "select/selector.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "base/clock.h"
#include "base/number_format.h"
#include "select/manifest.h"
#include "select/output.h"
#include "select/pool_pass.h"
#include "select/prepared.h"
#include "select/scorer.h"
#include "select/work_folder.h"
#include "select/write_pass.h"

namespace preflight::select {
namespace {

// The documents named in the manifest's "explain" block, from each end.
constexpr size_t kExplain = 5;

// The outputs are three different files, none of them an input (renaming over an input would
// replace it with the selection).
Status CheckOutputsAreNew(const std::vector<std::string>& pool,
                          const std::vector<std::string>& target, const SelectOptions& o) {
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"--out", o.out_path}, {"--manifest", o.ManifestPath()}, {"--annotate", o.annotate_path}};
  auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    const auto norm = [&ec](std::string p) {
      while (p.size() > 1 && p.back() == '/') p.pop_back();
      return std::filesystem::absolute(p, ec).lexically_normal();
    };
    return a == b || norm(a) == norm(b) || std::filesystem::equivalent(a, b, ec);
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path.empty()) continue;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (!outputs[j].second.empty() && same(path, outputs[j].second)) {
        return Status::InvalidArgument(flag + " and " + outputs[j].first + " name the same file, " +
                                       path + "; give them different paths");
      }
    }
    for (const auto* inputs : {&pool, &target}) {
      for (const std::string& in : *inputs) {
        if (same(path, in)) {
          return Status::InvalidArgument(flag + " " + path +
                                         " is also an input; write the selection elsewhere");
        }
      }
    }
  }
  return Status::Ok();
}

Status CheckRequest(const std::vector<std::string>& pool, const std::vector<std::string>& target,
                    const SelectOptions& o) {
  PF_RETURN_IF_ERROR(o.Validate());
  if (pool.empty()) return Status::InvalidArgument("no --pool given");
  const bool needs_target = o.selector == "dsir" || o.selector == "classifier";
  if (needs_target && target.empty()) {
    return Status::InvalidArgument("--target is required for the " + o.selector + " selector");
  }
  return CheckOutputsAreNew(pool, target, o);
}


// A number as a person typed it: "0.25", "1.5", "nan", "-inf".
std::string NumberText(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return FormatG(x, 6);
}

// The budget in the cut's unit: documents under keep_docs, else text bytes; never more than the
// pool holds (so the cut always reaches it).
uint64_t BudgetOf(const SelectOptions& o, const corpus::ScanSummary& pool) {
  if (o.keep_docs > 0) return std::min(o.keep_docs, pool.docs);
  if (o.keep_bytes > 0) return std::min(o.keep_bytes, pool.text_bytes);
  return static_cast<uint64_t>(std::ceil(o.keep * static_cast<double>(pool.text_bytes)));
}

// The cut's candidates: this process's valid records with their keys and costs (1 each under a
// document budget, else their text bytes).
std::vector<Candidate> Candidates(const PoolPass& pool, const Scores& scores, bool by_docs) {
  std::vector<Candidate> out;
  out.reserve(pool.records);
  for (uint64_t k = 0; k < pool.records; ++k)
    if (pool.valid[k])
      out.push_back({pool.base + k, scores.key[k], by_docs ? uint64_t{1} : pool.bytes[k]});
  return out;
}

// The target's and the pool's first passes: taken from `prepared` when it serves this selection
// (alone), else read. A selector that does not read the target gets an empty target pass either
// way, so the manifest is the same.
Status ReadInputs(const SelectionContext& ctx, const Selector& selector,
                  const PreparedInputs* prepared, TargetPass* target, PoolPass* pool) {
  const TargetNeed need = selector.target_need();
  if (prepared && !ctx.distributed() &&
      prepared->Serves(*ctx.pool, *ctx.target, *ctx.options, need,
                       selector.counts_pool_features())) {
    if (need != TargetNeed::kNothing) *target = prepared->target_pass;
    *pool = prepared->pool_pass;
    pool->reads.assign(pool->plan.shards.size(), 0);  // Read for it ahead, not by it.
    return Status::Ok();
  }
  PF_RETURN_IF_ERROR(ReadTarget(ctx, need, target));
  return ReadPool(ctx, selector.counts_pool_features(), pool);
}

}  // namespace

std::unique_ptr<Selector> MakeSelector(const std::string& name) {
  if (name == "random") return MakeRandomSelector();
  if (name == "first") return MakeFirstSelector();
  if (name == "dsir") return MakeDsirSelector();
  if (name == "classifier") return MakeClassifierSelector();
  return nullptr;
}

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

corpus::ReadOptions SelectOptions::TargetRead() const {
  corpus::ReadOptions target = read;
  if (!target_text_field.empty()) target.text_field = target_text_field;
  return target;
}

const std::string& SelectOptions::TargetIdField() const {
  return target_id_field.empty() ? id_field : target_id_field;
}

std::string SelectOptions::ManifestPath() const {
  if (!manifest_path.empty()) return manifest_path;
  std::string out = out_path;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out + ".manifest.json";
}

const char* SelectOptions::BudgetFlag() const {
  if (keep_docs > 0) return "keep_docs";
  if (keep_bytes > 0) return "keep_bytes";
  return "keep";
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
    return Status::InvalidArgument("--keep must be a number in (0, 1], got " + NumberText(keep));
  }
  if (keep_docs > 0 && keep_bytes > 0) {
    return Status::InvalidArgument("give one budget: --keep, --keep-docs or --keep-bytes");
  }
  if (threads < 1) return Status::InvalidArgument("--threads must be at least 1");
  if (out_path.empty()) return Status::InvalidArgument("--out is required");
  if (selector == "dsir") PF_RETURN_IF_ERROR(dsir.Validate());
  if (selector == "classifier") PF_RETURN_IF_ERROR(classifier.Validate());
  return Status::Ok();
}

namespace {

// Removes the work folder when the selection ends, but for a kill: a failed selection leaves
// nothing behind, a committed one no longer needs it.
struct WorkCleanup {
  WorkFolder* work = nullptr;
  ~WorkCleanup() {
    if (work != nullptr) (void)work->Remove();
  }
};

// Opens the outputs (leader) and the work folder, before any work: an unwritable path fails
// first, and nothing is left behind. Collective.
Status OpenOutputs(const SelectionContext& ctx, SelectionOutputs* outputs,
                   std::unique_ptr<WorkFolder>* work) {
  const SelectOptions& o = *ctx.options;
  Status opened;
  if (ctx.leader()) {
    opened = outputs->Open(o.out_path, o.annotate_path, o.ManifestPath());
    if (opened.ok()) {
      auto w = WorkFolder::Open(o.out_path);
      opened = w.status();
      if (w.ok()) *work = std::move(*w);
    }
  }
  ctx.group->SetPhase("open");
  PF_RETURN_IF_ERROR(ctx.group->Agree(opened));
  if (!ctx.leader()) *work = WorkFolder::Join(o.out_path);
  return Status::Ok();
}

// The selection's result from what the passes found.
SelectionResult ResultOf(const SelectionContext& ctx, PoolPass& pool_pass,
                         const TargetPass& target_pass, uint64_t budget, bool by_docs,
                         std::vector<uint64_t> kept, Scores& scores, WrittenSelection& written) {
  SelectionResult result;
  result.pool_docs = pool_pass.summary.docs;
  result.pool_bytes = pool_pass.summary.text_bytes;
  result.kept_docs = written.kept_docs;
  result.kept_bytes = written.kept_bytes;
  (by_docs ? result.budget_docs : result.budget_bytes) = budget;
  result.top_kept = std::move(written.top_kept);
  result.bottom_kept = std::move(written.lowest_kept);
  result.bottom_pool = std::move(written.lowest_in_pool);
  result.first_index = pool_pass.base;
  result.kept = std::move(kept);
  result.scores = std::move(scores.score);
  std::vector<std::string> inputs = *ctx.pool;
  inputs.insert(inputs.end(), ctx.target->begin(), ctx.target->end());
  result.skipped = SkippedLines(pool_pass.summary, target_pass.summary, inputs);
  result.skipped_count = pool_pass.summary.bad + target_pass.summary.bad;
  return result;
}

}  // namespace

Result<SelectionResult> RunSelection(const std::vector<std::string>& pool,
                                     const std::vector<std::string>& target, const SelectOptions& o,
                                     const StageProgress& progress, SelectionGroup* group_in,
                                     const PreparedInputs* prepared) {
  PF_RETURN_IF_ERROR(CheckRequest(pool, target, o));
  PF_ASSIGN_OR_RETURN(CutMethod cut_method, ParseCutMethod(o.mpi_cut));
  SelectionGroup alone;
  SelectionContext ctx{&pool, &target, &o, &progress, group_in ? group_in : &alone, cut_method};
  SelectionGroup& g = *ctx.group;
  CostMeter meter;

  SelectionOutputs outputs;
  std::unique_ptr<WorkFolder> work;
  PF_RETURN_IF_ERROR(OpenOutputs(ctx, &outputs, &work));
  WorkCleanup cleanup{ctx.leader() ? work.get() : nullptr};
  ctx.work = work.get();

  std::unique_ptr<Selector> selector = MakeSelector(o.selector);
  TargetPass target_pass;
  PoolPass pool_pass;
  PF_RETURN_IF_ERROR(ReadInputs(ctx, *selector, prepared, &target_pass, &pool_pass));
  PF_RETURN_IF_ERROR(g.Agree(ctx.leader() ? outputs.PlanFolder(pool_pass.plan) : Status::Ok()));
  const uint64_t budget = BudgetOf(o, pool_pass.summary);
  const bool by_docs = o.keep_docs > 0;

  Scores scores;
  PF_RETURN_IF_ERROR(selector->Score(ctx, pool_pass, target_pass, &scores));
  g.SetPhase("cut");
  PF_ASSIGN_OR_RETURN(std::vector<uint64_t> kept,
                      CutCandidates(ctx, Candidates(pool_pass, scores, by_docs), budget));

  WrittenSelection written;
  PickExplained(pool_pass, scores, kept, kExplain, &written);
  PF_RETURN_IF_ERROR(WriteKept(ctx, pool_pass, scores, kept, *work, &written));
  SelectionResult result = ResultOf(ctx, pool_pass, target_pass, budget, by_docs,
                                    std::move(kept), scores, written);
  // Measured costs: a group's core-seconds are those of all its processes.
  PF_ASSIGN_OR_RETURN(result.core_seconds, g.SumDouble(meter.core_seconds()));
  PF_ASSIGN_OR_RETURN(nlohmann::json mpi, GatherMpiCosts(ctx));
  PF_ASSIGN_OR_RETURN(nlohmann::json passes, PassesJson(ctx, pool_pass));
  if (!ctx.leader()) {
    result.wall_seconds = meter.wall_seconds();
    return result;
  }
  // The outputs complete on disk but unnamed, then the manifest, the caller's receipt, and last
  // the kept documents named (output.h): an output at --out never lacks its manifest and receipt.
  PF_RETURN_IF_ERROR(outputs.Assemble(pool_pass.plan, *work, written.kept_pieces,
                                      written.note_pieces, written.per_file));
  result.wall_seconds = meter.wall_seconds();
  result.replaced_orphan = outputs.found_orphan();
  nlohmann::json m = BuildManifest(o, scores.params, pool_pass.summary, target_pass.summary, result,
                                   outputs);
  m["cost"] = CostJson(result, ctx.threads(), mpi, passes);
  result.manifest = m;
  PF_RETURN_IF_ERROR(outputs.CommitManifest(m.dump(2) + "\n"));
  if (o.before_naming_output) PF_RETURN_IF_ERROR(o.before_naming_output(result));
  PF_RETURN_IF_ERROR(outputs.CommitData());
  return result;
}

}  // namespace preflight::select
