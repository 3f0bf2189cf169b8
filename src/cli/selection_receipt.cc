#include "cli/selection_receipt.h"

#include <cstdio>

#include "ledger/ledger.h"

namespace preflight::cli {

std::string ManifestPath(const select::SelectOptions& o) {
  return o.manifest_path.empty() ? o.out_path + ".manifest.json" : o.manifest_path;
}

Result<std::string> AppendSelectionReceipt(const select::SelectOptions& o,
                                           const select::SelectionResult& result,
                                           const std::string& ledger_path) {
  const nlohmann::json& m = result.manifest;
  nlohmann::json inputs = nlohmann::json::array();
  for (const char* role : {"pool", "target"}) {
    for (const auto& in : m["inputs"][role]) {
      inputs.push_back({{"role", role},
                        {"path", in["path"]},
                        {"sha256", in["sha256"]},
                        {"docs", in["docs"]},
                        {"bytes", in["bytes"]}});
    }
  }
  nlohmann::json receipt = {
      {"kind", "selection"},
      {"inputs", inputs},
      {"config",
       {{"selector", o.selector},
        {"keep", o.keep},
        {"seed", o.seed},
        {"params", m["params"]},
        {"text_field", o.read.text_field},
        {"skip_bad", o.read.skip_bad}}},
      {"result",
       {{"pool_docs", m["pool_docs"]},
        {"pool_bytes", m["pool_bytes"]},
        {"budget_bytes", m["budget_bytes"]},
        {"kept_docs", m["kept_docs"]},
        {"kept_bytes", m["kept_bytes"]},
        {"output", m["output"]},
        {"manifest", ManifestPath(o)}}},
      // Selection is hashing and counting, not floating-point work: its FLOPs are not counted
      // (recorded as 0); its cost is the measured core-seconds.
      {"cost", {{"core_seconds", result.core_seconds}, {"flops", 0}}}};
  auto appended = ledger::Append(ledger_path, receipt);
  if (!appended.ok()) {
    std::remove(o.out_path.c_str());
    std::remove(ManifestPath(o).c_str());
    return appended.status();
  }
  return (*appended)["hash"].get<std::string>();
}

}  // namespace preflight::cli
