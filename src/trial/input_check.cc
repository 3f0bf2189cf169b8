// A trial's input check (runner.h, CheckTrial): the flags, the run folder, then every input read
// once, before anything is written, with what was measured kept for RunTrial: the pool and T_sel
// as the selections' first passes (select/prepared.h), T_eval's documents for the regime check.

#include "base/clock.h"
#include "base/file.h"
#include "engine/data.h"
#include "ledger/writable.h"
#include "select/prepared.h"
#include "trial/arm_specs.h"
#include "trial/outcome_builder.h"
#include "trial/run_training.h"
#include "trial/runner.h"
#include "trial/trial_flags.h"

namespace preflight::trial {
namespace {

// Whether the run folder already holds every data arm (then the trial selects nothing and reads
// no pool). Writes nothing; fails for a folder that holds another trial.
Result<bool> ArmsAlreadyMade(const TrialConfig& c) {
  RunFolder folder(c.out_dir);
  PF_RETURN_IF_ERROR(folder.Open(c.ToJson()));
  for (const ArmSpec& spec : TrialDataSpecs(c)) {
    if (!folder.manifest().arms.count(spec.name) || !PathExists(DataPath(c, folder, spec.name))) {
      return false;
    }
  }
  return true;
}

// The selectors of the trial's data arms (a schedule trial on the pool selects nothing).
std::vector<std::string> SelectorsOf(const TrialConfig& c) {
  std::vector<std::string> out;
  for (const ArmSpec& spec : TrialDataSpecs(c)) {
    if (spec.data_kind != "pool") out.push_back(spec.data_kind);
  }
  return out;
}

ledger::InputRecord RecordOf(const corpus::InputSummary& in, const std::string& role) {
  return {role, in.path, in.sha256, in.docs, in.text_bytes};
}

// T_sel, then the pool, as the selections read them first (with their work for `selectors`:
// dsir's feature counts, the classifier's target texts).
Status ReadPoolAndTarget(const TrialConfig& c, const std::vector<std::string>& selectors,
                         CheckedInputs& out) {
  const CostMeter meter;
  PF_ASSIGN_OR_RETURN(
      select::PreparedInputs p,
      select::PrepareInputs(c.pool, {c.target_select}, SelectionOptionsOf(c), selectors));
  out.passes_core_seconds = meter.core_seconds();
  for (const corpus::InputSummary& in : p.pool_pass.summary.inputs) {
    if (in.docs == 0) return Status::InvalidArgument(in.path + ": no documents");
    out.pool.push_back(RecordOf(in, "pool"));
  }
  out.target_select = RecordOf(p.target_pass.summary.inputs.at(0), "target_select");
  out.passes = std::make_shared<const select::PreparedInputs>(std::move(p));
  return Status::Ok();
}

// T_eval's documents and record, from one read with the target's text field.
Status ReadTargetEval(const TrialConfig& c, CheckedInputs& out) {
  PF_ASSIGN_OR_RETURN(engine::JsonlTexts eval,
                      engine::ReadJsonlFile(c.target_eval, c.TargetTextField()));
  if (eval.input.docs == 0) return Status::InvalidArgument(c.target_eval + ": no documents");
  out.target_eval = RecordOf(eval.input, "target_eval");
  out.eval_texts = std::move(eval.texts);
  return Status::Ok();
}

}  // namespace

Status CheckTrial(const TrialConfig& c, CheckedInputs* checked, const ProgressFn& progress) {
  PF_RETURN_IF_ERROR(ValidateTrialFlags(c));
  PF_RETURN_IF_ERROR(ledger::CheckWritableFolder(c.out_dir, "--out"));
  PF_ASSIGN_OR_RETURN(const bool arms_made, ArmsAlreadyMade(c));
  if (progress) progress({.stage = "read inputs"});
  CheckedInputs local;
  CheckedInputs& out = checked ? *checked : local;
  out = CheckedInputs();
  if (arms_made) {
    PF_ASSIGN_OR_RETURN(out.target_select,
                        DescribeInput(c.target_select, "target_select", TargetReadOptions(c)));
  } else {
    // Without a caller to hand them to, the passes skip the selectors' own work.
    PF_RETURN_IF_ERROR(
        ReadPoolAndTarget(c, checked ? SelectorsOf(c) : std::vector<std::string>{}, out));
  }
  return ReadTargetEval(c, out);
}

}  // namespace preflight::trial
