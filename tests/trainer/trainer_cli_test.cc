// The trainer protocol through `preflight trial --trainer cmd` with a fake trainer
// (fake_trainer.h): every curve format read back, each failure with its exit code and message,
// kill -9 then resume (only the unfinished runs launched again), --parallel 2 against 1, a replay
// of the builtin engine's curves against --trainer builtin, and the usage errors.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "fake_trainer.h"
#include "testing/planted.h"
#include "testing/testing.h"
#include "testing/trial_result.h"

namespace preflight::trainer {
namespace {

using preflight::testing::CliResult;
using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RunCli;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

// The trial's flags but the trainer's and the folders'.
std::string TrialFlags(const std::string& dir) {
  return "trial --pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl" +
         " --target-eval " + dir + "/eval.jsonl --selector dsir --seeds 2 --steps 40" +
         " --eval-every 4 --eval-windows 16 --layers 1 --d-model 32 --heads 2 --context 32" +
         " --batch 8 --threads 1 --quiet --json --ledger " + dir + "/ledger.jsonl";
}

// --trainer cmd with the fake trainer and `options` (fake_trainer.h).
std::string Fake(const std::string& dir, const std::string& options) {
  return " --trainer cmd --trainer-cmd '/usr/bin/python3 " +
         preflight::testing::WriteFakeTrainer(dir) + " " + options + "'";
}

CliResult Trial(const std::string& dir, const std::string& out, const std::string& trainer) {
  return RunCli(TrialFlags(dir) + " --out " + dir + "/" + out + trainer);
}

nlohmann::json Result(const std::string& dir, const std::string& out) {
  return nlohmann::json::parse(ReadText(dir + "/" + out + "/result.json"));
}

// What two trials that trained the same curves must agree on.
nlohmann::json Comparable(const nlohmann::json& result) {
  nlohmann::json r = preflight::testing::WithoutMeasuredCosts(result);
  r.erase("trainer");
  return r;
}

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(ReadText(path));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void ExpectContains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\nin:\n" << text;
}

TEST(TrainerCli, EveryCurveFormatGivesTheSameSaving) {
  const std::string dir = ScratchDir("trainer_formats");
  preflight::testing::WritePlantedTrial(dir, 31);
  auto base = Trial(dir, "jsonl", Fake(dir, "--format jsonl --run-json"));
  ASSERT_EQ(base.exit_code, 0) << base.err;
  const nlohmann::json want = Result(dir, "jsonl");
  // The trainer's run.json states its compute; the curve its tokens.
  EXPECT_EQ(want["compute"]["runs"][0]["flops_per_step"], 1.5e6);
  EXPECT_EQ(want["model"]["params"], 4321);
  EXPECT_EQ(want["trainer"]["runs"][0]["tokens_source"], "curve");
  EXPECT_EQ(want["trainer"]["runs"][0]["charged_source"], "run.json train_seconds");
  EXPECT_EQ(want["trainer"]["runs"][0]["charged_seconds"], 0.01);
  const double gross = want["compute_saved"]["gross"].get<double>();
  EXPECT_GT(gross, 0.3);
  const std::vector<std::pair<std::string, std::string>> formats = {
      {"jsonl-loss", ""},
      {"csv", " --curve-format csv --curve-columns step=step,loss=val_loss,tokens=tokens"},
      {"llmc", " --curve-format llmc"},
      {"hf", " --curve-format hf"},
      {"nanogpt", " --curve-format nanogpt"}};
  for (const auto& [format, flags] : formats) {
    auto r = Trial(dir, format, Fake(dir, "--format " + format) + flags);
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    const nlohmann::json got = Result(dir, format);
    EXPECT_NEAR(got["compute_saved"]["gross"].get<double>(), gross, 1e-9) << format;
    EXPECT_NEAR(got["l_star"].get<double>(), want["l_star"].get<double>(), 1e-12) << format;
    for (size_t s = 0; s < 2; ++s) {
      EXPECT_NEAR(got["compute_saved"]["per_seed"][s]["gross"].get<double>(),
                  want["compute_saved"]["per_seed"][s]["gross"].get<double>(), 1e-9)
          << format;
    }
    // Without run.json: compute from the trial's model, tokens from the curve or the request.
    EXPECT_EQ(got["trainer"]["runs"][0]["flops_source"], "model") << format;
    EXPECT_EQ(got["trainer"]["runs"][0]["charged_source"], "wall_seconds") << format;
    EXPECT_EQ(got["compute"]["runs"][0]["tokens_per_step"], 256) << format;
  }
}

TEST(TrainerCli, FailuresNameTheRunAndKeepTheFinishedOnes) {
  const std::string dir = ScratchDir("trainer_failures");
  preflight::testing::WritePlantedTrial(dir, 32);
  const std::string control = dir + "/control";
  std::filesystem::create_directories(control);
  const std::string fake = Fake(dir, "--control " + control + " --launches " + dir + "/launches");
  struct Case {
    std::string file, exit_message;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {"fail-random-s2", "run random-s2 failed: its command exited with code 3", 1},
      {"nocurve-random-s2", "run random-s2 exited 0 but wrote no curve at", 1},
      {"short-random-s2", "the curve is short: it ends at step 36 of 40", 1},
      {"garbage-random-s2", "random-s2/curve.jsonl:12: not a JSON object", 1},
  };
  for (const Case& c : cases) {
    WriteText(control + "/" + c.file, "");
    auto r = Trial(dir, "out", fake);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.file << ": " << r.err;
    ExpectContains(r.err, c.exit_message);
    ExpectContains(r.err, "(the last lines of");
    std::filesystem::remove(control + "/" + c.file);
  }
  WriteText(control + "/fail-random-s2", "");
  auto failed = Trial(dir, "kept", fake);
  ASSERT_EQ(failed.exit_code, 1);
  ExpectContains(failed.err, "fake trainer: boom in random-s2");
  // The finished run is kept in trial.json; the rerun launches only the others.
  auto manifest = nlohmann::json::parse(ReadText(dir + "/kept/trial.json"));
  EXPECT_TRUE(manifest["runs"].contains("random-s1"));
  EXPECT_FALSE(manifest["runs"].contains("random-s2"));
  std::filesystem::remove(control + "/fail-random-s2");
  std::filesystem::remove(dir + "/launches");
  auto rerun = Trial(dir, "kept", fake);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(Lines(dir + "/launches"),
            (std::vector<std::string>{"random-s2", "curated-s1", "curated-s2"}));
  EXPECT_EQ(nlohmann::json::parse(rerun.out)["reused_runs"], 1);
}

TEST(TrainerCli, RunsThatDifferInComputeOrEvalsExitTwo) {
  const std::string dir = ScratchDir("trainer_mismatch");
  preflight::testing::WritePlantedTrial(dir, 33);
  const std::string control = dir + "/control";
  std::filesystem::create_directories(control);
  const std::string fake = Fake(dir, "--control " + control);
  WriteText(control + "/double-curated-s2", "");
  auto tokens = Trial(dir, "tokens", fake);
  EXPECT_EQ(tokens.exit_code, 2) << tokens.err;
  ExpectContains(tokens.err,
                 "run 'curated/seed-2' has 512 tokens/step but run 'random/seed-1' has 256");
  std::filesystem::remove(control + "/double-curated-s2");
  WriteText(control + "/evals-curated-s1", "");
  auto evals = Trial(dir, "evals", fake);
  EXPECT_EQ(evals.exit_code, 2) << evals.err;
  ExpectContains(evals.err, "not evaluated at the same steps");
  ExpectContains(evals.err,
                 "run 'curated/seed-1' has 10 eval points but run 'random/seed-1' has 11");
}

TEST(TrainerCli, KillNineThenResumeLaunchesOnlyTheUnfinishedRuns) {
  const std::string dir = ScratchDir("trainer_kill");
  preflight::testing::WritePlantedTrial(dir, 34);
  const std::string launches = dir + "/launches";
  const std::string fake = Fake(dir, "--sleep 0.1 --launches " + launches);
  auto clean = Trial(dir, "clean", Fake(dir, ""));
  ASSERT_EQ(clean.exit_code, 0) << clean.err;

  // preflight in a process group of its own, killed (a job killed). Its launches lead groups of
  // their own and are left running: the resume ends any that still runs (launch.h).
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);
    std::vector<std::string> args =
        preflight::testing::SplitWords(TrialFlags(dir) + " --out " + dir + "/killed" + fake);
    args.insert(args.begin(), PREFLIGHT_BINARY);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  for (int i = 0; i < 6000 && Lines(launches).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(Lines(launches), (std::vector<std::string>{"random-s1", "random-s2"}));
  ASSERT_FALSE(Exists(dir + "/killed/result.json"));

  auto resumed = Trial(dir, "killed", fake);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(Lines(launches), (std::vector<std::string>{"random-s1", "random-s2", "random-s2",
                                                       "curated-s1", "curated-s2"}));
  EXPECT_EQ(nlohmann::json::parse(resumed.out)["reused_runs"], 1);
  EXPECT_EQ(Comparable(Result(dir, "killed")).dump(), Comparable(Result(dir, "clean")).dump());
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir + "/ledger.jsonl").exit_code, 0);
}

