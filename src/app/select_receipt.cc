#include "app/select_receipt.h"

#include "ledger/receipt.h"

namespace preflight::app {

Result<std::string> AppendSelectionReceipt(const select::SelectOptions& o,
                                           const select::SelectionResult& result,
                                           const std::string& ledger_path) {
  const nlohmann::json& m = result.manifest;  // as written: every key below is there
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kSelection;
  for (const char* role : {"pool", "target"}) {
    for (const auto& in : m["inputs"][role]) {
      receipt.inputs.push_back({role, in["path"], in["sha256"], in["docs"], in["bytes"]});
    }
  }
  receipt.config = {{"selector", o.selector},
                    {"keep", o.keep},
                    {"seed", o.seed},
                    {"params", m["params"]},
                    {"text_field", o.read.text_field},
                    {"id_field", o.id_field},
                    {"target_text_field", o.TargetRead().text_field},
                    {"target_id_field", o.TargetIdField()},
                    {"skip_bad", o.read.skip_bad}};
  receipt.result = {{"pool_docs", m["pool_docs"]},       {"pool_bytes", m["pool_bytes"]},
                    {"budget_bytes", m["budget_bytes"]}, {"kept_docs", m["kept_docs"]},
                    {"kept_bytes", m["kept_bytes"]},     {"output", m["output"]},
                    {"manifest", o.ManifestPath()}};
  // Selection is hashing and counting, not floating-point work: its FLOPs are not counted
  // (recorded as 0); its cost is the measured core-seconds.
  receipt.core_seconds = result.core_seconds;
  return ledger::AppendReceipt(ledger_path, receipt);
}

void RecordSelectionBeforeNaming(select::SelectOptions& o, const std::string& ledger_path,
                                 std::string* receipt_hash) {
  o.before_naming_output = [&o, ledger_path, receipt_hash](const select::SelectionResult& r) {
    PF_ASSIGN_OR_RETURN(*receipt_hash, AppendSelectionReceipt(o, r, ledger_path));
    return Status::Ok();
  };
}

}  // namespace preflight::app
