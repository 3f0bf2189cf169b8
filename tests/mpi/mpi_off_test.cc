// The MPI module as a binary built without OpenMPI has it (scripts/setup.sh builds that way unless
// OpenMPI is installed): alone, or as the only rank, it is one process as always; started by
// mpirun on several ranks it refuses to start, rather than run the whole command once per rank
// over the same files. This test's target compiles src/mpi/ranks.cc without PREFLIGHT_HAVE_MPI.

#include <gtest/gtest.h>
#include <stdlib.h>

#include "mpi/ranks.h"

namespace preflight::mpi {
namespace {

bool InitWithWorldSize(const char* size) {
  if (size == nullptr) {
    unsetenv("OMPI_COMM_WORLD_SIZE");
  } else {
    setenv("OMPI_COMM_WORLD_SIZE", size, 1);
  }
  int argc = 1;
  char name[] = "preflight";
  char* args[] = {name, nullptr};
  char** argv = args;
  const bool started = Init(&argc, &argv);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  return started;
}

TEST(MpiOff, OneProcessStartsAsAlways) {
  EXPECT_TRUE(InitWithWorldSize(nullptr));
  EXPECT_TRUE(InitWithWorldSize("1"));
  EXPECT_EQ(Rank(), 0);
  EXPECT_EQ(Size(), 1);
  EXPECT_EQ(MakeSelectionGroup(), nullptr);
  EXPECT_EQ(MakeRunExecutor(), nullptr);
}

TEST(MpiOff, SeveralRanksAreRefused) {
  EXPECT_FALSE(InitWithWorldSize("2"));
  EXPECT_FALSE(InitWithWorldSize("16"));
}

}  // namespace
}  // namespace preflight::mpi
