#pragma once
// Time and cost. Cost is measured in core-seconds (CPU time of every thread of the process),
// the unit in which selection and training are charged against each other (doc/design.md, "The
// metrics, exactly").

#include <string>

namespace preflight {

// CPU seconds used by all threads of this process so far.
double ProcessCpuSeconds();
// CPU seconds used by the calling thread so far: a run trained on one thread, beside others in
// the same process (trial/concurrent_runs.h), is charged its own time only.
double ThreadCpuSeconds();
// Monotonic wall-clock seconds.
double WallSeconds();
// UTC now as RFC 3339 with milliseconds, e.g. 2026-11-29T19:10:22.123Z.
std::string UtcNowRfc3339();

// Measures core-seconds and wall seconds between construction and a call: of the whole process,
// or of the calling thread only (work that runs on that one thread).
class CostMeter {
 public:
  explicit CostMeter(bool this_thread_only = false)
      : thread_(this_thread_only), cpu0_(Cpu()), wall0_(WallSeconds()) {}
  double core_seconds() const { return Cpu() - cpu0_; }
  double wall_seconds() const { return WallSeconds() - wall0_; }

 private:
  double Cpu() const { return thread_ ? ThreadCpuSeconds() : ProcessCpuSeconds(); }
  bool thread_;
  double cpu0_;
  double wall0_;
};

}  // namespace preflight
