#pragma once
// The ledger: an append-only JSONL file of receipts, each linked to the one before by hash
// (doc/design.md, "Formats"; the byte format is in doc/ledger-format.md).
//
// A receipt is one JSON object with exactly these fields:
//   kind        "forecast" | "selection" | "trial" | "battery" | "cost" | "train" |
//               "ladder"                                                  (caller)
//   inputs      [{"path", "sha256", "docs", "bytes", ...}, ...]           (caller)
//   config      object                                                    (caller)
//   result      object                                                    (caller)
//   cost        {"core_seconds", "flops", ...}                            (caller)
//   created_at  UTC RFC 3339 with milliseconds                            (Append)
//   tool        {"version", "git_commit"}                                 (Append)
//   prev        the previous line's "hash"; 64 zeros on the first line    (Append)
//   hash        SHA-256 (lower-case hex) of CanonicalJson of the receipt without "hash"
// Each line of the ledger is CanonicalJson(receipt) followed by "\n".
//
// Thread- and process-safety: Append holds an exclusive flock(2) on the ledger file from the
// read of the previous hash to the fsync of the new line, so any number of threads and
// processes on one machine may append to one ledger. Verify and ReadAll hold a shared lock, so
// they never see half a line of a concurrent Append. (flock does not lock across NFS clients.)

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "ledger/canonical_json.h"
#include "ledger/receipt.h"

namespace preflight::ledger {

// The `prev` of the first line.
inline constexpr const char* kGenesisHash =
    "0000000000000000000000000000000000000000000000000000000000000000";

// ".preflight/ledger.jsonl": relative, so it lives in the working directory.
std::string DefaultLedgerPath();

// One input file of a receipt. to_json/from_json make `nlohmann::json j = input;` and
// `j.get<InputFile>()` work; from_json throws nlohmann::json::exception on a missing field.
struct InputFile {
  std::string path;
  std::string sha256;  // Lower-case hex of the bytes read.
  uint64_t docs = 0;
  uint64_t bytes = 0;
};
void to_json(nlohmann::json& j, const InputFile& f);
void from_json(const nlohmann::json& j, InputFile& f);

// SHA-256 hex of CanonicalJson of `receipt` without its "hash" field.
std::string ReceiptHash(const nlohmann::json& receipt);

// Fills created_at, tool, prev and hash, and appends the receipt as one line, creating the
// ledger's folder and file if needed. Returns the receipt as written.
//   InvalidArgument: the receipt lacks a caller field, has a field of the wrong type, an unknown
//     kind, an extra top-level field, a field Append fills, a non-finite number or non-UTF-8 text.
//   Corruption: the ledger fails verification: its last line is incomplete (no final newline:
//     an earlier write was cut off), or a line is not a receipt, or its hash or link is wrong (a
//     line edited, removed, inserted or reordered). A ledger that fails verification is never
//     extended; the message names the first bad line and says to run `preflight ledger verify`.
//   IOError: the file cannot be created, locked, written or fsync'ed. A failed write is cut back
//     off, so the ledger is left as it was.
// The chain is checked under the lock before the line is written: the bytes the verified mark
// still covers (verified_mark.h) by their SHA-256 alone, every later line as Verify checks it.
// Append then moves the mark to the new end. On a 100k-line, 964 MB ledger the check took 0.86
// CPU-seconds with the mark against 28 for every line (bench/ledger/run.sh).
Result<nlohmann::json> Append(const std::string& ledger_path, nlohmann::json receipt);

// InvalidArgument naming the path unless Append could write there: the ledger file opens for
// appending, or (when it does not exist yet) its nearest existing folder takes a new file
// (probed for real: ledger/writable.h); Corruption when an existing ledger fails verification as
// Append would find it. Jobs call it before any work, so that a receipt that cannot be kept
// does not cost a whole trial.
Status CheckAppendable(const std::string& ledger_path);

struct VerifyReport {
  bool ok = true;
  int64_t lines = 0;           // Lines in the file (a final line without newline counts).
  int64_t first_bad_line = 0;  // 1-based; 0 when ok.
  std::string reason;          // Why that line is bad, e.g. "hash mismatch: ..."; "" when ok.
};

// Recomputes every hash and every link. A damaged ledger is a successful Verify with ok ==
// false (the report names the first bad line); the Status is an error only when the file
// cannot be read: NotFound when it does not exist, IOError otherwise. An empty file is ok.
Result<VerifyReport> Verify(const std::string& ledger_path);

// Every receipt, in file order. Corruption naming the line if one is not a JSON object or the
// last line is incomplete; NotFound if the file does not exist. Hashes are not checked: call
// Verify for that.
Result<std::vector<nlohmann::json>> ReadAll(const std::string& ledger_path);

// A receipt of a ledger as written, found by its hash.
struct StoredReceipt {
  ReceiptKind kind = ReceiptKind::kSelection;
  std::string hash;
  int64_t line = 0;     // 1-based line of the ledger
  nlohmann::json json;  // the whole receipt (its config and result are the caller's JSON)
};

// The receipt of `kind` whose "hash" is `hash`, under a shared lock like ReadAll. NotFound naming
// the ledger when it does not exist, when no line has that hash, or when the line that has it is
// another kind (the message names it); Corruption when that line is not a JSON object. Only the
// line found is parsed (it is found by its text, "hash":"<hash>"); hashes are not checked: call
// Verify for that.
Result<StoredReceipt> FindReceipt(const std::string& ledger_path, const std::string& hash,
                                  ReceiptKind kind);

}  // namespace preflight::ledger
