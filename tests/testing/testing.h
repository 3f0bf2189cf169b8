#pragma once
// Helpers shared by the tests: scratch folders, small files, and running the CLI binary.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace preflight::testing {

// A fresh, empty folder under the build tree's test-tmp, unique per test name.
inline std::string ScratchDir(const std::string& name) {
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/" + name + "." + std::to_string(::getpid());
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) std::abort();
  return dir;
}

inline void WriteText(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs `preflight <args>` (args are passed through the shell as written) in `cwd`.
inline CliResult RunCli(const std::string& args, const std::string& cwd = ".") {
  static int counter = 0;
  std::string base = std::string(PREFLIGHT_TEST_TMP) + "/cli." + std::to_string(::getpid()) + "." +
                     std::to_string(counter++);
  std::string cmd = "cd '" + cwd + "' && '" + PREFLIGHT_BINARY + "' " + args + " >'" + base +
                    ".out' 2>'" + base + ".err'";
  std::system(("mkdir -p '" + std::string(PREFLIGHT_TEST_TMP) + "'").c_str());
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadText(base + ".out");
  r.err = ReadText(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace preflight::testing
