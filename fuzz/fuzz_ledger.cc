// libFuzzer harness for the ledger parser: the bytes as a ledger file, verified, read, and
// appended to. Verify and ReadAll must agree with each other and never crash; Append must refuse
// a ledger that fails verification and extend one that passes so that the new line verifies.

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_input.h"
#include "ledger/ledger.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ledger = preflight::ledger;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static const std::string path = preflight::fuzz::ScratchPath("ledger.jsonl");
  preflight::fuzz::WriteBytes(path, bytes);
  auto report = ledger::Verify(path);
  auto all = ledger::ReadAll(path);
  if (all.ok()) {
    for (const auto& receipt : *all) (void)ledger::ReceiptHash(receipt);
  }
  nlohmann::json receipt = {{"kind", "cost"},
                            {"inputs", nlohmann::json::array()},
                            {"config", nlohmann::json::object()},
                            {"result", nlohmann::json::object()},
                            {"cost", {{"core_seconds", 1.5}, {"flops", 0}}}};
  // The verified mark an earlier input left beside the file is kept: some inputs are checked
  // through it (its prefix unparsed), the others in full; both must decide as Verify does.
  auto appended = ledger::Append(path, receipt);
  if (report.ok() && appended.ok() != report->ok) std::abort();  // extended iff it verifies
  if (appended.ok() && report.ok() && report->ok) {
    auto after = ledger::Verify(path);
    if (!after.ok() || !after->ok) std::abort();  // A sound chain stays sound.
  }
  return 0;
}
