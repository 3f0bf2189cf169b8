// Launched runs through `preflight trial` (issue 31): nothing they start outlives the trial, none
// runs forever, and one trial makes one forecast receipt however often it is rerun.
//   - SIGTERM to preflight ends every run's process group before preflight dies;
//   - --stall-timeout stops a run that shows nothing, exit 1 with its log tail, and the run's
//     progress line says "waiting for the first eval" and ends "stopped", never "done";
//   - after kill -9 of preflight, the rerun ends the run it left behind and finishes the trial,
//     testing the forecast the first invocation made (one forecast receipt);
//   - a trial stopped by a failed run and rerun makes no second forecast receipt either.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fake_trainer.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::trainer::launch_cli_test {
namespace {

using preflight::testing::CliResult;
using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

// `trial` with a cmd template whose runs sleep while DIR/hang exists and otherwise run the fake
// trainer; each run writes its shell's pid and its sleep's pid in its folder first.
std::string TrialArgs(const std::string& dir, const std::string& extra = "") {
  const std::string fake = preflight::testing::WriteFakeTrainer(dir);
  const std::string command =
      "echo $$ > shell.pid; if [ -e " + dir + "/hang ]; then sleep 600 & echo $! > sleep.pid; " +
      "wait; fi; /usr/bin/python3 " + fake + " --control " + dir + "/control";
  return "trial --pool " + dir + "/pool.jsonl --target-select " + dir +
         "/target.jsonl --target-eval " + dir + "/eval.jsonl --selector dsir --seeds 2 " +
         "--steps 40 --eval-every 4 --eval-windows 16 --layers 1 --d-model 32 --heads 2 " +
         "--context 32 --batch 8 --threads 1 --ledger " + dir + "/ledger.jsonl --out " + dir +
         "/out --trainer cmd --trainer-cmd \"" + command + "\" " + extra;
}

// Whether `pid` still runs (a zombie waiting to be reaped does not).
bool Running(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

// Waits (at most 120 s) for a pid file the run writes.
pid_t WaitForPid(const std::string& path) {
  for (int i = 0; i < 12000 && ReadText(path).empty(); ++i) ::usleep(10000);
  const std::string text = ReadText(path);
  return text.empty() ? -1 : static_cast<pid_t>(std::stoi(text));
}

// Starts preflight with `args` (stdout and stderr to files in `dir`); returns its pid.
pid_t Start(const std::string& args, const std::string& dir) {
  std::vector<std::string> argv = preflight::testing::SplitWords(args);
  argv.insert(argv.begin(), PREFLIGHT_BINARY);
  std::vector<char*> words;
  for (std::string& a : argv) words.push_back(a.data());
  words.push_back(nullptr);
  const std::string out = dir + "/started.out", err = dir + "/started.err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    ::execv(words[0], words.data());
    ::_exit(127);
  }
  return pid;
}

std::vector<nlohmann::json> Receipts(const std::string& ledger, const std::string& kind) {
  std::vector<nlohmann::json> out;
  std::istringstream in(ReadText(ledger));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json r = nlohmann::json::parse(line);
    if (r["kind"] == kind) out.push_back(r);
  }
  return out;
}

TEST(LaunchCli, SigtermToTheTrialEndsItsRunsProcessGroups) {
  const std::string dir = ScratchDir("launch_cli_sigterm");
  preflight::testing::WritePlantedTrial(dir, 51);
  WriteText(dir + "/hang", "");
  const pid_t trial = Start(TrialArgs(dir, "--quiet"), dir);
  const pid_t shell = WaitForPid(dir + "/out/runs/random-s1/shell.pid");
  const pid_t sleeper = WaitForPid(dir + "/out/runs/random-s1/sleep.pid");
  ASSERT_GT(sleeper, 0) << ReadText(dir + "/started.err");
  ASSERT_TRUE(Running(sleeper));
  ::kill(trial, SIGTERM);  // preflight alone, as `kill PID` or a scheduler's stop would
  int status = 0;
  ASSERT_EQ(::waitpid(trial, &status, 0), trial);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  // Ended before preflight died: nothing to wait for.
  EXPECT_FALSE(Running(shell));
  EXPECT_FALSE(Running(sleeper));
  ::kill(-shell, SIGKILL);  // should the test fail: leave nothing behind
}

