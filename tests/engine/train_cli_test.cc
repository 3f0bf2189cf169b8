// preflight train as a user runs it: exit codes and messages, the --json document, and a real
// SIGKILL in the middle of a run followed by the same command, which must finish with the
// curve of an uninterrupted run, byte for byte.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "base/file.h"
#include "test_util.h"

namespace preflight::engine {
namespace {

struct CommandRun {
  int exit_code = -1;
  std::string out, err;
};

CommandRun RunCommand(const std::string& args) {
  const std::string dir = PREFLIGHT_TEST_TMP;
  const std::string err_path = dir + "/train_cli_stderr_" + std::to_string(getpid()) + ".txt";
  const std::string cmd = std::string(PREFLIGHT_BINARY) + " train " + args + " 2>" + err_path;
  CommandRun run;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) run.out.append(buf.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = ReadFileToString(err_path).value();
  return run;
}

class TrainCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: CTest runs the tests of this binary in parallel processes.
    dir_ = std::string(PREFLIGHT_TEST_TMP) + "/train_cli_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::system(("rm -rf " + dir_ + " && mkdir -p " + dir_).c_str());
    Write(dir_ + "/train.jsonl", testing::SyntheticDocs(60, 1));
    Write(dir_ + "/eval.jsonl", testing::SyntheticDocs(3, 2));
    Write(dir_ + "/empty.jsonl", {});
    Write(dir_ + "/short.jsonl", {"abc"});
  }
  static void Write(const std::string& path, const std::vector<std::string>& docs) {
    std::ofstream out(path);
    for (const auto& d : docs) out << nlohmann::json{{"text", d}}.dump() << "\n";
  }
  std::string Common() const {
    return "--data " + dir_ + "/train.jsonl --eval " + dir_ + "/eval.jsonl --threads 1 --quiet";
  }
  std::string dir_;
};

TEST_F(TrainCli, JsonHasTheDesignKeys) {
  CommandRun r = RunCommand(Common() +
                            " --model tiny --layers 1 --d-model 16 --heads 2 --context 16 "
                            "--batch 4 --steps 6 --eval-every 3 --seed 3 --json --out " +
                            dir_ + "/json_run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"params", "layers", "d_model", "heads", "context"}) {
    EXPECT_TRUE(j["model"].contains(key)) << key;
  }
  EXPECT_EQ(j["model"]["layers"], 1);
  EXPECT_EQ(j["steps"], 6);
  EXPECT_GT(j["tokens_per_second"].get<double>(), 0);
  EXPECT_GT(j["flops_per_step"].get<double>(), 0);
  ASSERT_EQ(j["curve"].size(), 3u);
  EXPECT_EQ(j["curve"][2]["step"], 6);
  EXPECT_EQ(j["final_eval_bpb"], j["curve"][2]["eval_bpb"]);
  EXPECT_TRUE(PathExists(dir_ + "/json_run/curve.jsonl"));
}

TEST_F(TrainCli, BadInputExitsTwoWithAClearMessage) {
  const std::string out = " --steps 2 --out " + dir_ + "/bad";
  struct Case {
    std::string args;
    const char* expect;
  };
  const Case cases[] = {
      {Common() + " --model huge" + out, "unknown model 'huge'"},
      {Common() + " --model tiny --d-model 64 --heads 3" + out, "not divisible by --heads"},
      {"--data " + dir_ + "/short.jsonl --eval " + dir_ + "/eval.jsonl --model tiny" + out,
       "fewer than one context window"},
      {"--data " + dir_ + "/train.jsonl --eval " + dir_ + "/empty.jsonl --model tiny" + out,
       "eval set is empty"},
      {"--data " + dir_ + "/none.jsonl --eval " + dir_ + "/eval.jsonl --model tiny" + out,
       "none.jsonl: no such file"},
  };
  for (const Case& c : cases) {
    CommandRun r = RunCommand(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

TEST_F(TrainCli, KillNineThenSameCommandGivesTheUninterruptedCurve) {
  const std::string model =
      " --model tiny --layers 2 --d-model 32 --heads 2 --context 32 --batch 8 --steps 120 "
      "--eval-every 10 --checkpoint-every 3 --seed 5 --out ";
  const std::string whole = dir_ + "/whole", killed = dir_ + "/killed";
  ASSERT_EQ(RunCommand(Common() + model + whole).exit_code, 0);

  const std::string cmd = std::string(PREFLIGHT_BINARY) + " train " + Common() + model + killed;
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " 2>/dev/null").c_str(), nullptr);
    _exit(127);
  }
  // Kill it once it is past its second eval (a checkpoint exists and training is under way).
  bool killed_midway = false;
  for (int i = 0; i < 30000; i++) {
    auto curve = ReadFileToString(killed + "/curve.jsonl");
    if (curve.ok() && std::count(curve->begin(), curve->end(), '\n') >= 2) {
      killed_midway = std::count(curve->begin(), curve->end(), '\n') < 13;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";
  ASSERT_TRUE(killed_midway);

  CommandRun rerun = RunCommand(Common() + model + killed);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_NE(rerun.err.find("resumed"), std::string::npos) << rerun.err;
  EXPECT_EQ(ReadFileToString(whole + "/curve.jsonl").value(),
            ReadFileToString(killed + "/curve.jsonl").value());
}

}  // namespace
}  // namespace preflight::engine
