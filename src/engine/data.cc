#include "engine/data.h"

#include "base/file.h"
#include "corpus/scanner.h"

namespace preflight::engine {

Result<JsonlTexts> ReadJsonlFile(const std::string& path, const std::string& field) {
  // The corpus module's reader: the same JSON and UTF-8 validation, limits and error messages
  // (file:line) as selection. One thread, so documents arrive in file order.
  corpus::ReadOptions read;
  read.text_field = field;
  JsonlTexts out;
  PF_ASSIGN_OR_RETURN(
      corpus::ScanSummary s,
      corpus::ScanDocuments({path}, read, [&](int, const corpus::Record&, std::string_view text) {
        out.texts.emplace_back(text);
      }));
  out.input = s.inputs.at(0);
  return out;
}

Result<std::vector<std::string>> ReadJsonlTexts(const std::string& path, const std::string& field) {
  if (!PathExists(path)) return Status::NotFound(path + ": cannot open (does the file exist?)");
  PF_ASSIGN_OR_RETURN(JsonlTexts read, ReadJsonlFile(path, field));
  return std::move(read.texts);
}

std::vector<uint16_t> Tokenize(const std::vector<std::string>& docs) {
  size_t total = 0;
  for (const std::string& d : docs) total += d.size() + 1;
  std::vector<uint16_t> tokens;
  tokens.reserve(total);
  for (const std::string& d : docs) {
    tokens.push_back(256);
    for (unsigned char c : d) tokens.push_back(c);
  }
  return tokens;
}

WindowSampler::WindowSampler(const std::vector<uint16_t>* tokens, int T, uint64_t seed)
    : tokens_(tokens), T_(T), rng_(seed) {}

void WindowSampler::Next(int B, int* inputs, int* targets) {
  const uint64_t starts = tokens_->size() - static_cast<uint64_t>(T_);  // count of valid starts
  for (int b = 0; b < B; b++) {
    const uint64_t s = rng_.Below(starts);
    const uint16_t* w = tokens_->data() + s;
    for (int t = 0; t < T_; t++) {
      inputs[b * T_ + t] = w[t];
      targets[b * T_ + t] = w[t + 1];
    }
  }
}

std::vector<EvalWindow> MakeEvalWindows(int64_t n, int T, int64_t max_windows) {
  std::vector<EvalWindow> all;
  int64_t start = 0;
  for (; start + T + 1 <= n; start += T) all.push_back({start, 0});
  // Targets counted so far: positions 1..start (start = last window's start + T).
  if (start < n - 1) {
    const int64_t last = n - T - 1;
    all.push_back({last, static_cast<int>(start - last)});
  }
  if (max_windows <= 0 || static_cast<int64_t>(all.size()) <= max_windows) return all;
  std::vector<EvalWindow> kept;
  const int64_t count = static_cast<int64_t>(all.size());
  for (int64_t k = 0; k < max_windows; k++) kept.push_back(all[k * count / max_windows]);
  return kept;
}

}  // namespace preflight::engine
