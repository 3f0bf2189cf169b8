#include "ledger/verified_mark.h"

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace preflight::ledger {

std::string VerifiedMarkPath(const std::string& ledger_path) { return ledger_path + ".verified"; }

std::optional<VerifiedMark> ReadVerifiedMark(const std::string& ledger_path) {
  auto text = ReadFileToString(VerifiedMarkPath(ledger_path));
  if (!text.ok()) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("bytes") || !j["bytes"].is_number_integer() ||
      !j.contains("sha256") || !j["sha256"].is_string()) {
    return std::nullopt;
  }
  VerifiedMark mark{j["bytes"].get<int64_t>(), j["sha256"].get<std::string>()};
  if (mark.bytes <= 0 || mark.sha256.size() != 64) return std::nullopt;
  return mark;
}

Status WriteVerifiedMark(const std::string& ledger_path, const VerifiedMark& mark) {
  const nlohmann::json j = {{"bytes", mark.bytes}, {"sha256", mark.sha256}};
  return WriteFileAtomically(VerifiedMarkPath(ledger_path), j.dump() + "\n");
}

}  // namespace preflight::ledger
