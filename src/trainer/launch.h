#pragma once
// One launch of a trainer's command: /bin/sh -c COMMAND in the run's folder, with PREFLIGHT_*
// added to the environment, stdout and stderr appended to stdout.log and stderr.log there, and
// launch.json (below) written when it starts and rewritten when it ends. Wall seconds are
// measured here; CPU seconds are the child's and its waited-for descendants' (wait4's rusage).
//
// A run folder holds at most one live launch: the launch holds an flock on RUN_DIR/launch.lock
// that its whole process tree inherits, so a launch left running by a killed preflight is found
// (StartLaunch refuses to start another beside it). The children stay in preflight's process
// group, so a Ctrl-C in the terminal reaches them too.
//
// launch.json: {"run", "command", "cwd", "env": {NAME: value}, "attempt" (1 + earlier launches of
// this run), "pid", "started_at", "ended_at" (null while running), "exit_code" (null while
// running or when killed by a signal), "signal" (0 unless killed by one), "wall_seconds",
// "cpu_seconds" (this launch's), "earlier_wall_seconds", "earlier_cpu_seconds" (the sums over
// the run's earlier launches that ended; a launch killed with preflight counts for nothing)}.
// Not thread-safe: one thread starts and polls launches (the parallel executor does).

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace preflight::trainer {

struct LaunchSpec {
  std::string run;      // names the run in messages, e.g. "curated-s2"
  std::string command;  // for /bin/sh -c
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing) the inherited
  std::string cwd;                                       // the run folder (made if missing)
};

struct LaunchRecord {
  std::string run, command, cwd;
  std::vector<std::pair<std::string, std::string>> env;
  int attempt = 1;
  int64_t pid = 0;
  std::string started_at, ended_at;  // ended_at "" while running
  std::optional<int> exit_code;      // none while running or when a signal ended it
  int signal = 0;
  double wall_seconds = 0, cpu_seconds = 0;
  double earlier_wall_seconds = 0, earlier_cpu_seconds = 0;

  bool ended() const { return !ended_at.empty(); }
  bool succeeded() const { return ended() && exit_code && *exit_code == 0; }
};

nlohmann::json LaunchRecordToJson(const LaunchRecord& record);
// RUN_DIR/launch.json; NotFound when there is none, Corruption naming the file when damaged.
Result<LaunchRecord> ReadLaunchRecord(const std::string& run_dir);
std::string LaunchJsonPath(const std::string& run_dir);

// A launch in flight.
struct RunningLaunch {
  pid_t pid = -1;
  double started_wall = 0;
  LaunchRecord record;
};

// Starts the launch. IOError when the folder cannot be written, the process cannot start, or an
// earlier launch of this run is still running.
Result<RunningLaunch> StartLaunch(const LaunchSpec& spec);

// Whether the launch has ended (without waiting); when it has, its record is complete and
// launch.json rewritten.
Result<bool> PollLaunch(RunningLaunch& launch);

// Waits for the launch to end (polling every 50 ms).
Result<LaunchRecord> WaitLaunch(RunningLaunch& launch);

// The last `lines` lines of RUN_DIR/stderr.log (of stdout.log when stderr.log is empty), each
// indented "  | " and cut at 300 characters; "  (no output)" when both are empty.
std::string LogTail(const std::string& run_dir, int lines = 15);

}  // namespace preflight::trainer
