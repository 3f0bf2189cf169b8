// Placeholder until the fit module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunFit(int, char**) {
  std::fprintf(stderr, "preflight fit: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
