// Placeholder until the forecast module lands: says so plainly and exits 1.
#include <cstdio>

#include "cli/commands.h"

namespace preflight::cli {

int RunForecast(int, char**) {
  std::fprintf(stderr, "preflight forecast: not built yet in this version\n");
  return 1;
}

}  // namespace preflight::cli
