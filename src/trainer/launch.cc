#include "trainer/launch.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "base/clock.h"
#include "base/file.h"
#include "base/json.h"
#include "trainer/process_group.h"

extern char** environ;

namespace preflight::trainer {
namespace {

// The inherited environment with `extra` added (a name already there takes the new value).
std::vector<std::string> Environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (!vars.count(name)) order.push_back(name);
    vars[name] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : extra) {
    if (!vars.count(name)) order.push_back(name);
    vars[name] = value;
  }
  std::vector<std::string> out;
  for (const std::string& name : order) out.push_back(name + "=" + vars[name]);
  return out;
}

Status Errno(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

// One non-blocking try at the run folder's lock.
bool TryLock(int fd) { return ::flock(fd, LOCK_EX | LOCK_NB) == 0; }

// The lock held by the launch of an owner that died: ends that launch's group and waits for the
// lock (the group's processes hold it until they are gone). Whether it was taken.
bool ReclaimFromOrphan(int fd, const LaunchRecord& held) {
  EndGroup(static_cast<pid_t>(held.pid), kStopGraceSeconds);
  for (int i = 0; i < 100; ++i) {  // the last processes' files close as they exit
    if (TryLock(fd)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Takes the run folder's launch lock (see launch.h); the fd is close-on-exec until the child
// clears it. `*reclaimed` names the orphan launch that was ended to take it ("" if none).
Result<int> TakeLock(const LaunchSpec& spec, std::string* reclaimed) {
  const std::string path = JoinPath(spec.cwd, "launch.lock");
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path);
  if (TryLock(fd)) return fd;
  auto held = ReadLaunchRecord(spec.cwd);
  const bool orphan = held.ok() && held->owner_pid > 0 && !held->ended() &&
                      !ProcessAlive(static_cast<pid_t>(held->owner_pid), held->owner_start);
  if (orphan && ReclaimFromOrphan(fd, *held)) {
    *reclaimed = "preflight: ended launch " + std::to_string(held->pid) + " of run " + spec.run +
                 ", left running by preflight " + std::to_string(held->owner_pid) +
                 " (which died) since " + held->started_at + "\n";
    return fd;
  }
  ::close(fd);
  const std::string pid = held.ok() ? std::to_string(held->pid) : "?";
  if (orphan) {
    return Status::IOError("run " + spec.run + ": its launch lock (" + path +
                           ") is still held after the process group of its earlier launch (pid " +
                           pid +
                           ") was ended: a process that left that group holds it; stop "
                           "it, then rerun");
  }
  return Status::IOError("run " + spec.run + " is still running from an earlier invocation (pid " +
                         pid + ", " + LaunchJsonPath(spec.cwd) +
                         "); wait for it to end or stop it, then rerun");
}

Result<int> OpenLog(const std::string& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path);
  return fd;
}

Status SaveRecord(const LaunchRecord& r) {
  return WriteFileAtomically(LaunchJsonPath(r.cwd), LaunchRecordToJson(r).dump(2) + "\n");
}

// In the child, between fork and exec: async-signal-safe calls only. It leads a process group of
// its own, and takes back the signal mask the parent had before blocking for the fork.
// It execs only once the parent has recorded it (a byte on `go`): a parent killed before that
// leaves no run behind whose launch.json does not name it.
[[noreturn]] void ExecChild(const std::string& cwd, int out, int err, int lock, const int go[2],
                            const char* command, char* const* envp, const sigset_t& mask) {
  ::setpgid(0, 0);
  ::close(go[1]);
  char byte = 0;
  ssize_t got = -1;
  do got = ::read(go[0], &byte, 1);
  while (got < 0 && errno == EINTR);
  if (got != 1) ::_exit(127);
  const int in = ::open("/dev/null", O_RDONLY);
  if (::chdir(cwd.c_str()) != 0 || in < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
      ::dup2(err, 2) < 0 || ::fcntl(lock, F_SETFD, 0) != 0 ||
      ::pthread_sigmask(SIG_SETMASK, &mask, nullptr) != 0) {
    ::_exit(127);
  }
  char sh[] = "/bin/sh", name[] = "sh", dash_c[] = "-c";
  char* const argv[] = {name, dash_c, const_cast<char*>(command), nullptr};
  ::execve(sh, argv, envp);
  ::_exit(127);
}

// Forks /bin/sh -c COMMAND as the leader of a new process group, registered for the signal
// handler (process_group.h). The terminating signals wait until the group is registered, so that
// a Ctrl-C at this moment still finds it; the child takes back the mask before exec. -1 when
// fork fails.
pid_t Spawn(const LaunchSpec& spec, int out, int err, int lock, const int go[2]) {
  const std::vector<std::string> env = Environment(spec.env);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  sigset_t block, previous_mask;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  ::pthread_sigmask(SIG_BLOCK, &block, &previous_mask);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ExecChild(spec.cwd, out, err, lock, go, spec.command.c_str(), envp.data(), previous_mask);
  }
  if (pid > 0) {
    ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists
    RegisterGroup(pid);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  return pid;
}

// Lets the child exec once its launch is recorded; when recording failed, the child ends unrun
// and is reaped.
Status ReleaseRecorded(pid_t pid, int go, const Status& recorded) {
  if (recorded.ok() && ::send(go, "g", 1, MSG_NOSIGNAL) == 1) {  // no SIGPIPE: a dead child
    ::close(go);
    return recorded;
  }
  const Status why = recorded.ok() ? Errno("cannot start the run's command") : recorded;
  ::close(go);
  ::waitpid(pid, nullptr, 0);
  ForgetGroup(pid);
  return why;
}

}  // namespace

std::string LaunchJsonPath(const std::string& run_dir) { return JoinPath(run_dir, "launch.json"); }

nlohmann::json LaunchRecordToJson(const LaunchRecord& r) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : r.env) env[name] = value;
  return {{"run", r.run},
          {"command", r.command},
          {"cwd", r.cwd},
          {"env", env},
          {"attempt", r.attempt},
          {"pid", r.pid},
          {"owner_pid", r.owner_pid},
          {"owner_start", r.owner_start},
          {"started_at", r.started_at},
          {"ended_at", r.ended() ? nlohmann::json(r.ended_at) : nlohmann::json(nullptr)},
          {"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr)},
          {"signal", r.signal},
          {"stopped", r.stopped},
          {"wall_seconds", r.wall_seconds},
          {"cpu_seconds", r.cpu_seconds},
          {"earlier_wall_seconds", r.earlier_wall_seconds},
          {"earlier_cpu_seconds", r.earlier_cpu_seconds}};
}

