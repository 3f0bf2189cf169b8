// Placeholder until the plan module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunPlan(int, char**) {
  std::fprintf(stderr, "preflight plan: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
