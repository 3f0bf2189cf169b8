// Placeholder until the ledger module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunLedger(int, char**) {
  std::fprintf(stderr, "preflight ledger: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
