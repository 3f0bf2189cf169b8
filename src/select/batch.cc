// The selection driver, for one selection or a batch of them (batch.h): open the outputs, read
// the targets and the pool, let each selector fit and score, cut to each budget, write, and
// record each manifest. The parts live beside it: pool_pass (reading and sharding), scorer.h and
// *_selector.cc (the selectors), score_pass and write_pass (the shared passes), output (files),
// manifest.

#include "select/batch.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <utility>

#include "base/clock.h"
#include "select/manifest.h"
#include "select/output.h"
#include "select/pool_pass.h"
#include "select/prepared.h"
#include "select/score_pass.h"
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

// The selections of a batch read one pool the same way.
Status CheckBatch(const std::vector<std::string>& pool,
                  const std::vector<SelectionRequest>& requests) {
  if (requests.empty()) return Status::InvalidArgument("no selection asked for");
  const SelectOptions& a = requests[0].options;
  for (const SelectionRequest& r : requests) {
    PF_RETURN_IF_ERROR(CheckRequest(pool, r.target, r.options));
    const SelectOptions& b = r.options;
    if (b.read.text_field != a.read.text_field || b.read.skip_bad != a.read.skip_bad ||
        b.read.max_document_bytes != a.read.max_document_bytes || b.threads != a.threads ||
        b.split_bytes != a.split_bytes || b.mpi_cut != a.mpi_cut) {
      return Status::InvalidArgument(
          "the selections of one batch must read the pool alike (fields, limits, threads)");
    }
  }
  return Status::Ok();
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

// Removes the work folder when the selection ends, but for a kill: a failed selection leaves
// nothing behind, a committed one no longer needs it.
struct WorkCleanup {
  WorkFolder* work = nullptr;
  ~WorkCleanup() {
    if (work != nullptr) (void)work->Remove();
  }
};

// One selection of the batch through its steps.
struct Selection {
  SelectionContext ctx;
  std::unique_ptr<Selector> selector;
  SelectionOutputs outputs;  // On the leader.
  std::unique_ptr<WorkFolder> work;
  WorkCleanup cleanup;
  TargetPass target;
  std::unique_ptr<TextScorer> scorer;
  Scores scores;
  std::vector<uint64_t> kept;
  WrittenSelection written;
  uint64_t budget = 0;
  double own_seconds = 0;  // Its own steps, this process.
};

// Opens the outputs (leader) and the work folder, before any work: an unwritable path fails
// first, and nothing is left behind. Collective.
Status OpenOutputs(Selection& s) {
  const SelectionContext& ctx = s.ctx;
  const SelectOptions& o = *ctx.options;
  Status opened;
  if (ctx.leader()) {
    opened = s.outputs.Open(o.out_path, o.annotate_path, o.ManifestPath());
    if (opened.ok()) {
      auto w = WorkFolder::Open(o.out_path);
      opened = w.status();
      if (w.ok()) s.work = std::move(*w);
    }
  }
  ctx.group->SetPhase("open");
  PF_RETURN_IF_ERROR(ctx.group->Agree(opened));
  if (!ctx.leader()) s.work = WorkFolder::Join(o.out_path);
  s.cleanup.work = ctx.leader() ? s.work.get() : nullptr;
  s.ctx.work = s.work.get();
  return Status::Ok();
}

// The pool's first pass, shared: taken from `prepared` when it serves every selection (alone),
// else read, counting dsir's features when any selector needs them. Its results are kept in the
// first selection's work folder.
Status ReadPoolOnce(std::vector<std::unique_ptr<Selection>>& all, const PreparedInputs* prepared,
                    PoolPass* pool) {
  const SelectionContext& ctx = all[0]->ctx;
  bool features = false;
  for (const auto& s : all) features = features || s->selector->counts_pool_features();
  if (prepared && !ctx.distributed() && prepared->ServesPool(*ctx.pool, *ctx.options, features)) {
    *pool = prepared->pool_pass;
    pool->reads.assign(pool->sharding.shards.size(), 0);  // Read for it ahead, not by it.
    return Status::Ok();
  }
  return ReadPool(ctx, features, pool);
}

// Each selection's target: from `prepared` when it serves (alone), else read. A selector that
// does not read the target gets an empty target pass either way, so the manifest is the same.
Status ReadTargets(std::vector<std::unique_ptr<Selection>>& all, const PreparedInputs* prepared) {
  for (auto& s : all) {
    CostMeter meter;
    const TargetNeed need = s->selector->target_need();
    if (prepared && !s->ctx.distributed() &&
        prepared->ServesTarget(*s->ctx.target, *s->ctx.options, need)) {
      if (need != TargetNeed::kNothing) s->target = prepared->target_pass;
    } else {
      PF_RETURN_IF_ERROR(ReadTarget(s->ctx, need, &s->target));
    }
    s->own_seconds += meter.core_seconds();
  }
  return Status::Ok();
}

// Every selector's scores, in one read of the pool for those that score by text. Returns the
// pass's core-seconds (0 when nothing read).
Result<double> ScoreAll(std::vector<std::unique_ptr<Selection>>& all, const PoolPass& pool) {
  std::vector<ScoreJob> jobs;
  for (auto& s : all) {
    CostMeter meter;
    PF_ASSIGN_OR_RETURN(s->scorer, s->selector->Prepare(s->ctx, pool, s->target, &s->scores));
    s->own_seconds += meter.core_seconds();
    if (s->scorer) jobs.push_back({s->scorer.get(), s->work.get(), &s->scores.score});
  }
  CostMeter meter;
  if (!jobs.empty()) {
    all[0]->ctx.group->SetPhase("score");
    PF_RETURN_IF_ERROR(ScorePool(all[0]->ctx, pool, jobs));
  }
  const double shared = meter.core_seconds();
  for (auto& s : all) {
    CostMeter own;
    s->selector->Keys(s->ctx, pool, &s->scores);
    s->own_seconds += own.core_seconds();
  }
  return shared;
}

// Each selection's budget cut and the documents that explain it. Collective.
Status Cut(std::vector<std::unique_ptr<Selection>>& all, const PoolPass& pool) {
  for (auto& s : all) {
    CostMeter meter;
    const SelectOptions& o = *s->ctx.options;
    s->budget = BudgetOf(o, pool.summary);
    s->ctx.group->SetPhase("cut");
    PF_ASSIGN_OR_RETURN(
        s->kept, CutCandidates(s->ctx, Candidates(pool, s->scores, o.keep_docs > 0), s->budget));
    PickExplained(pool, s->scores, s->kept, kExplain, &s->written);
    s->own_seconds += meter.core_seconds();
  }
  return Status::Ok();
}

// The selection's result from what the passes found.
SelectionResult ResultOf(Selection& s, const PoolPass& pool_pass) {
  const SelectOptions& o = *s.ctx.options;
  SelectionResult result;
  result.pool_docs = pool_pass.summary.docs;
  result.pool_bytes = pool_pass.summary.text_bytes;
  result.kept_docs = s.written.kept_docs;
  result.kept_bytes = s.written.kept_bytes;
  (o.keep_docs > 0 ? result.budget_docs : result.budget_bytes) = s.budget;
  result.top_kept = std::move(s.written.top_kept);
  result.bottom_kept = std::move(s.written.lowest_kept);
  result.bottom_pool = std::move(s.written.lowest_in_pool);
  result.first_index = pool_pass.base;
  result.kept = std::move(s.kept);
  result.scores = s.scores.score;
  std::vector<std::string> inputs = *s.ctx.pool;
  inputs.insert(inputs.end(), s.ctx.target->begin(), s.ctx.target->end());
  result.skipped = SkippedLines(pool_pass.summary, s.target.summary, inputs);
  result.skipped_count = pool_pass.summary.bad + s.target.summary.bad;
  return result;
}

// The outputs complete on disk but unnamed, then the manifest, the caller's receipt, and last
// the kept documents named (output.h): an output at --out never lacks its manifest and receipt.
Status Commit(Selection& s, const PoolPass& pool, SelectionResult& result,
              const nlohmann::json& mpi, const nlohmann::json& passes) {
  const SelectOptions& o = *s.ctx.options;
  PF_RETURN_IF_ERROR(s.outputs.Assemble(pool.sharding, *s.work, s.written.kept_pieces,
                                        s.written.note_pieces, s.written.per_file));
  result.replaced_orphan = s.outputs.found_orphan();
  nlohmann::json m =
      BuildManifest(o, s.scores.params, pool.summary, s.target.summary, result, s.outputs);
  m["cost"] = CostJson(result, s.ctx.threads(), mpi, passes);
  result.manifest = m;
  PF_RETURN_IF_ERROR(s.outputs.CommitManifest(m.dump(2) + "\n"));
  if (o.before_naming_output) PF_RETURN_IF_ERROR(o.before_naming_output(result));
  return s.outputs.CommitData();
}

// Opens every selection's outputs and reads the targets and the pool's first pass.
Status Start(const std::vector<std::string>& pool, const std::vector<SelectionRequest>& requests,
             const ProgressFn& progress, SelectionGroup* group, CutMethod cut,
             std::vector<std::unique_ptr<Selection>>* all) {
  for (const SelectionRequest& r : requests) {
    auto s = std::make_unique<Selection>();
    s->ctx = SelectionContext{&pool, &r.target, &r.options, &progress, group, cut};
    s->selector = MakeSelector(r.options.selector);
    PF_RETURN_IF_ERROR(OpenOutputs(*s));
    all->push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<SelectionResult>> RunSelections(const std::vector<std::string>& pool,
                                                   const std::vector<SelectionRequest>& requests,
                                                   const ProgressFn& progress,
                                                   SelectionGroup* group_in,
                                                   const PreparedInputs* prepared) {
  PF_RETURN_IF_ERROR(CheckBatch(pool, requests));
  PF_ASSIGN_OR_RETURN(CutMethod cut_method, ParseCutMethod(requests[0].options.mpi_cut));
  SelectionGroup alone;
  SelectionGroup& g = group_in ? *group_in : alone;
  CostMeter total;
  std::vector<std::unique_ptr<Selection>> all;
  PF_RETURN_IF_ERROR(Start(pool, requests, progress, &g, cut_method, &all));
  PF_RETURN_IF_ERROR(ReadTargets(all, prepared));
  PoolPass pool_pass;
  CostMeter first_pass;
  PF_RETURN_IF_ERROR(ReadPoolOnce(all, prepared, &pool_pass));
  const double first_seconds = first_pass.core_seconds();
  for (auto& s : all) {
    PF_RETURN_IF_ERROR(
        g.Agree(s->ctx.leader() ? s->outputs.NameFolderFiles(pool_pass.sharding) : Status::Ok()));
  }
  PF_ASSIGN_OR_RETURN(const double score_seconds, ScoreAll(all, pool_pass));
  PF_RETURN_IF_ERROR(Cut(all, pool_pass));
  std::vector<WriteJob> jobs;
  for (auto& s : all) {
    jobs.push_back({s->ctx.options, &s->scores, &s->kept, s->work.get(), &s->written});
  }
  CostMeter write_pass;
  PF_RETURN_IF_ERROR(WriteKept(all[0]->ctx, pool_pass, jobs));
  const double write_seconds = write_pass.core_seconds();
  PF_ASSIGN_OR_RETURN(nlohmann::json mpi, GatherMpiCosts(all[0]->ctx));
  PF_ASSIGN_OR_RETURN(nlohmann::json passes, PassesJson(all[0]->ctx, pool_pass));
  size_t scorers = 0;
  for (const auto& s : all) scorers += s->scorer ? 1 : 0;
  std::vector<SelectionResult> results;
  for (auto& s : all) {
    SelectionResult result = ResultOf(*s, pool_pass);
    // Its own steps and an equal share of each pass it shared; alone, everything it took.
    double seconds = all.size() == 1
                         ? total.core_seconds()
                         : s->own_seconds + (first_seconds + write_seconds) / all.size() +
                               (s->scorer ? score_seconds / scorers : 0.0);
    PF_ASSIGN_OR_RETURN(result.core_seconds, g.SumDouble(seconds));
    result.wall_seconds = total.wall_seconds();
    if (g.leader()) PF_RETURN_IF_ERROR(Commit(*s, pool_pass, result, mpi, passes));
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace preflight::select
