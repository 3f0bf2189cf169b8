#pragma once
// The verified-up-to mark beside a ledger: LEDGER.verified holds {"bytes": N, "sha256": D}, the
// SHA-256 D of the ledger's first N bytes, which formed an unbroken chain when Append last wrote
// the mark (after its line, under the ledger's lock). Before an append, bytes that still hash to
// D need no second look; only the lines after them are checked line by line. A mark that does
// not match (a line edited, removed or inserted) only means the whole ledger is checked: the
// mark saves work and decides nothing. Deleting it is always safe.

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"

namespace preflight::ledger {

struct VerifiedMark {
  int64_t bytes = 0;
  std::string sha256;
};

// LEDGER + ".verified".
std::string VerifiedMarkPath(const std::string& ledger_path);

// The mark, or nullopt when there is none or it does not read as one.
std::optional<VerifiedMark> ReadVerifiedMark(const std::string& ledger_path);

// Writes the mark atomically (base/file.h).
Status WriteVerifiedMark(const std::string& ledger_path, const VerifiedMark& mark);

}  // namespace preflight::ledger
