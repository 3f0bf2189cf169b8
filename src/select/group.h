#pragma once
// The processes that run one selection together. A selection runs the same code in one process
// (the default group below: every operation is the identity) or in the N ranks of an MPI job
// (src/mpi implements this interface over MPI). Each process reads its own part of the pool;
// the group combines what the parts found: feature counts, byte totals, the budget cut.
//
// Every operation is collective: all processes of the group call it, in the same order. A
// process that fails must still take part in the next Agree() (never in another operation), so
// library code calls Agree() after every local step that can fail, before the next collective.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight::select {

class SelectionGroup {
 public:
  virtual ~SelectionGroup() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  bool leader() const { return rank() == 0; }

  // Labels the communication that follows, for the per-phase byte counts (cost block).
  virtual void SetPhase(const std::string& phase) { (void)phase; }

  // Returns OK on every process if `local` is OK on every process; otherwise, on every process,
  // the failure of the lowest failing rank, its message prefixed with "rank K: " in a group of
  // more than one.
  virtual Status Agree(const Status& local) { return local; }
  // Element-wise sum over the processes, in place (all have the same size).
  virtual Status SumU64(std::vector<uint64_t>* values) {
    (void)values;
    return Status::Ok();
  }
  // Element-wise sum over the processes of lower rank (zeros on rank 0), in place.
  virtual Status ExclusivePrefixU64(std::vector<uint64_t>* values) {
    for (uint64_t& v : *values) v = 0;
    return Status::Ok();
  }
  // Sum over the processes of a double (measured costs only: the order of a floating-point sum
  // is not fixed).
  virtual Result<double> SumDouble(double value) { return value; }
  // The bytes of every process, concatenated in rank order, on the leader (empty elsewhere).
  virtual Result<std::string> GatherToLeader(const std::string& local) { return local; }
  // The bytes of every process in rank order, handed to `sink` on the leader piece by piece (it
  // holds one process's bytes at a time). If the sink fails the leader still receives the rest,
  // then returns the sink's failure; other processes return OK.
  virtual Status StreamToLeader(const std::string& local,
                                const std::function<Status(std::string_view)>& sink) {
    return sink(local);
  }
  // The leader's bytes, on every process.
  virtual Status Broadcast(std::string* bytes) {
    (void)bytes;
    return Status::Ok();
  }
  // What each phase cost this process so far, in the order the phases began (empty for one
  // process): the bytes it handed to MPI (its part of every collective, a broadcast counted at
  // its root, and the messages it sent), and the wall seconds from SetPhase(phase) to the next
  // SetPhase (work and waiting included).
  struct PhaseCost {
    std::string phase;
    uint64_t bytes_sent = 0;
    double seconds = 0;
  };
  virtual std::vector<PhaseCost> Costs() const { return {}; }
};

}  // namespace preflight::select