Result<LaunchRecord> ReadLaunchRecord(const std::string& run_dir) {
  const std::string path = LaunchJsonPath(run_dir);
  if (!PathExists(path)) return Status::NotFound(path + ": no launch recorded");
  PF_ASSIGN_OR_RETURN(nlohmann::json json, ReadJsonFile(path));
  JsonReader r(json, path);
  LaunchRecord rec;
  PF_ASSIGN_OR_RETURN(rec.run, r.String("run"));
  PF_ASSIGN_OR_RETURN(rec.command, r.String("command"));
  PF_ASSIGN_OR_RETURN(rec.cwd, r.String("cwd"));
  PF_ASSIGN_OR_RETURN(JsonReader env, r.Field("env"));
  if (!env.node().is_object()) return env.Error("expected an object");
  for (const auto& [name, value] : env.node().items()) {
    PF_ASSIGN_OR_RETURN(std::string v, env.String(name));
    rec.env.emplace_back(name, v);
  }
  PF_ASSIGN_OR_RETURN(int64_t attempt, r.Int("attempt"));
  rec.attempt = static_cast<int>(attempt);
  PF_ASSIGN_OR_RETURN(rec.pid, r.Int("pid"));
  if (r.Has("owner_pid")) {
    PF_ASSIGN_OR_RETURN(rec.owner_pid, r.Int("owner_pid"));
    PF_ASSIGN_OR_RETURN(int64_t start, r.Int("owner_start"));
    rec.owner_start = static_cast<uint64_t>(start);
  }
  if (r.Has("stopped")) {
    PF_ASSIGN_OR_RETURN(rec.stopped, r.String("stopped"));
  }
  PF_ASSIGN_OR_RETURN(rec.started_at, r.String("started_at"));
  if (!json["ended_at"].is_null()) {
    PF_ASSIGN_OR_RETURN(rec.ended_at, r.String("ended_at"));
  }
  if (!json["exit_code"].is_null()) {
    PF_ASSIGN_OR_RETURN(int64_t code, r.Int("exit_code"));
    rec.exit_code = static_cast<int>(code);
  }
  PF_ASSIGN_OR_RETURN(int64_t signal, r.Int("signal"));
  rec.signal = static_cast<int>(signal);
  PF_ASSIGN_OR_RETURN(rec.wall_seconds, r.Number("wall_seconds"));
  PF_ASSIGN_OR_RETURN(rec.cpu_seconds, r.Number("cpu_seconds"));
  PF_ASSIGN_OR_RETURN(rec.earlier_wall_seconds, r.Number("earlier_wall_seconds"));
  PF_ASSIGN_OR_RETURN(rec.earlier_cpu_seconds, r.Number("earlier_cpu_seconds"));
  return rec;
}