TEST(LaunchCli, AStalledRunFailsTheTrialWithItsLogAndIsNotShownDone) {
  const std::string dir = ScratchDir("launch_cli_stall");
  preflight::testing::WritePlantedTrial(dir, 52);
  WriteText(dir + "/hang", "");
  const CliResult r = RunCli(TrialArgs(dir, "--stall-timeout 3"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("run random-s1 showed no progress for 3 seconds"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(--stall-timeout)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("waiting for the first eval"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("train random seed 1 (cmd) stopped after"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("train random seed 1 (cmd) done"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("0 step/s"), std::string::npos) << r.err;
  EXPECT_FALSE(Running(WaitForPid(dir + "/out/runs/random-s1/sleep.pid")));
}

TEST(LaunchCli, AfterKillNineTheRerunEndsTheRunLeftBehindAndTestsTheSameForecast) {
  const std::string dir = ScratchDir("launch_cli_orphan");
  preflight::testing::WritePlantedTrial(dir, 53);
  WriteText(dir + "/hang", "");
  const pid_t trial = Start(TrialArgs(dir, "--quiet"), dir);
  const pid_t sleeper = WaitForPid(dir + "/out/runs/random-s1/sleep.pid");
  ASSERT_GT(sleeper, 0) << ReadText(dir + "/started.err");
  ::kill(trial, SIGKILL);  // preflight alone: its run is left running, holding the run's lock
  ::waitpid(trial, nullptr, 0);
  ASSERT_TRUE(Running(sleeper));
  ASSERT_EQ(Receipts(dir + "/ledger.jsonl", "forecast").size(), 1u);
  std::filesystem::remove(dir + "/hang");
  const CliResult rerun = RunCli(TrialArgs(dir, "--quiet --json"));
  ::kill(sleeper, SIGKILL);  // should the test fail: leave nothing behind
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_FALSE(Running(sleeper));
  EXPECT_NE(ReadText(dir + "/out/runs/random-s1/stderr.log").find("(which died)"),
            std::string::npos);
  const auto forecasts = Receipts(dir + "/ledger.jsonl", "forecast");
  ASSERT_EQ(forecasts.size(), 1u);
  const auto trials = Receipts(dir + "/ledger.jsonl", "trial");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0]["result"]["forecast"]["receipt"], forecasts[0]["hash"]);
  EXPECT_EQ(trials[0]["result"]["forecast"]["verdict"], forecasts[0]["result"]["verdict"]);
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/ledger.jsonl").exit_code, 0);
}

TEST(LaunchCli, ARerunAfterAFailedRunMakesNoSecondForecastReceipt) {
  const std::string dir = ScratchDir("launch_cli_failed");
  preflight::testing::WritePlantedTrial(dir, 54);
  std::filesystem::create_directories(dir + "/control");
  WriteText(dir + "/control/fail-random-s2", "");
  const CliResult failed = RunCli(TrialArgs(dir, "--quiet"));
  ASSERT_EQ(failed.exit_code, 1) << failed.err;
  ASSERT_EQ(Receipts(dir + "/ledger.jsonl", "forecast").size(), 1u);
  std::filesystem::remove(dir + "/control/fail-random-s2");
  const CliResult rerun = RunCli(TrialArgs(dir, "--quiet"));
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  const auto forecasts = Receipts(dir + "/ledger.jsonl", "forecast");
  ASSERT_EQ(forecasts.size(), 1u);
  EXPECT_EQ(Receipts(dir + "/ledger.jsonl", "trial").at(0)["result"]["forecast"]["receipt"],
            forecasts[0]["hash"]);
}

}  // namespace
}  // namespace preflight::trainer::launch_cli_test
