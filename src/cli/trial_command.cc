// Placeholder until the trial module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunTrial(int, char**) {
  std::fprintf(stderr, "preflight trial: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