Result<RunningLaunch> StartLaunch(const LaunchSpec& spec) {
  PF_RETURN_IF_ERROR(MakeDirectories(spec.cwd));
  std::string reclaimed;
  PF_ASSIGN_OR_RETURN(int lock, TakeLock(spec, &reclaimed));
  RunningLaunch launch;
  LaunchRecord& rec = launch.record;
  if (auto previous = ReadLaunchRecord(spec.cwd); previous.ok()) {
    rec.attempt = previous->attempt + 1;
    const bool counted = previous->ended();
    rec.earlier_wall_seconds =
        previous->earlier_wall_seconds + (counted ? previous->wall_seconds : 0.0);
    rec.earlier_cpu_seconds =
        previous->earlier_cpu_seconds + (counted ? previous->cpu_seconds : 0.0);
  }
  rec.run = spec.run;
  rec.command = spec.command;
  rec.cwd = spec.cwd;
  rec.env = spec.env;
  rec.owner_pid = ::getpid();
  rec.owner_start = ProcessStartTicks(::getpid());
  auto out = OpenLog(JoinPath(spec.cwd, "stdout.log"));
  auto err = out.ok() ? OpenLog(JoinPath(spec.cwd, "stderr.log")) : Result<int>(out.status());
  if (!err.ok()) {
    if (out.ok()) ::close(*out);
    ::close(lock);
    return err.status();
  }
  if (!reclaimed.empty()) (void)!::write(*err, reclaimed.data(), reclaimed.size());
  rec.started_at = UtcNowRfc3339();
  launch.started_wall = launch.last_change = WallSeconds();
  launch.watch = spec.watch;
  launch.watch.push_back(JoinPath(spec.cwd, "stdout.log"));
  launch.watch.push_back(JoinPath(spec.cwd, "stderr.log"));
  int go[2] = {-1, -1};
  const pid_t pid = ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) == 0 ? Spawn(spec, *out, *err, lock, go) : -1;
  ::close(*out);
  ::close(*err);
  ::close(lock);  // the child's copy holds the lock now
  if (go[0] >= 0) ::close(go[0]);
  if (pid < 0) {
    if (go[1] >= 0) ::close(go[1]);
    return Errno("run " + spec.run + ": cannot start /bin/sh");
  }
  launch.pid = pid;
  rec.pid = pid;
  PF_RETURN_IF_ERROR(ReleaseRecorded(pid, go[1], SaveRecord(rec)));
  return launch;
}

