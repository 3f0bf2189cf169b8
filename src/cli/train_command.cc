// Placeholder until the train module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunTrain(int, char**) {
  std::fprintf(stderr, "preflight train: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
