// One launch: /bin/sh in the run folder, the PREFLIGHT_* environment, logs appended, launch.json
// before and after, exit codes and signals, the lock that refuses a second live launch, the
// process group ended with the run (its limits, what it leaves behind) and the launch of an
// owner that died, ended by the next launch.

#include "trainer/launch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "testing/testing.h"

namespace preflight::trainer {
namespace {

using preflight::testing::ReadText;
using preflight::testing::ScratchDir;

// Whether `pid` still runs (a zombie waiting for its parent does not).
bool Running(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

LaunchSpec Spec(const std::string& dir, const std::string& command) {
  return {"curated-s1",
          command,
          {{"PREFLIGHT_ARM", "curated"}, {"PREFLIGHT_SEED", "1"}},
          dir + "/runs/curated-s1",
          {}};
}

TEST(Launch, RunsInTheFolderWithTheEnvironmentAndRecordsIt) {
  const std::string dir = ScratchDir("launch_env");
  LaunchSpec spec =
      Spec(dir, "pwd; echo \"$PREFLIGHT_ARM/$PREFLIGHT_SEED\"; echo oops >&2; exit 3");
  auto launch = StartLaunch(spec);
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  auto rec = WaitLaunch(*launch);
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_EQ(*rec->exit_code, 3);
  EXPECT_FALSE(rec->succeeded());
  EXPECT_GE(rec->wall_seconds, 0.0);
  const std::string out = ReadText(spec.cwd + "/stdout.log");
  EXPECT_NE(out.find("runs/curated-s1\ncurated/1\n"), std::string::npos) << out;
  EXPECT_EQ(ReadText(spec.cwd + "/stderr.log"), "oops\n");
  auto read = ReadLaunchRecord(spec.cwd);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->command, spec.command);
  EXPECT_EQ(*read->exit_code, 3);
  EXPECT_EQ(read->attempt, 1);
  ASSERT_EQ(read->env.size(), 2u);
  EXPECT_EQ(read->env[0].first, "PREFLIGHT_ARM");
  EXPECT_NE(LogTail(spec.cwd).find("  | oops"), std::string::npos);

  // A second launch appends to the logs and counts the attempt and the first one's time.
  spec.command = "echo again";
  auto second = StartLaunch(spec);
  ASSERT_TRUE(second.ok());
  auto rec2 = WaitLaunch(*second);
  ASSERT_TRUE(rec2.ok());
  EXPECT_TRUE(rec2->succeeded());
  EXPECT_EQ(rec2->attempt, 2);
  EXPECT_EQ(rec2->earlier_wall_seconds, rec->wall_seconds);
  EXPECT_NE(ReadText(spec.cwd + "/stdout.log").find("curated/1\nagain\n"), std::string::npos);
}

TEST(Launch, ASignalIsRecordedAndTheLockRefusesASecondLiveLaunch) {
  const std::string dir = ScratchDir("launch_lock");
  // The shell's child holds the lock too (the fd is inherited); the shell waits on it.
  auto first = StartLaunch(Spec(dir,
                                "sleep 60 & echo $! > child.pid.tmp; mv child.pid.tmp "
                                "child.pid; wait"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string pid_file = dir + "/runs/curated-s1/child.pid";
  for (int i = 0; i < 3000 && ReadText(pid_file).empty(); ++i) usleep(10000);
  ASSERT_FALSE(ReadText(pid_file).empty()) << "the launch never started its child";
  const pid_t child = std::stoi(ReadText(pid_file));
  auto second = StartLaunch(Spec(dir, "true"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().kind(), Status::Kind::kIOError);
  EXPECT_NE(second.status().message().find("run curated-s1 is still running"), std::string::npos)
      << second.status().message();
  ::kill(first->pid, SIGKILL);
  auto rec = WaitLaunch(*first);
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE(rec->exit_code.has_value());
  EXPECT_EQ(rec->signal, SIGKILL);
  // The shell died; its `sleep` child, left in the launch's process group holding the lock, was
  // ended with it: nothing outlives the run, and the next launch starts at once.
  EXPECT_FALSE(Running(child));
  auto third = StartLaunch(Spec(dir, "true"));
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_TRUE(WaitLaunch(*third)->succeeded());
}

// Waits (at most 30 s) until the launch's child has written its pid to `name` in the run folder.
pid_t ChildPid(const std::string& run_dir, const std::string& name = "child.pid") {
  const std::string path = run_dir + "/" + name;
  for (int i = 0; i < 3000 && ReadText(path).empty(); ++i) usleep(10000);
  const std::string text = ReadText(path);
  return text.empty() ? -1 : static_cast<pid_t>(std::stoi(text));
}

constexpr char kSleepingChild[] =
    "sleep 600 & echo $! > child.pid.tmp; mv child.pid.tmp child.pid; wait";

TEST(LaunchLimits, AStalledRunIsStoppedWithItsWholeGroupAndFails) {
  const std::string dir = ScratchDir("launch_stall");
  LaunchSpec spec = Spec(dir, std::string("echo starting; ") + kSleepingChild);
  spec.watch = {spec.cwd + "/curve.jsonl"};
  auto launch = StartLaunch(spec);
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  const pid_t child = ChildPid(spec.cwd);
  ASSERT_GT(child, 0);
  auto rec = WaitLaunch(*launch, {0, 2});
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().kind(), Status::Kind::kIOError);
  const std::string& message = rec.status().message();
  EXPECT_NE(message.find("run curated-s1 showed no progress for 2 seconds"), std::string::npos)
      << message;
  EXPECT_NE(message.find("(--stall-timeout)"), std::string::npos) << message;
  EXPECT_NE(message.find("  | starting"), std::string::npos) << message;  // its log's tail
  EXPECT_FALSE(Running(launch->pid));
  EXPECT_FALSE(Running(child));
  auto saved = ReadLaunchRecord(spec.cwd);
  ASSERT_TRUE(saved.ok());
  EXPECT_TRUE(saved->ended());
  EXPECT_NE(saved->stopped.find("--stall-timeout"), std::string::npos);
  EXPECT_EQ(saved->signal, SIGTERM);
  EXPECT_FALSE(saved->succeeded());
}

TEST(LaunchLimits, ARunPastItsTimeLimitIsStoppedEvenWhileItWritesLogs) {
  const std::string dir = ScratchDir("launch_timeout");
  // It shows progress all the time, so only the wall limit stops it; it ignores SIGTERM, so the
  // SIGKILL after the grace period does.
  auto launch = StartLaunch(Spec(dir, "trap '' TERM; while true; do echo tick; sleep 0.2; done"));
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  auto rec = WaitLaunch(*launch, {2, 1});
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.status().message().find("ran past its time limit of 2 seconds (--run-timeout)"),
            std::string::npos)
      << rec.status().message();
  EXPECT_FALSE(Running(launch->pid));
  auto saved = ReadLaunchRecord(launch->record.cwd);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(saved->signal, SIGKILL);
}

TEST(Launch, WhatACommandLeavesRunningEndsWithIt) {
  const std::string dir = ScratchDir("launch_leftover");
  auto launch = StartLaunch(Spec(dir, "sleep 600 & echo $! > child.pid; exit 0"));
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  auto rec = WaitLaunch(*launch);
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->succeeded());
  const pid_t child = ChildPid(launch->record.cwd);
  ASSERT_GT(child, 0);
  EXPECT_FALSE(Running(child));
}

TEST(Launch, TheLaunchOfAnOwnerThatDiedIsEndedAndItsLockTaken) {
  const std::string dir = ScratchDir("launch_orphan");
  const LaunchSpec spec = Spec(dir, kSleepingChild);
  // An owner that starts the launch and dies without a word, as `kill -9 preflight` does.
  const pid_t owner = ::fork();
  if (owner == 0) ::_exit(StartLaunch(spec).ok() ? 0 : 1);
  int status = 0;
  ASSERT_EQ(::waitpid(owner, &status, 0), owner);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const pid_t child = ChildPid(spec.cwd);
  ASSERT_GT(child, 0);
  ASSERT_TRUE(Running(child));
  auto again = StartLaunch(Spec(dir, "echo resumed"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_FALSE(Running(child));
  auto rec = WaitLaunch(*again);
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec->succeeded());
  EXPECT_EQ(rec->owner_pid, ::getpid());
  EXPECT_NE(ReadText(spec.cwd + "/stderr.log")
                .find("left running by preflight " + std::to_string(owner) + " (which died)"),
            std::string::npos)
      << ReadText(spec.cwd + "/stderr.log");
}

TEST(Launch, LogTailShowsTheLastLines) {
  const std::string dir = ScratchDir("launch_tail");
  MakeDirectories(dir).ok();
  std::string text;
  for (int i = 1; i <= 40; ++i) text += "line " + std::to_string(i) + "\n";
  preflight::testing::WriteText(dir + "/stdout.log", text);
  const std::string tail = LogTail(dir, 3);
  EXPECT_NE(tail.find("stdout.log"), std::string::npos);
  EXPECT_NE(tail.find("  | line 38\n  | line 39\n  | line 40\n"), std::string::npos) << tail;
  EXPECT_EQ(tail.find("line 37"), std::string::npos);
  EXPECT_NE(LogTail(dir + "/nothing").find("no output"), std::string::npos);
}

}  // namespace
}  // namespace preflight::trainer
