// Placeholder until the select module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunSelect(int, char**) {
  std::fprintf(stderr, "preflight select: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
