#pragma once
// Can a command write where it was told to, checked before any work (README: an output that
// cannot be written exits 2 before anything is computed). Every command that writes a file or a
// folder also appends a receipt, so the check lives beside the ledger's, in the lowest module
// the jobs share.
//
// The checks probe for real instead of asking access(2): as root access(2) says yes to every
// path, even under /proc or on a read-only mount. A probe creates an empty file with a unique
// name (".preflight-probe-<pid>-<n>") in the folder that will hold the output, or in its nearest
// existing ancestor when folders are still to be made, and removes it at once. Nothing else is
// written, and no folder is created.
//
// Each returns InvalidArgument (exit 2) naming the path, the flag and the reason.

#include <string>

#include "base/status.h"

namespace preflight::ledger {

// A file to be written whole (atomically: a temporary beside it, then renamed): `path` is not a
// folder, a symbolic link, a FIFO, a socket or a device (base/file.h, CheckReplaceableFile), and
// its folder exists and takes a new file, or can be made.
Status CheckWritableFile(const std::string& path, const std::string& flag);

// A folder to be made (if missing) and written into.
Status CheckWritableFolder(const std::string& dir, const std::string& flag);

// A file to be appended to (the ledger): it exists, is a regular file (a symbolic link to one is
// followed: appending does not replace it) and opens for reading and appending, or it can be
// created as CheckWritableFile says.
Status CheckAppendableFile(const std::string& path, const std::string& flag);

// The usual pair of a job that trains (trial, ladder, battery, demo): its ledger
// (ledger.h, CheckAppendable), then its --out folder. Their commands call it before they time
// anything, so that an estimate is never printed for work that cannot be kept.
Status CheckLedgerAndOutFolder(const std::string& ledger_path, const std::string& out_dir);

}  // namespace preflight::ledger
