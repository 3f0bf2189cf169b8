#include "ledger/receipt.h"

#include "ledger/ledger.h"

namespace preflight::ledger {

namespace {

constexpr ReceiptKind kAllKinds[] = {
    ReceiptKind::kSelection, ReceiptKind::kForecast, ReceiptKind::kTrial,  ReceiptKind::kBattery,
    ReceiptKind::kCost,      ReceiptKind::kTrain,    ReceiptKind::kLadder, ReceiptKind::kScore};

}  // namespace

const std::vector<std::string>& AllKindNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (ReceiptKind k : kAllKinds) {
      names.emplace_back(KindName(k));
    }
    return names;
  }();
  return kNames;
}

const char* KindName(ReceiptKind kind) {
  switch (kind) {
    case ReceiptKind::kSelection:
      return "selection";
    case ReceiptKind::kForecast:
      return "forecast";
    case ReceiptKind::kTrial:
      return "trial";
    case ReceiptKind::kBattery:
      return "battery";
    case ReceiptKind::kCost:
      return "cost";
    case ReceiptKind::kTrain:
      return "train";
    case ReceiptKind::kLadder:
      return "ladder";
    case ReceiptKind::kScore:
      return "score";
  }
  return "unknown";
}

std::optional<ReceiptKind> KindFromName(std::string_view name) {
  for (ReceiptKind k : kAllKinds) {
    if (name == KindName(k)) return k;
  }
  return std::nullopt;
}

std::optional<ReceiptKind> KindOf(const nlohmann::json& receipt) {
  if (!receipt.is_object()) return std::nullopt;
  const auto it = receipt.find("kind");
  if (it == receipt.end() || !it->is_string()) return std::nullopt;
  return KindFromName(it->get_ref<const std::string&>());
}

nlohmann::json InputJson(const InputRecord& input) {
  return {{"role", input.role},
          {"path", input.path},
          {"sha256", input.sha256},
          {"docs", input.docs},
          {"bytes", input.bytes}};
}

nlohmann::json ReceiptJson(const Receipt& receipt) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputRecord& input : receipt.inputs) inputs.push_back(InputJson(input));
  return {{"kind", KindName(receipt.kind)},
          {"inputs", inputs},
          {"config", receipt.config},
          {"result", receipt.result},
          {"cost", {{"core_seconds", receipt.core_seconds}, {"flops", receipt.flops}}}};
}

Result<std::string> AppendReceipt(const std::string& ledger_path, const Receipt& receipt) {
  PF_ASSIGN_OR_RETURN(nlohmann::json appended, Append(ledger_path, ReceiptJson(receipt)));
  return appended["hash"].get<std::string>();
}

}  // namespace preflight::ledger
