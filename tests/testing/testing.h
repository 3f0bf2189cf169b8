#pragma once
// Helpers shared by the tests: scratch folders, small files, and running programs (the CLI
// binary above all) without a shell: arguments go to execv as given, so a test never depends on
// shell quoting, globbing or expansion.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace preflight::testing {

// A fresh, empty folder under the build tree's test-tmp, unique per test name.
inline std::string ScratchDir(const std::string& name) {
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/" + name + "." + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
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

// How many times `needle` occurs in `hay` (overlapping occurrences counted).
inline size_t Occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

inline bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

struct CliResult {
  int exit_code = -1;  // -1: killed by a signal or could not start
  std::string out, err;
};

// Splits a command line into words the way a test writes it: on spaces, with '...' and "..."
// grouping (no escapes, no expansion). Not a shell.
inline std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char ch : line) {
    if (quote) {
      if (ch == quote) {
        quote = 0;
      } else {
        word += ch;
      }
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
      in_word = true;
    } else if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += ch;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// Runs argv[0] (a path) with argv in `cwd`; stdout and stderr are collected through files.
inline CliResult RunProgram(const std::vector<std::string>& argv, const std::string& cwd = ".") {
  static int counter = 0;
  std::filesystem::create_directories(PREFLIGHT_TEST_TMP);
  const std::string base = std::string(PREFLIGHT_TEST_TMP) + "/run." + std::to_string(::getpid()) +
                           "." + std::to_string(counter++);
  const std::string out_path = base + ".out", err_path = base + ".err";
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  CliResult r;
  if (pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  }
  r.out = ReadText(out_path);
  r.err = ReadText(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

// Runs `preflight <args...>` in `cwd`.
inline CliResult RunCli(std::vector<std::string> args, const std::string& cwd = ".") {
  args.insert(args.begin(), PREFLIGHT_BINARY);
  return RunProgram(args, cwd);
}

// Runs `preflight <args>`, the words split by SplitWords (quotes group; nothing else is special).
inline CliResult RunCli(const std::string& args, const std::string& cwd = ".") {
  return RunCli(SplitWords(args), cwd);
}

// Starts `preflight <args>` (output discarded), waits until `path` exists (at most 60 s, or
// until the command ends by itself), then kills it with SIGKILL, without warning, as a crash or
// an out-of-memory kill would. Returns whether `path` appeared before the kill.
inline bool KillCliOnceExists(const std::string& args, const std::string& path) {
  std::vector<std::string> argv = SplitWords(args);
  argv.insert(argv.begin(), PREFLIGHT_BINARY);
  std::vector<char*> words;  // built before fork: the child only opens, dups and execs
  for (const std::string& a : argv) words.push_back(const_cast<char*>(a.c_str()));
  words.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDWR);
    if (null < 0) ::_exit(127);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(words[0], words.data());
    ::_exit(127);
  }
  if (pid < 0) return false;
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 6000 && !Exists(path); ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;  // it exited (or failed) before writing `path`
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  return Exists(path);
}

}  // namespace preflight::testing