TEST(TrainerCli, AFinishedRunIsCollectedNotLaunchedAgain) {
  const std::string dir = ScratchDir("trainer_collect");
  preflight::testing::WritePlantedTrial(dir, 35);
  const std::string launches = dir + "/launches";
  const std::string fake = Fake(dir, "--launches " + launches);
  ASSERT_EQ(Trial(dir, "out", fake).exit_code, 0);
  // A trial killed after a run ended but before trial.json recorded it: the run's folder says it
  // finished (launch.json exit 0, a complete curve), so it is collected without a launch.
  auto manifest = nlohmann::json::parse(ReadText(dir + "/out/trial.json"));
  manifest["runs"].erase("curated-s2");
  manifest["done"] = false;
  WriteText(dir + "/out/trial.json", manifest.dump(2));
  std::filesystem::remove(launches);
  auto again = Trial(dir, "out", fake);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(Exists(launches));
  EXPECT_EQ(nlohmann::json::parse(again.out)["reused_runs"], 4);
}

TEST(TrainerCli, ParallelTwoGivesTheNumbersOfParallelOne) {
  const std::string dir = ScratchDir("trainer_parallel");
  preflight::testing::WritePlantedTrial(dir, 36);
  // Curated runs finish first under --parallel 2 when random ones sleep longer; the numbers
  // must not depend on the order in which runs finish.
  ASSERT_EQ(Trial(dir, "one", Fake(dir, "--sleep 0.02")).exit_code, 0);
  auto two = Trial(dir, "two", Fake(dir, "--sleep 0.02") + " --parallel 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(Comparable(Result(dir, "two")).dump(), Comparable(Result(dir, "one")).dump());
  // --parallel is not part of the fingerprint: the folder resumes under another value.
  EXPECT_EQ(Trial(dir, "two", Fake(dir, "--sleep 0.02") + " --parallel 3").exit_code, 0);
}

TEST(TrainerCli, ReplayingTheEnginesCurvesGivesTheBuiltinSaving) {
  const std::string dir = ScratchDir("trainer_replay");
  preflight::testing::WritePlantedTrial(dir, 37);
  auto builtin = Trial(dir, "builtin", "");
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  auto replay = Trial(dir, "replay", Fake(dir, "--replay " + dir + "/builtin"));
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const nlohmann::json a = Result(dir, "builtin"), b = Result(dir, "replay");
  EXPECT_FALSE(a.contains("trainer"));
  EXPECT_EQ(b["trainer"]["kind"], "cmd");
  for (const char* key : {"l_star", "t_random", "t_curated", "caught_up"}) {
    EXPECT_EQ(a[key], b[key]) << key;
  }
  EXPECT_EQ(a["compute_saved"]["gross"], b["compute_saved"]["gross"]);
  EXPECT_EQ(a["compute_saved"]["ci95_gross"], b["compute_saved"]["ci95_gross"]);
  for (size_t s = 0; s < 2; ++s) {
    EXPECT_EQ(a["compute_saved"]["per_seed"][s]["gross"],
              b["compute_saved"]["per_seed"][s]["gross"]);
  }
  EXPECT_EQ(a["regime"]["margin"], b["regime"]["margin"]);
  // The builtin's run folder fingerprint is what it was: no "trainer" key.
  auto manifest = nlohmann::json::parse(ReadText(dir + "/builtin/trial.json"));
  EXPECT_FALSE(manifest["config"].contains("trainer"));
  EXPECT_FALSE(manifest["runs"]["random-s1"].contains("launch"));
}

// A stand-in for src/trainer/torch/train.py that accepts exactly its command line
// (doc/trainers.md), checks the initial weights it is given, and writes the curve and run.json.
constexpr char kFakeTorch[] = R"PY(
import argparse, json, os, struct, sys
p = argparse.ArgumentParser()
for flag in ('--train', '--eval', '--run-dir', '--curve', '--device', '--init'):
    p.add_argument(flag, required=True)
for flag in ('--layers', '--d-model', '--heads', '--context', '--batch', '--steps', '--seed',
             '--warmup-steps', '--eval-every', '--eval-windows', '--threads'):
    p.add_argument(flag, type=int, required=True)
for flag in ('--lr', '--min-lr-ratio'):
    p.add_argument(flag, type=float, required=True)
a = p.parse_args()
with open(a.init, 'rb') as f:
    head = f.read(64)
fields = struct.unpack('<7Q', head[8:])
if head[:8] != b'PFINIT01' or fields[0] != a.layers or fields[1] != a.d_model or fields[5] != a.seed:
    sys.exit('fake torch: the initial weights do not match the run')
if os.path.getsize(a.init) != 64 + 4 * fields[6]:
    sys.exit('fake torch: the initial weights are short')
tps = a.batch * a.context
grid = list(range(0, a.steps, a.eval_every)) + [a.steps]
rate = 0.12 if os.environ['PREFLIGHT_ARM'] == 'curated' else 0.06
with open(a.curve, 'w') as f:
    for s in grid:
        f.write(json.dumps({'step': s, 'tokens': s * tps,
                            'eval_bpb': 2.0 + 3.0 * 2.718281828459045 ** (-rate * s)}) + '\n')
with open(os.path.join(a.run_dir, 'run.json'), 'w') as f:
    json.dump({'params': fields[6], 'flops_per_step': 6.0 * fields[6] * tps, 'tokens_per_step': tps,
               'train_seconds': 0.5, 'tokens_per_second': a.steps * tps / 0.5, 'device': a.device,
               'dtype': 'float32', 'world_size': 1, 'torch': 'fake', 'compiled': False}, f)
)PY";

