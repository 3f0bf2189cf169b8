#pragma once
// The receipt of a selection, shared by `select` and `demo`.

#include <string>

#include "base/status.h"
#include "select/selector.h"

namespace preflight::app {

// Appends a "selection" receipt (inputs: every pool and target file with its SHA-256) to the
// ledger and returns its hash.
Result<std::string> AppendSelectionReceipt(const select::SelectOptions& options,
                                           const select::SelectionResult& result,
                                           const std::string& ledger_path);

// Makes the selection `options` describes append its receipt (into *receipt_hash) after its
// manifest is named and before its output is (select::SelectOptions::before_naming_output): if
// the append fails, no output is named and the manifest is removed, so a selection that cannot
// be accounted for is not kept. `options` and `receipt_hash` must outlive the selection.
void RecordSelectionBeforeNaming(select::SelectOptions& options, const std::string& ledger_path,
                                 std::string* receipt_hash);

}  // namespace preflight::app
