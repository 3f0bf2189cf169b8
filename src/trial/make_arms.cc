#include "trial/make_arms.h"

#include <fmt/format.h>

#include "base/file.h"
#include "engine/data.h"
#include "select/batch.h"
#include "select/prepared.h"
#include "trial/arm_overlap.h"
#include "trial/arm_specs.h"
#include "trial/ngram_scores.h"
#include "trial/outcome_builder.h"
#include "trial/run_training.h"

namespace preflight::trial {

namespace {

// The arms' selections as one batch (select/batch.h), from the input check's passes when there
// are some.
Result<std::vector<ArmRecord>> SelectArms(const TrialConfig& c,
                                          const std::vector<const ArmSpec*>& specs,
                                          const std::vector<std::string>& paths,
                                          const CheckedInputs* checked) {
  std::vector<select::SelectionRequest> requests;
  for (size_t i = 0; i < specs.size(); ++i) {
    select::SelectOptions o = SelectionOptionsOf(c);
    o.selector = specs[i]->data_kind;
    if (specs[i]->keep > 0) o.keep = specs[i]->keep;
    o.out_path = paths[i];
    requests.push_back({{c.target_select}, o});
  }
  const select::PreparedInputs* passes = checked ? checked->passes.get() : nullptr;
  PF_ASSIGN_OR_RETURN(std::vector<select::SelectionResult> made,
                      select::RunSelections(c.pool, requests, {}, nullptr, passes));
  std::vector<ArmRecord> records;
  for (size_t i = 0; i < made.size(); ++i) {
    select::SelectionResult& s = made[i];
    // A keep trial charges every arm the first pass it was handed, as its selection alone pays
    // it.
    if (c.IsKeepTrial() && passes) s.core_seconds += checked->passes_core_seconds;
    ArmRecord a;
    a.data_kind = specs[i]->data_kind;
    a.schedule = specs[i]->schedule;
    a.kept_docs = s.kept_docs;
    a.kept_bytes = s.kept_bytes;
    a.budget_bytes = s.budget_bytes;
    a.pool_docs = s.pool_docs;
    a.pool_bytes = s.pool_bytes;
    a.selection_core_seconds = s.core_seconds;
    a.output_sha256 = s.manifest["output"]["sha256"].get<std::string>();
    for (const nlohmann::json& in : select::ReceiptInputs(s.manifest["inputs"])) {
      a.inputs.push_back({in["role"], in["path"], in["sha256"], in["docs"], in["bytes"]});
    }
    records.push_back(std::move(a));
  }
  return records;
}

// A schedule trial on the pool as it is: the pool file is the data (described by the input check
// when it read the pool).
Result<ArmRecord> PoolArm(const TrialConfig& c, const CheckedInputs* checked) {
  ledger::InputRecord pool;
  if (checked && !checked->pool.empty()) {
    pool = checked->pool[0];
  } else {
    PF_ASSIGN_OR_RETURN(pool, DescribeInput(c.pool[0], "pool", PoolReadOptions(c)));
  }
  ArmRecord a;
  a.data_kind = "pool";
  a.kept_docs = a.pool_docs = pool.docs;
  a.kept_bytes = a.budget_bytes = a.pool_bytes = pool.bytes;
  a.output_sha256 = pool.sha256;
  a.inputs = {pool};
  return a;
}

}  // namespace

// Makes (or finds, from an earlier invocation) every arm's data: the selections as one batch,
// the manifest saved once they are made.
Result<std::vector<MadeArm>> MakeArms(const TrialConfig& c, RunFolder& folder, int total_runs,
                                      const ProgressFn& progress, const CheckedInputs* checked) {
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(c.out_dir, "arms")));
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(c.out_dir, "runs")));
  const std::vector<ArmSpec> specs = TrialDataSpecs(c);
  auto& arms = folder.manifest().arms;
  std::vector<const ArmSpec*> to_select;
  std::vector<std::string> paths;
  std::string names;
  for (const ArmSpec& spec : specs) {
    const std::string path = DataPath(c, folder, spec.name);
    if (arms.count(spec.name) && PathExists(path)) continue;
    if (spec.data_kind == "pool") {
      PF_ASSIGN_OR_RETURN(arms[spec.name], PoolArm(c, checked));
      PF_RETURN_IF_ERROR(folder.Save());
      continue;
    }
    to_select.push_back(&spec);
    paths.push_back(path);
    names += (names.empty() ? "" : ", ") + spec.name + " (" + spec.data_kind + ")";
  }
  if (!to_select.empty()) {
    if (progress) progress({.stage = "select " + names, .runs = total_runs});
    PF_ASSIGN_OR_RETURN(std::vector<ArmRecord> records, SelectArms(c, to_select, paths, checked));
    for (size_t i = 0; i < to_select.size(); ++i) arms[to_select[i]->name] = std::move(records[i]);
    PF_RETURN_IF_ERROR(folder.Save());
  }
  std::vector<MadeArm> made;
  for (const ArmSpec& spec : specs) {
    made.push_back({spec.name, DataPath(c, folder, spec.name), arms[spec.name]});
  }
  return made;
}

