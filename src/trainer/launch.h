#pragma once
// One launch of a trainer's command: /bin/sh -c COMMAND in the run's folder, with PREFLIGHT_*
// added to the environment, stdout and stderr appended to stdout.log and stderr.log there, and
// launch.json (below) written when it starts and rewritten when it ends. Wall seconds are
// measured here; CPU seconds are the child's and its waited-for descendants' (wait4's rusage).
//
// Each launch leads a process group of its own (process_group.h): when its command ends, what it
// left running in the group is ended; a run past its limits (LaunchLimits) is ended with all it
// started; and preflight's SIGINT, SIGTERM or SIGHUP ends every live launch's group before
// preflight dies (cli/main.cc). Ending is SIGTERM, then SIGKILL after kStopGraceSeconds.
//
// A run folder holds at most one live launch: the launch holds an flock on RUN_DIR/launch.lock
// that its whole process tree inherits. A launch whose owner (the preflight that started it,
// recorded in launch.json) still runs is left alone: StartLaunch refuses to start another beside
// it. One whose owner died (kill -9) is an orphan: StartLaunch ends its group, takes the lock and
// notes it in stderr.log.
//
// launch.json: {"run", "command", "cwd", "env": {NAME: value}, "attempt" (1 + earlier launches of
// this run), "pid" (also the process group's id), "owner_pid", "owner_start" (the owner's start
// time in clock ticks since boot: process_group.h), "started_at", "ended_at" (null while
// running), "exit_code" (null while running or when killed by a signal), "signal" (0 unless
// killed by one), "stopped" ("" or why preflight ended it: a timeout), "wall_seconds",
// "cpu_seconds" (this launch's), "earlier_wall_seconds", "earlier_cpu_seconds" (the sums over
// the run's earlier launches that ended; a launch killed with preflight counts for nothing)}.
// A launch.json without owner_pid, owner_start or stopped reads them as 0, 0 and "".
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
  // Files whose growth shows the run is alive (its curve), besides stdout.log and stderr.log.
  std::vector<std::string> watch;
};

// How long a launch may run. A run past either limit is ended (its whole group) and fails.
struct LaunchLimits {
  double run_seconds = 0;    // wall seconds since the launch; 0 = no limit (--run-timeout)
  double stall_seconds = 0;  // seconds without any change in the watched files and the logs;
                             // 0 = no limit (--stall-timeout)
};

struct LaunchRecord {
  std::string run, command, cwd;
  std::vector<std::pair<std::string, std::string>> env;
  int attempt = 1;
  int64_t pid = 0;                   // the shell's, which leads the launch's process group
  int64_t owner_pid = 0;             // the preflight that started it (0: not recorded)
  uint64_t owner_start = 0;          // its start time (process_group.h); 0: not recorded
  std::string started_at, ended_at;  // ended_at "" while running
  std::optional<int> exit_code;      // none while running or when a signal ended it
  int signal = 0;
  std::string stopped;  // why preflight ended it ("" when it ended by itself)
  double wall_seconds = 0, cpu_seconds = 0;
  double earlier_wall_seconds = 0, earlier_cpu_seconds = 0;

  bool ended() const { return !ended_at.empty(); }
  // A launch preflight stopped never succeeded, whatever its exit code after the SIGTERM.
  bool succeeded() const { return ended() && stopped.empty() && exit_code && *exit_code == 0; }
};

nlohmann::json LaunchRecordToJson(const LaunchRecord& record);
// RUN_DIR/launch.json; NotFound when there is none, Corruption naming the file when damaged.
Result<LaunchRecord> ReadLaunchRecord(const std::string& run_dir);
std::string LaunchJsonPath(const std::string& run_dir);

// A launch in flight.
struct RunningLaunch {
  pid_t pid = -1;  // also its process group
  double started_wall = 0;
  LaunchRecord record;
  std::vector<std::string> watch;  // the spec's, with the logs
  // What the watched files looked like (size, modification time) when last seen to change.
  std::vector<std::pair<int64_t, int64_t>> seen;
  double last_change = 0, last_look = 0;  // wall seconds
};

// Starts the launch in a process group of its own. IOError when the folder cannot be written,
// the process cannot start, or an earlier launch of this run still runs under a live owner.
Result<RunningLaunch> StartLaunch(const LaunchSpec& spec);

// Whether the launch has ended (without waiting); when it has, its record is complete and
// launch.json rewritten, and what it left in its group has been ended. A launch past `limits`
// is ended with its group and recorded as stopped, and the result is an IOError naming the run,
// the limit and its flag, with the tail of its log.
Result<bool> PollLaunch(RunningLaunch& launch, const LaunchLimits& limits = {});

// Waits for the launch to end (polling every 50 ms), within `limits` as PollLaunch.
Result<LaunchRecord> WaitLaunch(RunningLaunch& launch, const LaunchLimits& limits = {});

// The last `lines` lines of RUN_DIR/stderr.log (of stdout.log when stderr.log is empty), each
// indented "  | " and cut at 300 characters; "  (no output)" when both are empty.
std::string LogTail(const std::string& run_dir, int lines = 15);

}  // namespace preflight::trainer
