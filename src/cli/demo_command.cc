// Placeholder until the demo module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunDemo(int, char**) {
  std::fprintf(stderr, "preflight demo: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
