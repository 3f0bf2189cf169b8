#pragma once
// The process groups of launched trainers (launch.h). Each launch is the leader of a process
// group of its own, so that it and everything it starts (a shell, torchrun, its workers) are
// ended together: by a run's timeout, when its command ends and leaves something behind, by a
// rerun that finds the launch of an invocation that died, and by preflight's own SIGINT, SIGTERM
// or SIGHUP (cli/main.cc calls EndRegisteredGroups from its handler). Ending a group is SIGTERM
// to all of it, then SIGKILL to what is left after a grace period.
//
// The table of live groups is a fixed array of atomics: registering, forgetting and reading it
// are async-signal-safe, and so is EndRegisteredGroups.

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>

namespace preflight::trainer {

// Seconds between a group's SIGTERM and its SIGKILL.
inline constexpr double kStopGraceSeconds = 5.0;

// Groups registered at once at most (--parallel above this is refused: trainer_spec.h).
inline constexpr int kMaxLiveGroups = 256;

// Adds a live launch's group (its leader's pid) to the table; false when the table is full.
bool RegisterGroup(pid_t pgid);
// Removes it (when its leader has been reaped and the group ended).
void ForgetGroup(pid_t pgid);

// Ends group `pgid`: SIGTERM to all of it, then SIGKILL to what is left after `grace_seconds`.
// Returns as soon as no process of the group is left. `leader`, when > 0, is this process's
// child that leads the group: it is reaped on the way (its wait status and resource use into
// *leader_status and *leader_usage when given), so that a dead leader waiting for its parent does
// not count as left. Returns whether the group is gone. Async-signal-safe.
bool EndGroup(pid_t pgid, double grace_seconds, pid_t leader = 0, int* leader_status = nullptr,
              struct rusage* leader_usage = nullptr);

// Ends every registered group as EndGroup does, all at once (one grace period for all), their
// leaders reaped. For a signal handler: async-signal-safe.
void EndRegisteredGroups(double grace_seconds = kStopGraceSeconds);

// A process's start time, in clock ticks since boot (/proc/PID/stat, field 22), which tells a
// process from a later one given the same pid; 0 when unknown.
uint64_t ProcessStartTicks(pid_t pid);
// Whether the process `pid` that started at `start_ticks` (0: not recorded) still runs.
bool ProcessAlive(pid_t pid, uint64_t start_ticks);

}  // namespace preflight::trainer
