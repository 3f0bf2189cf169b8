// preflight: decide a language model's training data before the compute is spent.
// The binary is a thin dispatcher; each subcommand lives in src/cli/<name>_command.cc.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/version.h"
#include "cli/commands.h"
#include "trainer/process_group.h"
#ifdef PREFLIGHT_HAVE_DIST
#include "mpi/ranks.h"
#endif

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"demo", preflight::cli::RunDemo, "the main job on the bundled Brown corpus"},
    {"select", preflight::cli::RunSelect,
     "keep the part of a pool most like a target (or a baseline)"},
    {"forecast", preflight::cli::RunForecast, "verdict before training: curate or random"},
    {"trial", preflight::cli::RunTrial, "train curated vs random arms, measure compute saved"},
    {"battery", preflight::cli::RunBattery, "forecast + trial for every target of a battery"},
    {"ladder", preflight::cli::RunLadder,
     "the same trial at >= 3 rungs of compute: does the saving grow, hold or shrink?"},
    {"score", preflight::cli::RunScore,
     "compute saved from runs made elsewhere (curves of both arms, any trainer)"},
    {"train", preflight::cli::RunTrain, "train a small byte-level GPT on a JSONL file"},
    {"cost", preflight::cli::RunCost, "dollars for GPUs x hours x price, with components"},
    {"plan", preflight::cli::RunPlan, "compute-optimal and inference-aware model sizing"},
    {"fit", preflight::cli::RunFit, "fit a loss law L(N, D) to your own runs"},
    {"memory", preflight::cli::RunMemory, "training and inference memory per GPU"},
    {"ledger", preflight::cli::RunLedger, "show or verify the tamper-evident receipt ledger"},
    {"report", preflight::cli::RunReport, "render a trial's report.html again"},
    {"corpus", preflight::cli::RunCorpus, "corpus stats and import"},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "preflight %s (%s): decide a language model's training data before the compute "
               "is spent,\nand prove afterwards whether that decision paid.\n\n"
               "Usage: preflight <command> [flags]   (preflight <command> --help for its flags)\n\n"
               "Commands:\n",
               preflight::kVersion, preflight::kGitCommit);
  for (const Command& c : kCommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
  std::fprintf(out, "\nStart with: preflight demo\n");
}

// OpenMP reads OMP_WAIT_POLICY only at start-up. Its default (threads spin while they wait) makes
// the training engine collapse on a machine whose cores are shared: on a busy 2-core machine
// `small` trained at 1,460 tok/s with the default and 5,640 with passive waiting (doc/train.md).
// So preflight restarts itself once with the passive policy, unless the user chose one.
void ReexecWithPassiveWait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // Returns only on failure: then go on with the default policy.
}

// SIGINT, SIGTERM or SIGHUP: launched trainers lead process groups of their own (a terminal's
// Ctrl-C no longer reaches them), so every live one is ended first (SIGTERM, SIGKILL after a
// grace period: trainer/process_group.h), then preflight dies of the signal as it did before.
// Async-signal-safe. SA_RESETHAND has restored the default action; the signal raised here is
// blocked until the handler returns, and then ends the process.
void OnTerminatingSignal(int sig) {
  preflight::trainer::EndRegisteredGroups();
  ::raise(sig);
}

void EndLaunchesOnTerminatingSignals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) {
      continue;  // ignored (nohup, a background job of a script): leave it so
    }
    struct sigaction action {};
    action.sa_handler = OnTerminatingSignal;
    sigemptyset(&action.sa_mask);
    for (int other : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, other);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &action, nullptr);
  }
}

#ifdef PREFLIGHT_HAVE_DIST
// The commands that share their work between MPI ranks (doc/mpi.md); under more than one rank
// any other would run once per rank over the same files, so it is refused. demo belongs here once
// it leaves its selections, receipts and printing to rank 0.
bool SharesWorkOverRanks(const char* command) {
  for (const char* name : {"select", "trial", "battery"}) {
    if (std::strcmp(command, name) == 0) return true;
  }
  return false;
}
#endif

// Under mpirun: MPI starts after the re-exec (the process MPI knows is the final one), and only
// rank 0 prints on stdout; the other ranks' stdout goes to /dev/null (their errors still reach
// stderr). Without mpirun, nothing changes.
int Dispatch(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  ReexecWithPassiveWait(argv);
#ifdef PREFLIGHT_HAVE_DIST
  if (!preflight::mpi::Init(&argc, &argv)) {
    std::fprintf(stderr,
                 "preflight: error: MPI would not start under mpirun (the configure step says "
                 "whether this binary has MPI support; to build it in: apt-get install "
                 "libopenmpi-dev openmpi-bin, then scripts/build.sh)\n");
    return 1;
  }
  if (preflight::mpi::Rank() != 0) {
    std::fflush(stdout);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::close(null);
    }
  }
  // Launched trainers are refused under several ranks (mpirun handles its ranks' signals).
  if (preflight::mpi::Size() <= 1) EndLaunchesOnTerminatingSignals();
  int code = 0;
  if (preflight::mpi::Size() > 1 && argc >= 2 && !SharesWorkOverRanks(argv[1])) {
    if (preflight::mpi::Rank() == 0) {
      std::fprintf(stderr,
                   "preflight %s: error: this command does not run on several MPI ranks; run it "
                   "without mpirun (select, trial and battery do run under mpirun)\n",
                   argv[1]);
    }
    code = 2;
  } else {
    code = Dispatch(argc, argv);
  }
  std::fflush(stdout);
  preflight::mpi::Finalize();
  return code;
#else
  EndLaunchesOnTerminatingSignals();
  return Dispatch(argc, argv);
#endif
}

namespace {

int Dispatch(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    PrintUsage(stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("preflight %s (%s)\n", preflight::kVersion, preflight::kGitCommit);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) == 0) return c.run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "preflight: unknown command '%s'\n\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}

}  // namespace