// A template pasted where the user stands: its relative paths are that folder's, though each launch
// runs in its run folder; {start_dir} and PREFLIGHT_START_DIR name the folder.
TEST(TrainerCli, RelativePathsInTheTemplateAreTheStartFolders) {
  const std::string dir = ScratchDir("trainer_relative");
  preflight::testing::WritePlantedTrial(dir, 43);
  preflight::testing::WriteFakeTrainer(dir);
  for (const std::string script : {"fake_trainer.py", "{start_dir}/fake_trainer.py"}) {
    const std::string out = script[0] == '{' ? "placeholder" : "relative";
    auto r = RunCli(TrialFlags(dir) + " --out " + dir + "/" + out +
                        " --trainer cmd --trainer-cmd '/usr/bin/python3 " + script + "'",
                    dir);
    ASSERT_EQ(r.exit_code, 0) << script << ": " << r.err;
    auto launch = nlohmann::json::parse(ReadText(dir + "/" + out + "/runs/random-s1/launch.json"));
    EXPECT_EQ(launch["env"]["PREFLIGHT_START_DIR"], dir);
    const std::string quoted = script[0] == '{' ? "'" + dir + "'" : dir;
    EXPECT_EQ(launch["command"], "/usr/bin/python3 " + quoted + "/fake_trainer.py");
  }
}

