#include "trial/regime.h"

#include <fmt/format.h>

#include <algorithm>

#include "trial/byte_ngram.h"

namespace preflight::trial {

double BestNgramBpb(const NgramScores& s) {
  return std::min({s.unigram_bpb, s.bigram_bpb, s.ngram_bpb});
}

Regime MakeRegime(const NgramScores& baseline, std::map<std::string, NgramScores> arms,
                  double l_star, double threshold) {
  Regime r;
  r.baseline = baseline;
  r.arms = std::move(arms);
  r.l_star = l_star;
  r.margin = BestNgramBpb(baseline) - l_star;
  r.threshold = threshold;
  r.informative = r.margin >= threshold;
  return r;
}

nlohmann::json NgramScoresToJson(const NgramScores& s) {
  return {{"unigram_bpb", s.unigram_bpb},
          {"bigram_bpb", s.bigram_bpb},
          {"ngram_bpb", s.ngram_bpb},
          {"ngram_order", s.ngram_order}};
}

Result<NgramScores> NgramScoresFromJson(const JsonReader& r) {
  NgramScores s;
  PF_ASSIGN_OR_RETURN(s.unigram_bpb, r.Number("unigram_bpb"));
  PF_ASSIGN_OR_RETURN(s.bigram_bpb, r.Number("bigram_bpb"));
  PF_ASSIGN_OR_RETURN(s.ngram_bpb, r.Number("ngram_bpb"));
  PF_ASSIGN_OR_RETURN(int64_t order, r.Int("ngram_order"));
  if (order < 1 || order > kMaxNgramOrder) {
    return r.Error(fmt::format("ngram_order {} is outside [1, {}]", order, kMaxNgramOrder));
  }
  s.ngram_order = static_cast<int>(order);
  return s;
}

nlohmann::json RegimeToJson(const Regime& regime) {
  nlohmann::json j = NgramScoresToJson(regime.baseline);
  j["best_ngram_bpb"] = BestNgramBpb(regime.baseline);
  j["l_star"] = regime.l_star;
  j["margin"] = regime.margin;
  j["threshold"] = regime.threshold;
  j["informative"] = regime.informative;
  j["baseline_arm"] = regime.baseline_arm;
  nlohmann::json arms = nlohmann::json::object();
  for (const auto& [name, scores] : regime.arms) arms[name] = NgramScoresToJson(scores);
  j["arms"] = arms;
  return j;
}

}  // namespace preflight::trial
