#include "app/select_job.h"

#include <fmt/format.h>

#include <memory>

#include "app/select_receipt.h"
#include "base/number_format.h"
#include "ledger/ledger.h"
#include "mpi/ranks.h"

namespace preflight::app {

Result<SelectJob> RunSelectJob(const SelectRequest& request, const ProgressFn& progress) {
  // The receipt's ledger, before any work (the outputs are opened first by the selection).
  PF_RETURN_IF_ERROR(ledger::CheckAppendable(request.ledger_path));
  SelectJob job;
  job.options = request.options;
  job.ledger_path = request.ledger_path;
  select::SelectOptions& o = job.options;
  // Under mpirun every rank runs the selection; rank 0 shows progress, writes the outputs and
  // the receipt; the others only report a failure.
  std::unique_ptr<select::SelectionGroup> group = mpi::MakeSelectionGroup();
  if (o.threads == 0) o.threads = mpi::DefaultThreads();  // this machine's cores, shared by ranks
  if (o.threads < 0) o.threads = 1;
  job.leader = !group || group->leader();
  RecordSelectionBeforeNaming(o, request.ledger_path, &job.receipt_hash);
  PF_ASSIGN_OR_RETURN(job.result,
                      select::RunSelection(request.pool, request.target, o,
                                           job.leader ? progress : ProgressFn(), group.get()));
  o.before_naming_output = nullptr;  // it refers to this job's options and hash
  return job;
}

nlohmann::json SelectJobJson(const SelectJob& job) {
  const select::SelectOptions& o = job.options;
  const select::SelectionResult& r = job.result;
  const nlohmann::json& m = r.manifest;
  return {
      {"selector", o.selector},
      {"seed", o.seed},
      {"keep", m["keep"]},
      {"budget", m["budget"]},
      {"pool_docs", r.pool_docs},
      {"pool_bytes", r.pool_bytes},
      {"budget_bytes", r.budget_bytes},
      {"budget_docs", r.budget_docs},
      {"kept_docs", r.kept_docs},
      {"kept_bytes", r.kept_bytes},
      {"cost", {{"core_seconds", r.core_seconds}, {"wall_seconds", r.wall_seconds}}},
      {"out", o.out_path},
      {"manifest", o.ManifestPath()},
      {"annotations", o.annotate_path.empty() ? nlohmann::json() : nlohmann::json(o.annotate_path)},
      {"receipt", job.receipt_hash},
      {"skipped_bad_lines", m["skipped_bad_lines"]}};
}

std::string SelectJobText(const SelectJob& job) {
  const select::SelectOptions& o = job.options;
  const select::SelectionResult& r = job.result;
  const std::string budget = r.budget_docs > 0 ? std::to_string(r.budget_docs) + " documents"
                                               : HumanBytes(static_cast<double>(r.budget_bytes));
  std::string out = fmt::format(
      "{} kept {} of {} documents, {} of {} (budget {}), in {:.2f} core-seconds\n", o.selector,
      r.kept_docs, r.pool_docs, HumanBytes(static_cast<double>(r.kept_bytes)),
      HumanBytes(static_cast<double>(r.pool_bytes)), budget, r.core_seconds);
  out += fmt::format("  out      {}\n  manifest {}\n  receipt  {} ({})\n", o.out_path,
                     o.ManifestPath(), job.receipt_hash.substr(0, 16), job.ledger_path);
  const uint64_t skipped = r.manifest["skipped_bad_lines"].get<uint64_t>();
  if (skipped > 0) out += fmt::format("  skipped  {} bad lines (--skip-bad)\n", skipped);
  return out;
}

std::vector<std::string> SkippedLines(const select::SelectionResult& r) {
  std::vector<std::string> out;
  for (const auto& s : r.skipped) out.push_back("skipped " + s.where + ": " + s.why);
  if (r.skipped_count > r.skipped.size()) {
    out.push_back(fmt::format("skipped {} more bad lines (the manifest lists the first {})",
                              r.skipped_count - r.skipped.size(), r.skipped.size()));
  }
  return out;
}

}  // namespace preflight::app
