#include "trainer/process_group.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace preflight::trainer {
namespace {

// 0 = a free slot. Lock-free atomics: safe to touch from a signal handler.
std::atomic<pid_t> live_groups[kMaxLiveGroups];
static_assert(std::atomic<pid_t>::is_always_lock_free);

double Now() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void Nap() {
  timespec t{0, 20 * 1000 * 1000};  // 20 ms
  ::nanosleep(&t, nullptr);
}

// One group being ended: its id, its leader (this process's child, or 0) and whether it is gone.
struct Ending {
  pid_t pgid = 0;
  pid_t leader = 0;
  int* leader_status = nullptr;
  struct rusage* leader_usage = nullptr;
  bool gone = false;
};

// Reaps the leader if it has ended, and says whether anything of the group is left.
bool Left(Ending& e) {
  if (e.leader > 0) {
    int status = 0;
    struct rusage usage {};
    const pid_t got = ::wait4(e.leader, &status, WNOHANG, &usage);  // a system call: safe here
    if (got == e.leader || (got < 0 && errno == ECHILD)) {
      if (got == e.leader && e.leader_status != nullptr) *e.leader_status = status;
      if (got == e.leader && e.leader_usage != nullptr) *e.leader_usage = usage;
      e.leader = 0;
    }
  }
  // kill(-g, 0) fails with ESRCH only when no process of the group is left (an unreaped child
  // still counts: hence the reaping above).
  return !(::kill(-e.pgid, 0) != 0 && errno == ESRCH);
}

// SIGTERM to every group, a grace period, SIGKILL to what is left, then a last short wait.
// Async-signal-safe: kill, waitpid, nanosleep and clock_gettime only.
void EndAll(Ending* groups, int n, double grace_seconds) {
  const int saved_errno = errno;
  for (int i = 0; i < n; ++i) ::kill(-groups[i].pgid, SIGTERM);
  for (int round = 0; round < 2; ++round) {
    const double deadline = Now() + (round == 0 ? grace_seconds : 2.0);
    while (true) {
      bool any = false;
      for (int i = 0; i < n; ++i) {
        if (!groups[i].gone) groups[i].gone = !Left(groups[i]);
        any = any || !groups[i].gone;
      }
      if (!any || Now() >= deadline) break;
      Nap();
    }
    if (round == 0) {
      for (int i = 0; i < n; ++i) {
        if (!groups[i].gone) ::kill(-groups[i].pgid, SIGKILL);
      }
    }
  }
  errno = saved_errno;
}

}  // namespace

bool RegisterGroup(pid_t pgid) {
  for (auto& slot : live_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pgid)) return true;
  }
  return false;
}

void ForgetGroup(pid_t pgid) {
  for (auto& slot : live_groups) {
    pid_t mine = pgid;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

bool EndGroup(pid_t pgid, double grace_seconds, pid_t leader, int* leader_status,
              struct rusage* leader_usage) {
  if (pgid <= 0) return true;
  Ending e{pgid, leader, leader_status, leader_usage, false};
  EndAll(&e, 1, grace_seconds);
  return e.gone;
}

void EndRegisteredGroups(double grace_seconds) {
  Ending groups[kMaxLiveGroups];
  int n = 0;
  for (auto& slot : live_groups) {
    const pid_t pgid = slot.load();
    if (pgid > 0) groups[n++] = Ending{pgid, pgid, nullptr, nullptr, false};
  }
  if (n > 0) EndAll(groups, n, grace_seconds);
}

uint64_t ProcessStartTicks(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields are counted
  // from the last ')'. The start time is field 22, the 20th after it.
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return 0;
  for (int field = 2; field < 22 && p != nullptr; ++field) p = std::strchr(p + 1, ' ');
  return p == nullptr ? 0 : std::strtoull(p + 1, nullptr, 10);
}

bool ProcessAlive(pid_t pid, uint64_t start_ticks) {
  if (pid <= 0) return false;
  // kill(pid, 0): ESRCH only when no such process exists (EPERM: it runs as another user).
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  if (start_ticks == 0) return true;
  const uint64_t now = ProcessStartTicks(pid);
  return now == 0 || now == start_ticks;  // unknown now: assume alive
}

}  // namespace preflight::trainer
