#pragma once
// preflight on MPI (OpenMPI from Debian): the same binary, started by `mpirun -np N preflight ...`.
//
//   select  every rank reads its own line-aligned byte range of the pool; DSIR counts are summed
//           with MPI_Allreduce, the budget cut is found exactly over all ranks (select/cut.h), the
//           classifier is trained once on rank 0 and broadcast; rank 0 writes the outputs, the
//           same bytes as one process writes (doc/mpi.md).
//   trial   (and battery, demo) the arm x seed runs are dealt round-robin over the ranks; rank 0
//           makes the arms, collects the curves and writes everything (executor below).
//
// Without mpirun (or built with -DPREFLIGHT_MPI=OFF) nothing here starts MPI and the factories
// return nullptr: the binary behaves exactly as without this module.

#include <memory>

#include "select/group.h"
#include "trial/runner.h"

namespace preflight::mpi {

// Starts MPI when this process was launched by mpirun (OpenMPI's OMPI_COMM_WORLD_SIZE or PMIx's
// PMIX_RANK in the environment). Call once from main, after any re-exec of the binary. Returns
// false when MPI was expected but would not start, or when this binary, built without MPI, was
// started on several ranks (the caller prints why and exits).
bool Init(int* argc, char*** argv);
// Ends MPI if Init started it. Call before main returns.
void Finalize();

// This process's rank and the number of ranks (0 and 1 without MPI).
int Rank();
int Size();
// Ranks on this machine (1 without MPI): to share the cores, e.g. threads = cores / LocalRanks().
int LocalRanks();
// Threads per rank that share this machine's hardware threads evenly, at least 1.
int DefaultThreads();

// The ranks as one selection group (nullptr unless there are 2 or more ranks).
std::unique_ptr<select::SelectionGroup> MakeSelectionGroup();
// Trial runs spread over the ranks (nullptr unless there are 2 or more ranks).
std::unique_ptr<trial::RunExecutor> MakeRunExecutor();

}  // namespace preflight::mpi
