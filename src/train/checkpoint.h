#pragma once
// The training checkpoint: everything needed to continue a run as if it had never stopped.
// The byte layout is doc/checkpoint-format.md. Writes are atomic (temporary file, fsync,
// rename); reads verify magic, version, sizes and a SHA-256 over the whole file.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::train {

inline constexpr char kCheckpointMagic[8] = {'P', 'F', 'T', 'R', 'A', 'I', 'N', '\0'};
inline constexpr uint32_t kCheckpointVersion = 1;

struct CheckpointEvalPoint {
  int64_t step = 0;
  double eval_bpb = 0;
};

struct Checkpoint {
  std::string fingerprint;        // canonical JSON of what determines the curve
  int64_t step = 0;               // optimizer steps taken
  std::array<uint64_t, 4> rng{};  // the window sampler's xoshiro256** state
  std::vector<CheckpointEvalPoint> curve;
  double train_seconds = 0;  // wall seconds in training steps, over every invocation
  double core_seconds = 0;   // CPU seconds of the process in Train, ditto
  std::vector<float> params, adam_m, adam_v;  // equal sizes
};

// Writes `checkpoint` to `path` atomically; on error the previous file at `path` is intact.
Status WriteCheckpoint(const std::string& path, const Checkpoint& checkpoint);
// NotFound when there is no file; Corruption naming the path and what is wrong otherwise.
Result<Checkpoint> ReadCheckpoint(const std::string& path);

}  // namespace preflight::train