// Two arms of the same documents can only measure a saving of 0: refused (InvalidArgument,
// exit 2), before the forecast and any training step. A pool too small for two different
// selections of the budget (3 documents, --keep 0.25) gives that.
Status CheckArmsDiffer(const std::vector<MadeArm>& made) {
  for (size_t i = 0; i < made.size(); ++i) {
    for (size_t j = i + 1; j < made.size(); ++j) {
      const ArmRecord& a = made[i].record;
      if (a.output_sha256.empty() || a.output_sha256 != made[j].record.output_sha256) continue;
      return Status::InvalidArgument(fmt::format(
          "the {} and {} arms hold the same {} documents ({} bytes of a pool of {} documents): "
          "a trial cannot compare an arm with itself; give a pool with more documents{}",
          made[i].name, made[j].name, a.kept_docs, a.kept_bytes, a.pool_docs,
          made[i].record.data_kind == made[j].record.data_kind
              ? " (or --keep fractions further apart)"
              : ""));
    }
  }
  return Status::Ok();
}

// The regime check's n-gram scores of every arm's data (the pool's lines: the pool's field) on
// T_eval (the target's field), scored on the runs' own eval windows; each arm's are computed once
// and saved (a folder whose arms lack them gains them). T_eval's documents are the input
// check's, else read here once for every arm.
Status ScoreArms(const TrialConfig& c, RunFolder& folder, std::vector<MadeArm>& made,
                 int total_runs, const ProgressFn& progress, const CheckedInputs* checked) {
  const NgramEvalWindows windows{c.model.context, c.eval_max_windows};
  const std::vector<std::string>* eval = checked ? &checked->eval_texts : nullptr;
  std::vector<std::string> eval_read_here;
  for (MadeArm& arm : made) {
    ArmRecord& record = folder.manifest().arms[arm.name];
    if (!record.ngram || !record.eval_copies) {
      if (progress)
        progress({.stage = "regime " + arm.name + " (byte n-grams)", .runs = total_runs});
      if (eval == nullptr) {
        PF_ASSIGN_OR_RETURN(eval_read_here,
                            engine::ReadJsonlTexts(c.target_eval, c.TargetTextField()));
        eval = &eval_read_here;
      }
      PF_ASSIGN_OR_RETURN(std::vector<std::string> docs,
                          engine::ReadJsonlTexts(arm.path, c.text_field));
      if (!record.ngram) {
        PF_ASSIGN_OR_RETURN(
            record.ngram, ScoreNgramTexts(docs, *eval, c.target_eval, kDefaultNgramOrder, windows));
      }
      record.eval_copies = CountCopies(docs, *eval);  // from the same read (arm_overlap.h)
      PF_RETURN_IF_ERROR(folder.Save());
    }
    arm.record = record;
  }
  return Status::Ok();
}

}  // namespace preflight::trial
