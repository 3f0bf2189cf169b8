#pragma once
// Documents to tokens to training windows. Tokens are bytes (0..255) and the document-boundary
// token 256; the stream is, for each document in order, the boundary token then its bytes.
// Training windows start at positions drawn by the seeded Rng; evaluation windows tile the
// held-out stream in a fixed order.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "corpus/record.h"
#include "engine/xoshiro.h"

namespace preflight::engine {

// Reads the string field `field` of every document of a JSONL file (blank lines skipped)
// through the corpus module's reader, so bad lines are errors naming file and line.
Result<std::vector<std::string>> ReadJsonlTexts(const std::string& path,
                                                const std::string& field = "text");

// The same, with what the read measured of the file (path, SHA-256 of its bytes, documents,
// text bytes): for a caller that records the file and uses its documents, from one read. A
// missing file is the corpus reader's NotFound ("<path>: no such file").
struct JsonlTexts {
  std::vector<std::string> texts;
  corpus::InputSummary input;
};
Result<JsonlTexts> ReadJsonlFile(const std::string& path, const std::string& field = "text");

// [256, bytes of doc 0..., 256, bytes of doc 1..., ...]
std::vector<uint16_t> Tokenize(const std::vector<std::string>& docs);

// Draws batches of B windows of T+1 tokens (inputs are the first T, targets the last T) with
// uniformly random starts in [0, n - T - 1]. Its whole state is the Rng's.
class WindowSampler {
 public:
  // tokens must outlive the sampler and hold at least T + 1 tokens.
  WindowSampler(const std::vector<uint16_t>* tokens, int T, uint64_t seed);
  // inputs, targets: (B, T)
  void Next(int B, int* inputs, int* targets);
  Rng& rng() { return rng_; }

 private:
  const std::vector<uint16_t>* tokens_;
  int T_;
  Rng rng_;
};

// An evaluation window: tokens [start, start + T] and the positions t >= first_counted whose
// targets count toward the loss. Together the windows count every target position 1..n-1 of
// the stream exactly once (the last window is aligned to the end and skips what was counted).
struct EvalWindow {
  int64_t start = 0;
  int first_counted = 0;
};
// Needs n >= T + 1. max_windows > 0 keeps that many windows spread evenly over the stream
// (then not every position counts).
std::vector<EvalWindow> MakeEvalWindows(int64_t n, int T, int64_t max_windows);

}  // namespace preflight::engine