namespace {

// Whether any watched file changed since the last look (a new size or modification time).
bool Changed(RunningLaunch& launch) {
  launch.seen.resize(launch.watch.size(), {-1, -1});
  bool changed = false;
  for (size_t i = 0; i < launch.watch.size(); ++i) {
    struct stat st;
    std::pair<int64_t, int64_t> now{-1, -1};
    if (::stat(launch.watch[i].c_str(), &st) == 0) {
      now = {static_cast<int64_t>(st.st_size),
             static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    }
    if (now != launch.seen[i]) changed = true;
    launch.seen[i] = now;
  }
  return changed;
}

// Why the launch must be stopped now, or "" (looked at about once a second).
std::string OverLimit(RunningLaunch& launch, const LaunchLimits& limits) {
  const double now = WallSeconds();
  if (now - launch.last_look < 1.0) return "";
  launch.last_look = now;
  if (Changed(launch)) launch.last_change = now;
  if (limits.run_seconds > 0 && now - launch.started_wall > limits.run_seconds) {
    return fmt::format("ran past its time limit of {:g} seconds (--run-timeout)",
                       limits.run_seconds);
  }
  if (limits.stall_seconds > 0 && now - launch.last_change > limits.stall_seconds) {
    return fmt::format(
        "showed no progress for {:g} seconds: neither its curve nor its logs changed "
        "(--stall-timeout)",
        limits.stall_seconds);
  }
  return "";
}

// The ended launch's record completed from its wait status and rusage, and saved.
Status Finish(RunningLaunch& launch, int status, const struct rusage& usage) {
  LaunchRecord& rec = launch.record;
  rec.wall_seconds = WallSeconds() - launch.started_wall;
  rec.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  rec.ended_at = UtcNowRfc3339();
  if (WIFEXITED(status)) rec.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) rec.signal = WTERMSIG(status);
  return SaveRecord(rec);
}

// Ends the launch's whole group (SIGTERM, then SIGKILL), reaps it and records why.
Status Stop(RunningLaunch& launch, const std::string& why) {
  int status = SIGKILL;  // as a wait status: killed by SIGKILL, should the shell not be reaped
  struct rusage usage {};
  EndGroup(launch.pid, kStopGraceSeconds, launch.pid, &status, &usage);
  ForgetGroup(launch.pid);
  launch.record.stopped = why;
  PF_RETURN_IF_ERROR(Finish(launch, status, usage));
  return Status::IOError("run " + launch.record.run + " " + why + "; it was stopped (" +
                         LaunchJsonPath(launch.record.cwd) + ")\n" + LogTail(launch.record.cwd));
}

}  // namespace

Result<bool> PollLaunch(RunningLaunch& launch, const LaunchLimits& limits) {
  int status = 0;
  struct rusage usage {};
  pid_t got = 0;
  do {
    got = ::wait4(launch.pid, &status, WNOHANG, &usage);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return Errno("run " + launch.record.run + ": wait4");
  if (got == 0) {
    const std::string why = OverLimit(launch, limits);
    if (why.empty()) return false;
    return Stop(launch, why);
  }
  // The command ended: what it left running in its group (a background child) goes with it, so
  // that nothing outlives the run or keeps holding its lock.
  EndGroup(launch.pid, kStopGraceSeconds);
  ForgetGroup(launch.pid);
  PF_RETURN_IF_ERROR(Finish(launch, status, usage));
  return true;
}

Result<LaunchRecord> WaitLaunch(RunningLaunch& launch, const LaunchLimits& limits) {
  while (true) {
    PF_ASSIGN_OR_RETURN(bool ended, PollLaunch(launch, limits));
    if (ended) return launch.record;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string LogTail(const std::string& run_dir, int lines) {
  for (const char* name : {"stderr.log", "stdout.log"}) {
    auto text = ReadFileToString(JoinPath(run_dir, name));
    if (!text.ok() || text->find_first_not_of(" \t\r\n") == std::string::npos) continue;
    std::vector<std::string> all;
    size_t start = 0;
    while (start < text->size()) {
      size_t end = text->find('\n', start);
      if (end == std::string::npos) end = text->size();
      all.push_back(text->substr(start, end - start));
      start = end + 1;
    }
    while (!all.empty() && all.back().find_first_not_of(" \t\r") == std::string::npos)
      all.pop_back();
    std::string out = std::string("  (the last lines of ") + name + ")\n";
    const size_t from = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0;
    for (size_t i = from; i < all.size(); ++i) out += "  | " + all[i].substr(0, 300) + "\n";
    return out;
  }
  return "  (no output on stdout or stderr)\n";
}

}  // namespace preflight::trainer
