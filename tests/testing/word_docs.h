#pragma once
// Documents of words drawn from one small vocabulary, deterministic: texts whose n-grams are
// known, for the forecast's signal tests.

#include <cstdint>
#include <string>
#include <vector>

namespace preflight::testing {

// `docs` documents of `per_doc` words each, drawn from `words` by a fixed LCG from `seed`.
inline std::vector<std::string> WordDocs(const std::vector<std::string>& words, int docs,
                                         int per_doc, uint64_t seed) {
  std::vector<std::string> out;
  uint64_t state = seed;
  for (int d = 0; d < docs; ++d) {
    std::string text;
    for (int w = 0; w < per_doc; ++w) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      text += (w ? " " : "") + words[(state >> 33) % words.size()];
    }
    out.push_back(text);
  }
  return out;
}

// Three vocabularies that share no word.
inline const std::vector<std::string> kCodeWords = {"int",    "return", "void",
                                                    "struct", "const",  "auto"};
inline const std::vector<std::string> kProseWords = {"river", "morning", "gentle",
                                                     "quiet", "stone",   "light"};
inline const std::vector<std::string> kMailWords = {
    "From:", "Subject:", "Re:", "unsubscribe", "@", "list"};

}  // namespace preflight::testing
