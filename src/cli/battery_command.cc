// Placeholder until the battery module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunBattery(int, char**) {
  std::fprintf(stderr, "preflight battery: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
