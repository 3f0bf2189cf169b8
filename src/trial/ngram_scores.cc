#include "trial/ngram_scores.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/data.h"
#include "trial/byte_ngram.h"

namespace preflight::trial {
namespace {

// Adds -log2 P of the targets window `w` counts (tokens w.start+1+t, t >= first_counted), each
// with the context the engine sees: the window's tokens before it.
void ScoreWindow(const ByteNgramModel& model, const std::vector<uint16_t>& eval, int64_t start,
                 int64_t first, int64_t end, double* bits, int64_t* count) {
  double p[kMaxNgramOrder + 1];
  const int order = model.order();
  for (int64_t t = first; t < end; ++t) {
    const int64_t target = start + t + 1;
    const int64_t context_len = std::min<int64_t>(t + 1, order - 1);
    model.Probabilities(eval.data() + target - context_len, static_cast<int>(context_len),
                        eval[static_cast<size_t>(target)], p);
    bits[0] -= std::log2(p[1]);
    bits[1] -= std::log2(p[std::min(2, order)]);
    bits[2] -= std::log2(p[order]);
    ++*count;
  }
}

}  // namespace

Result<NgramScores> ScoreNgramTokens(const std::vector<uint16_t>& train,
                                     const std::vector<uint16_t>& eval, int order,
                                     const NgramEvalWindows& windows) {
  if (order < 1 || order > kMaxNgramOrder) {
    return Status::InvalidArgument(
        fmt::format("n-gram order {} is outside [1, {}]", order, kMaxNgramOrder));
  }
  const int64_t n = static_cast<int64_t>(eval.size());
  if (n < 2 || (windows.context > 0 && n < windows.context + 1)) {
    return Status::InvalidArgument(fmt::format("{} eval tokens, fewer than one window of {}", n,
                                               std::max(2, windows.context + 1)));
  }
  const ByteNgramModel model(train, order);
  double bits[3] = {0, 0, 0};
  int64_t count = 0;
  if (windows.context > 0) {
    for (const engine::EvalWindow& w :
         engine::MakeEvalWindows(n, windows.context, windows.max_windows)) {
      ScoreWindow(model, eval, w.start, w.first_counted, windows.context, bits, &count);
    }
  } else {
    ScoreWindow(model, eval, 0, 0, n - 1, bits, &count);  // one window over the whole stream
  }
  const double c = static_cast<double>(count);
  return NgramScores{bits[0] / c, bits[1] / c, bits[2] / c, order};
}

Result<NgramScores> ScoreNgramTexts(const std::vector<std::string>& train_docs,
                                    const std::vector<std::string>& eval_docs,
                                    const std::string& eval_name, int order,
                                    const NgramEvalWindows& windows) {
  auto scores =
      ScoreNgramTokens(engine::Tokenize(train_docs), engine::Tokenize(eval_docs), order, windows);
  if (!scores.ok()) {
    return Status::InvalidArgument(eval_name + ": " + scores.status().message() +
                                   "; give more held-out text or a smaller --context");
  }
  return scores;
}

Result<NgramScores> ScoreNgrams(const std::string& train_jsonl,
                                const corpus::ReadOptions& train_read,
                                const std::string& eval_jsonl, const corpus::ReadOptions& eval_read,
                                int order, const NgramEvalWindows& windows) {
  PF_ASSIGN_OR_RETURN(std::vector<std::string> train_docs,
                      engine::ReadJsonlTexts(train_jsonl, train_read.text_field));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> eval_docs,
                      engine::ReadJsonlTexts(eval_jsonl, eval_read.text_field));
  return ScoreNgramTexts(train_docs, eval_docs, eval_jsonl, order, windows);
}

}  // namespace preflight::trial
