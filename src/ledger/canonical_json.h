#pragma once
// Canonical JSON: the byte string a receipt's hash is taken over (doc/design.md, "Formats").
//
// The form is exactly what Python writes with
//   json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// so that anyone can recompute a ledger's hashes without this tool:
//   - object keys sorted by their UTF-8 bytes (the same order as by code point), no whitespace;
//   - integers in decimal, exactly (int64 and uint64);
//   - floating-point numbers as the shortest decimal that reads back to the same double, in
//     Python's repr layout: plain notation with at least one digit after the point ("1.0",
//     "0.0001", "-0.0") when the decimal exponent is in [-4, 16), otherwise exponent notation
//     ("1e+16", "1e-05", "2.5e-10");
//   - strings as raw UTF-8 with the minimal escapes: \" \\ \b \f \n \r \t, and \u00xx for the
//     other control characters below 0x20.
// Printing, parsing and printing again gives the same bytes.
//
// Non-finite numbers (NaN, +-inf) have no JSON form and invalid UTF-8 has no canonical one:
// CheckCanonicalizable() rejects both, and ledger::Append() calls it before hashing. Given such
// a value anyway, CanonicalJson() prints a non-finite number as `null` and copies invalid bytes
// as they are, so that it is total, but the result is not canonical.

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace preflight::ledger {

std::string CanonicalJson(const nlohmann::json& value);

// InvalidArgument naming the JSON pointer (e.g. "/result/loss") of the first non-finite number
// or string (value or key) that is not valid UTF-8.
Status CheckCanonicalizable(const nlohmann::json& value);

}  // namespace preflight::ledger
