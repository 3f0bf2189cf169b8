#pragma once
// Receipts, built in one place. Every job that leaves a receipt (select, forecast, trial,
// battery, train, cost, ladder, score) fills a typed Receipt and appends it here; ledger.h adds the
// time, the tool, the link and the hash. The ledger knows nothing of training: config and result
// are the caller's JSON (the receipt's edge), inputs and cost are typed.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight::ledger {

// kScore: runs made elsewhere, scored by `preflight score` (the arms were not made by preflight).
enum class ReceiptKind { kSelection, kForecast, kTrial, kBattery, kCost, kTrain, kLadder, kScore };

// "selection", "forecast", ...: the receipt's "kind" field.
const char* KindName(ReceiptKind kind);

// Every kind's name, in the enum's order.
const std::vector<std::string>& AllKindNames();

// The kind named `name` ("forecast", ...); nullopt for a name that is no receipt kind.
std::optional<ReceiptKind> KindFromName(std::string_view name);

// A receipt's "kind" field, typed; nullopt when it is missing, not a string or no receipt kind.
std::optional<ReceiptKind> KindOf(const nlohmann::json& receipt);

// A file the receipt's result depends on, identified by the SHA-256 of the bytes read.
struct InputRecord {
  std::string role;  // "pool", "target_select", "target_eval", "spec", "data", ...
  std::string path;
  std::string sha256;
  uint64_t docs = 0;
  uint64_t bytes = 0;  // text bytes of the documents read
};
nlohmann::json InputJson(const InputRecord& input);

struct Receipt {
  ReceiptKind kind = ReceiptKind::kSelection;
  std::vector<InputRecord> inputs;
  nlohmann::json config = nlohmann::json::object();
  nlohmann::json result = nlohmann::json::object();
  double core_seconds = 0;  // measured on this machine
  double flops = 0;         // floating-point work (0 where the work is hashing and counting)
};

// The caller's part of the receipt as JSON (kind, inputs, config, result, cost).
nlohmann::json ReceiptJson(const Receipt& receipt);

// Appends the receipt to the ledger (ledger.h: Append) and returns its hash.
Result<std::string> AppendReceipt(const std::string& ledger_path, const Receipt& receipt);

}  // namespace preflight::ledger
