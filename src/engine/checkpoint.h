#pragma once
// The training checkpoint: everything needed to continue a run as if it had never stopped.
// The byte layout is doc/checkpoint-format.md. Writes are atomic (temporary file, fsync,
// rename); reads verify magic, version, sizes and a SHA-256 over the whole file.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::engine {

inline constexpr char kCheckpointMagic[8] = {'P', 'F', 'T', 'R', 'A', 'I', 'N', '\0'};
// Version 2 adds the adaptive trigger's snapshot array after adam_v; a checkpoint without one is
// still written as version 1, so plain runs' files keep their layout. Both are read.
inline constexpr uint32_t kCheckpointVersion = 2;

struct CheckpointEvalPoint {
  int64_t step = 0;
  double eval_bpb = 0;
  // Cumulative training compute at this eval (-1 in a file that does not record it).
  double flops = -1, train_seconds = -1, core_seconds = -1;
};

struct Checkpoint {
  std::string fingerprint;        // canonical JSON of what determines the curve
  int64_t step = 0;               // optimizer steps taken
  std::array<uint64_t, 4> rng{};  // the window sampler's xoshiro256** state
  std::vector<CheckpointEvalPoint> curve;
  double train_seconds = 0;  // wall seconds in training steps, over every invocation
  double core_seconds = 0;   // CPU seconds of the process in Train, ditto
  std::vector<float> params, adam_m, adam_v;  // equal sizes
  // Cumulative training FLOPs (sum of the actual per-step FLOPs) and CPU seconds of training
  // steps; -1 when the file predates them.
  double flops = -1, train_core_seconds = -1;
  // The schedule's state (schedule.h): the step from which the parts were frozen (-1: not yet),
  // the adaptive trigger's last check, its measured cost, and its weight snapshot.
  int64_t frozen_at = -1, last_check = -1;
  double trigger_seconds = 0, trigger_core_seconds = 0, trigger_flops = 0;
  std::vector<float> snapshot;
};

// Writes `checkpoint` to `path` atomically; on error the previous file at `path` is intact.
Status WriteCheckpoint(const std::string& path, const Checkpoint& checkpoint);
// NotFound when there is no file; Corruption naming the path and what is wrong otherwise.
Result<Checkpoint> ReadCheckpoint(const std::string& path);

}  // namespace preflight::engine
