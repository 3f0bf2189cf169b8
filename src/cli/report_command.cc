// Placeholder until the report module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunReport(int, char**) {
  std::fprintf(stderr, "preflight report: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