TEST(TrainerCli, TorchLaunchesItsScriptWithTheDocumentedCommandLine) {
  const std::string dir = ScratchDir("trainer_torch");
  preflight::testing::WritePlantedTrial(dir, 39);
  const std::string script = dir + "/train.py";
  WriteText(script, kFakeTorch);
  setenv("PREFLIGHT_TORCH_TRAINER", script.c_str(), 1);
  auto r = Trial(dir, "torch", " --trainer torch --torch-launcher '/usr/bin/python3 -B'");
  unsetenv("PREFLIGHT_TORCH_TRAINER");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string run = dir + "/torch";
  auto launch = nlohmann::json::parse(ReadText(run + "/runs/curated-s2/launch.json"));
  const std::string want =
      "/usr/bin/python3 -B '" + script + "' --train '" + run +
      "/exports/curated/tokens.bin' --eval '" + run + "/exports/eval/tokens.bin' --run-dir '" +
      run + "/runs/curated-s2' --curve '" + run +
      "/runs/curated-s2/curve.jsonl' --layers '1' --d-model '32' --heads '2' --context '32' "
      "--batch '8' --steps '40' --seed '2' --lr '0.001' --warmup-steps '4' --min-lr-ratio '0.1' "
      "--eval-every '4' --eval-windows '16' --threads '1' --device 'cpu' --init '" +
      run + "/runs/init-s2.bin'";
  EXPECT_EQ(launch["command"], want);
  EXPECT_EQ(launch["env"]["PREFLIGHT_INIT"], run + "/runs/init-s2.bin");
  EXPECT_EQ(launch["env"]["PREFLIGHT_DEVICE"], "cpu");
  const nlohmann::json result = Result(dir, "torch");
  EXPECT_EQ(result["trainer"]["kind"], "torch");
  EXPECT_EQ(result["trainer"]["runs"][0]["flops_source"], "run.json");
  EXPECT_EQ(result["model"]["params"], 22016);  // the engine's parameter count of this shape
  EXPECT_GT(result["compute_saved"]["gross"].get<double>(), 0.3);
  // The launcher is not part of the fingerprint; the device is.
  setenv("PREFLIGHT_TORCH_TRAINER", script.c_str(), 1);
  auto same = Trial(dir, "torch", " --trainer torch");
  auto cuda = Trial(dir, "torch", " --trainer torch --device cuda");
  unsetenv("PREFLIGHT_TORCH_TRAINER");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out)["reused_runs"], 4);
  EXPECT_EQ(cuda.exit_code, 2);
  ExpectContains(cuda.err, "this folder holds a different trial (trainer differ)");
}

