#pragma once
// Headless Chromium for the rendering tests: find the binary and run it with a fresh profile
// and a time limit.

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "testing/testing.h"

namespace preflight::testing {

// $PREFLIGHT_CHROMIUM, else chromium or chromium-browser on $PATH; "" when none.
inline std::string FindChromium() {
  if (const char* env = std::getenv("PREFLIGHT_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

// Runs `chromium` headless on `url` with `flags` (split by SplitWords), a fresh profile under
// `scratch` and a 60 s limit (it can hang). Its stdout goes to `out`, stderr to `out`.log.
// Returns the exit status (124: timed out).
inline int RunChromium(const std::string& chromium, const std::string& scratch,
                       const std::string& flags, const std::string& url, const std::string& out) {
  std::string profile_template = scratch + "/profile-XXXXXX";
  char* profile = ::mkdtemp(profile_template.data());
  if (profile == nullptr) return -1;
  std::vector<std::string> argv = {"timeout",
                                   "60",
                                   chromium,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--disable-dev-shm-usage",
                                   std::string("--user-data-dir=") + profile};
  for (const std::string& f : SplitWords(flags)) argv.push_back(f);
  argv.push_back(url);
  CliResult r = RunProgram(argv);
  WriteText(out, r.out);
  WriteText(out + ".log", r.err);
  std::filesystem::remove_all(profile);
  return r.exit_code;
}

}  // namespace preflight::testing
