// One launch: /bin/sh in the run folder, the PREFLIGHT_* environment, logs appended, launch.json
// before and after, exit codes and signals, and the lock that refuses a second live launch.

#include "trainer/launch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "base/file.h"
#include "testing/testing.h"

namespace preflight::trainer {
namespace {

using preflight::testing::ReadText;
using preflight::testing::ScratchDir;

LaunchSpec Spec(const std::string& dir, const std::string& command) {
  return {"curated-s1",
          command,
          {{"PREFLIGHT_ARM", "curated"}, {"PREFLIGHT_SEED", "1"}},
          dir + "/runs/curated-s1"};
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
  // The shell died but its `sleep` child still holds the lock: a launch beside it is refused
  // until that child ends too.
  EXPECT_FALSE(StartLaunch(Spec(dir, "true")).ok());
  ::kill(child, SIGKILL);
  Result<RunningLaunch> third = Status::Internal("not started");
  for (int i = 0; i < 500 && !third.ok(); ++i) {
    usleep(10000);
    third = StartLaunch(Spec(dir, "true"));
  }
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_TRUE(WaitLaunch(*third)->succeeded());
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
