#pragma once
// The engine's initial weights for (model, seed), written for another trainer to start from
// (doc/torch-trainer.md, "What matches the engine"): the same values Gpt::InitWeights
// gives, in the engine's tensor order (model.h), so a run of the PyTorch trainer starts exactly
// where the engine's run with that seed starts.
//
// Format PFINIT01, little-endian: 8 bytes "PFINIT01", then uint64 layers, d_model, heads,
// context, vocab, seed and count (7 x 8 bytes), then `count` float32 parameters. The batch is not
// part of it (parameters do not depend on it).

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/config.h"

namespace preflight::engine {

inline constexpr char kInitMagic[8] = {'P', 'F', 'I', 'N', 'I', 'T', '0', '1'};
inline constexpr size_t kInitHeaderBytes = 8 + 7 * 8;

// The file's bytes: header and parameters.
std::string InitialWeightsBytes(const ModelConfig& model, uint64_t seed);

// Writes InitialWeightsBytes atomically to `path`, unless `path` already holds exactly those
// bytes' header and size (then nothing is written). InvalidArgument for a bad model shape.
Status WriteInitialWeights(const ModelConfig& model, uint64_t seed, const std::string& path);

// A file read back: its header fields and parameters. Corruption naming the file for a wrong
// magic, a short file or a count that does not match its size.
struct InitialWeights {
  ModelConfig model;  // batch left at its default
  uint64_t seed = 0;
  std::vector<float> params;
};
Result<InitialWeights> ReadInitialWeights(const std::string& path);

}  // namespace preflight::engine
