#pragma once
// The receipt of a selection, shared by `select` and `demo`.

#include <string>

#include "base/status.h"
#include "select/selector.h"

namespace preflight::app {

// The manifest path a selection writes (OUT.manifest.json unless --manifest was given).
std::string ManifestPath(const select::SelectOptions& options);

// Appends a "selection" receipt (inputs: every pool and target file with its SHA-256) to the
// ledger and returns its hash. If the append fails, the selection's output and manifest are
// removed: a selection that cannot be accounted for is not kept.
Result<std::string> AppendSelectionReceipt(const select::SelectOptions& options,
                                           const select::SelectionResult& result,
                                           const std::string& ledger_path);

}  // namespace preflight::app
