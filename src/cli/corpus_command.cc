// Placeholder until the corpus module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunCorpus(int, char**) {
  std::fprintf(stderr, "preflight corpus: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
