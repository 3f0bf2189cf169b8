#include "trainer/launch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
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

// Takes the run folder's launch lock (see launch.h); the fd is close-on-exec until the child
// clears it.
Result<int> TakeLock(const LaunchSpec& spec) {
  const std::string path = JoinPath(spec.cwd, "launch.lock");
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    std::string pid = "?";
    if (auto held = ReadLaunchRecord(spec.cwd); held.ok()) pid = std::to_string(held->pid);
    return Status::IOError(
        "run " + spec.run + " is still running from an earlier invocation (pid " + pid + ", " +
        LaunchJsonPath(spec.cwd) + "); wait for it to end or stop it, then rerun");
  }
  return fd;
}

Result<int> OpenLog(const std::string& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path);
  return fd;
}

Status SaveRecord(const LaunchRecord& r) {
  return WriteFileAtomically(LaunchJsonPath(r.cwd), LaunchRecordToJson(r).dump(2) + "\n");
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecChild(const std::string& cwd, int out, int err, int lock, const char* command,
                            char* const* envp) {
  const int in = ::open("/dev/null", O_RDONLY);
  if (::chdir(cwd.c_str()) != 0 || in < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
      ::dup2(err, 2) < 0 || ::fcntl(lock, F_SETFD, 0) != 0) {
    ::_exit(127);
  }
  char sh[] = "/bin/sh", name[] = "sh", dash_c[] = "-c";
  char* const argv[] = {name, dash_c, const_cast<char*>(command), nullptr};
  ::execve(sh, argv, envp);
  ::_exit(127);
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
          {"started_at", r.started_at},
          {"ended_at", r.ended() ? nlohmann::json(r.ended_at) : nlohmann::json(nullptr)},
          {"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr)},
          {"signal", r.signal},
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
  PF_ASSIGN_OR_RETURN(int lock, TakeLock(spec));
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
  auto out = OpenLog(JoinPath(spec.cwd, "stdout.log"));
  auto err = out.ok() ? OpenLog(JoinPath(spec.cwd, "stderr.log")) : Result<int>(out.status());
  if (!err.ok()) {
    if (out.ok()) ::close(*out);
    ::close(lock);
    return err.status();
  }
  const std::vector<std::string> env = Environment(spec.env);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  rec.started_at = UtcNowRfc3339();
  launch.started_wall = WallSeconds();
  const pid_t pid = ::fork();
  if (pid == 0) ExecChild(spec.cwd, *out, *err, lock, spec.command.c_str(), envp.data());
  ::close(*out);
  ::close(*err);
  ::close(lock);  // the child's copy holds the lock now
  if (pid < 0) return Errno("run " + spec.run + ": cannot start /bin/sh");
  launch.pid = pid;
  rec.pid = pid;
  PF_RETURN_IF_ERROR(SaveRecord(rec));
  return launch;
}

Result<bool> PollLaunch(RunningLaunch& launch) {
  int status = 0;
  struct rusage usage {};
  pid_t got = 0;
  do {
    got = ::wait4(launch.pid, &status, WNOHANG, &usage);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return Errno("run " + launch.record.run + ": wait4");
  if (got == 0) return false;
  LaunchRecord& rec = launch.record;
  rec.wall_seconds = WallSeconds() - launch.started_wall;
  rec.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  rec.ended_at = UtcNowRfc3339();
  if (WIFEXITED(status)) rec.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) rec.signal = WTERMSIG(status);
  PF_RETURN_IF_ERROR(SaveRecord(rec));
  return true;
}

Result<LaunchRecord> WaitLaunch(RunningLaunch& launch) {
  while (true) {
    PF_ASSIGN_OR_RETURN(bool ended, PollLaunch(launch));
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
