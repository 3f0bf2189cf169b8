// Placeholder until the memory module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunMemory(int, char**) {
  std::fprintf(stderr, "preflight memory: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
