#pragma once
// The numbers of a finished trial from its run folder: the runs collected arm by arm, the
// compute check, then metrics.h (data trials) or schedule_metrics.h (schedule trials). Used by
// RunTrial after training and by LoadTrial to read a folder back. Pure over the folder's
// contents and the held-out file's identity (T_eval is hashed, not read for training).

#include "base/status.h"
#include "corpus/record.h"
#include "trial/run_folder.h"
#include "trial/runner.h"

namespace preflight::trial {

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
