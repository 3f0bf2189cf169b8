// mpirun with a launched trainer is refused (exit 2) before anything is written: every rank would
// launch the runs. Registered only with MPI (like tests/mpi).

#include <gtest/gtest.h>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::trainer {
namespace {

TEST(TrainerMpi, ALaunchedTrainerDoesNotRunUnderMpirun) {
  const std::string dir = preflight::testing::ScratchDir("trainer_mpi");
  preflight::testing::WritePlantedPool(dir, 40, 0.3, 8, 3);
  std::vector<std::string> argv = {
      PREFLIGHT_MPIRUN, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", "2",
      PREFLIGHT_BINARY};
  for (const std::string& a : preflight::testing::SplitWords(
           "trial --pool " + dir + "/pool.jsonl --target-select " + dir + "/target.jsonl " +
           "--target-eval " + dir + "/target.jsonl --model tiny --steps 10 --quiet --ledger " +
           dir + "/ledger.jsonl --out " + dir + "/out --trainer cmd --trainer-cmd 'true'")) {
    argv.push_back(a);
  }
  auto r = preflight::testing::RunProgram(argv);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--trainer cmd does not run under mpirun"), std::string::npos) << r.err;
  EXPECT_FALSE(preflight::testing::Exists(dir + "/out"));
}

}  // namespace
}  // namespace preflight::trainer