TEST(TrainerCli, LadderAndBatteryTrainOnTheTrainerGiven) {
  const std::string dir = ScratchDir("trainer_ladder");
  preflight::testing::WritePlantedTrial(dir, 40);
  const std::string common =
      " --seeds 2 --eval-windows 16 --layers 1 --d-model 32 --heads 2 "
      "--context 32 --batch 8 --threads 1 --json --ledger " +
      dir + "/ledger.jsonl" + Fake(dir, "");
  auto ladder = RunCli("ladder --pool " + dir + "/pool.jsonl --target-select " + dir +
                       "/target.jsonl --target-eval " + dir + "/eval.jsonl --selector dsir " +
                       "--rungs tiny:20,tiny:40,tiny:80 --out " + dir + "/ladder" + common);
  ASSERT_EQ(ladder.exit_code, 0) << ladder.err;
  EXPECT_EQ(nlohmann::json::parse(
                ReadText(dir + "/ladder/rung-3-tiny-80/result.json"))["trainer"]["kind"],
            "cmd");
  WriteText(dir + "/battery.json", nlohmann::json{{"name", "t"},
                                                  {"targets",
                                                   {{{"name", "planted"},
                                                     {"pool", "pool.jsonl"},
                                                     {"target_select", "target.jsonl"},
                                                     {"target_eval", "eval.jsonl"}}}}}
                                       .dump());
  auto battery = RunCli("battery --spec " + dir + "/battery.json --out " + dir +
                        "/battery --steps 20 --eval-every 4" + common);
  ASSERT_EQ(battery.exit_code, 0) << battery.err;
  EXPECT_EQ(
      nlohmann::json::parse(ReadText(dir + "/battery/planted/result.json"))["trainer"]["kind"],
      "cmd");
}

TEST(TrainerCli, UsageErrorsExitTwo) {
  const std::string dir = ScratchDir("trainer_usage");
  preflight::testing::WritePlantedTrial(dir, 38);
  auto no_cmd = Trial(dir, "a", " --trainer cmd");
  EXPECT_EQ(no_cmd.exit_code, 2);
  ExpectContains(no_cmd.err, "--trainer cmd needs --trainer-cmd");
  auto unknown = Trial(dir, "b", " --trainer cmd --trainer-cmd 'train {train_bin} {curv}'");
  EXPECT_EQ(unknown.exit_code, 2);
  ExpectContains(unknown.err, "unknown placeholder {curv}");
  auto schedule = Trial(dir, "c", Fake(dir, "") + " --arm-b earlystop:patience=3");
  EXPECT_EQ(schedule.exit_code, 2);
  ExpectContains(schedule.err, "schedule arms (--arm-b, --sweep)");
  auto parallel = Trial(dir, "d", " --parallel 2");
  EXPECT_EQ(parallel.exit_code, 2);
  ExpectContains(parallel.err, "--parallel is for launched trainers");
  auto format = Trial(dir, "e", Fake(dir, "") + " --curve-format xml");
  EXPECT_EQ(format.exit_code, 2);
  ExpectContains(format.err, "--curve-format 'xml'");
  auto budget = Trial(dir, "f", Fake(dir, "") + " --budget 1m");
  EXPECT_EQ(budget.exit_code, 2);
  ExpectContains(budget.err, "--budget times the builtin engine");
  EXPECT_FALSE(Exists(dir + "/a") || Exists(dir + "/b") || Exists(dir + "/c"));
  auto help = RunCli("trial --help");
  ExpectContains(help.out, "--trainer-cmd");
  ExpectContains(help.out, "{train_bin}");
}

}  // namespace
}  // namespace preflight::trainer
