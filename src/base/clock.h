#pragma once
// Time and cost. Cost is measured in core-seconds (CPU time of every thread of the process),
// the unit in which selection and training are charged against each other (DESIGN.md).

#include <string>

namespace preflight {

// CPU seconds used by all threads of this process so far.
double ProcessCpuSeconds();
// Monotonic wall-clock seconds.
double WallSeconds();
// UTC now as RFC 3339 with milliseconds, e.g. 2026-11-29T19:10:22.123Z.
std::string UtcNowRfc3339();

// Measures core-seconds and wall seconds between construction and a call.
class CostMeter {
 public:
  CostMeter() : cpu0_(ProcessCpuSeconds()), wall0_(WallSeconds()) {}
  double core_seconds() const { return ProcessCpuSeconds() - cpu0_; }
  double wall_seconds() const { return WallSeconds() - wall0_; }

 private:
  double cpu0_;
  double wall0_;
};

}  // namespace preflight
