// Placeholder until the cost module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunCost(int, char**) {
  std::fprintf(stderr, "preflight cost: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
