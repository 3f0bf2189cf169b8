#pragma once
// A fastText-style classifier selector (Joulin et al. 2017, through Debian's libfasttext):
// positives are the target's documents, negatives a seeded random sample of the pool; documents
// are ranked by the probability of the positive label.
//
// Choices, all recorded in the manifest:
//  - Text is normalised with the DSIR tokenizer (features.h): lower-cased, word and punctuation
//    tokens joined by single spaces, so both selectors see the same tokens.
//  - Training examples are pieces of `chunk_words` tokens (documents here are long; a piece is
//    closer to the sentence-to-paragraph units fastText is designed for), scoring is on the whole
//    document.
//  - Negatives: a uniform sample of pool documents (Gumbel keys with the selection seed) whose
//    text bytes reach `negative_ratio` times the target's bytes (all of the pool if smaller).
//  - One training thread: fastText's multi-threaded SGD is not deterministic.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fasttext {
class FastText;
}

namespace preflight::select {

struct ClassifierOptions {
  int dim = 32;
  int epochs = 10;
  double lr = 0.2;
  int word_ngrams = 2;
  int buckets =
      1 << 18;  // fastText's hashed n-gram rows (its default, 2M, costs 800 MB at dim 100).
  int chunk_words = 64;
  double negative_ratio = 4.0;
  Status Validate() const;
  nlohmann::json ToJson() const;
};

// Lower-cased tokens joined by single spaces (the classifier's view of a text).
std::string NormalizeForClassifier(std::string_view text);

class Classifier {
 public:
  Classifier();
  ~Classifier();
  Classifier(Classifier&&) noexcept;
  Classifier& operator=(Classifier&&) noexcept;

  // Trains on labelled texts. `scratch_dir` receives a temporary training file, removed after.
  static Result<Classifier> Train(const std::vector<std::string>& positives,
                                  const std::vector<std::string>& negatives,
                                  const ClassifierOptions& options, uint64_t seed,
                                  const std::string& scratch_dir);
  // The trained model as bytes (fastText's own model format, through a temporary file in
  // `scratch_dir`), and a classifier made from them: what MPI ranks receive from the one that
  // trained (src/mpi). A loaded model predicts exactly as the saved one.
  Result<std::string> Serialize(const std::string& scratch_dir) const;
  static Result<Classifier> Deserialize(const std::string& bytes);
  // P(target | text). Thread-safe (fastText's prediction is const).
  double PositiveProbability(std::string_view text) const;

 private:
  std::unique_ptr<fasttext::FastText> model_;
};

}  // namespace preflight::select
