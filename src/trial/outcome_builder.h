#pragma once
// The numbers of a finished trial from its run folder: the runs collected arm by arm, the
// compute check, then metrics.h (data trials) or schedule_metrics.h (schedule trials). Used by
// RunTrial after training and by LoadTrial to read a folder back. Pure over the folder's
// contents and the held-out file's identity (T_eval is hashed, not read for training).

#include "base/status.h"
#include "select/selector.h"
#include "trial/run_folder.h"
#include "trial/runner.h"

namespace preflight::trial {

// How the trial reads the pool and its arms (the pool's lines: the pool's text field).
corpus::ReadOptions PoolReadOptions(const TrialConfig& config);
// How it reads T_sel and T_eval (the target's text field).
corpus::ReadOptions TargetReadOptions(const TrialConfig& config);

// The options of every selection the trial makes (selector and output aside): the pool's and
// the target's fields, the keep fraction, seed and threads.
select::SelectOptions SelectionOptionsOf(const TrialConfig& config);

// The flags alone (no file read): InvalidArgument naming the flag.
Status ValidateTrialFlags(const TrialConfig& config);

// The arms' specs in arm order (data trials: random, curated[, first]; schedule trials:
// baseline, then one arm per schedule).
std::vector<ArmSpec> TrialArmSpecs(const TrialConfig& config);

// The data files a trial makes: every data arm, or a schedule trial's one shared file.
std::vector<ArmSpec> TrialDataSpecs(const TrialConfig& config);

// One input file's identity for a receipt (role, path, SHA-256 of its bytes, documents, text
// bytes), from a full parse, so a bad line fails here naming file and line; InvalidArgument for
// a file without documents.
Result<ledger::InputRecord> DescribeInput(const std::string& path, const std::string& role,
                                          const corpus::ReadOptions& read);

// Every run of `config` must be in the folder's manifest. `target_eval`: T_eval's record as the
// input check measured it (nullptr: T_eval is read here to describe it).
Result<TrialOutcome> BuildOutcome(const TrialConfig& config, const RunFolder& folder,
                                  const ledger::InputRecord* target_eval = nullptr);

}  // namespace preflight::trial
