#pragma once
// A synthetic pool with planted target-like documents, for selector tests.
// Background documents draw words from vocabulary "bg*", planted ones from "tg*", both with a
// shared function-word vocabulary; the target is made like the planted documents.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "testing/testing.h"

namespace preflight::testing {

class TestRng {
 public:
  explicit TestRng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t s_;
};

inline std::string MakeDoc(TestRng& rng, const std::string& vocab, int words) {
  std::string text;
  for (int w = 0; w < words; ++w) {
    if (!text.empty()) text += rng.Below(12) == 0 ? ". " : " ";
    // Zipf-like: small ids are frequent.
    int id = rng.Below(1 + rng.Below(300));
    text += rng.Below(3) == 0 ? "the" + std::to_string(rng.Below(20)) : vocab + std::to_string(id);
  }
  return text;
}

// Writes pool.jsonl (n docs, `planted_fraction` of them planted, marked with "planted": true) and
// target.jsonl (target_docs docs in the planted style). Returns the number of planted documents.
inline int WritePlantedPool(const std::string& dir, int n, double planted_fraction, int target_docs,
                            uint64_t seed) {
  TestRng rng(seed);
  std::string pool, target;
  int planted = 0;
  for (int i = 0; i < n; ++i) {
    bool is_planted = rng.Below(1000) < planted_fraction * 1000;
    planted += is_planted;
    int words = 100 + rng.Below(200);
    pool += nlohmann::json{{"id", "d" + std::to_string(i)},
                           {"planted", is_planted},
                           {"text", MakeDoc(rng, is_planted ? "tg" : "bg", words)}}
                .dump() +
            "\n";
  }
  for (int i = 0; i < target_docs; ++i) {
    target +=
        nlohmann::json{{"id", "t" + std::to_string(i)}, {"text", MakeDoc(rng, "tg", 150)}}.dump() +
        "\n";
  }
  WriteText(dir + "/pool.jsonl", pool);
  WriteText(dir + "/target.jsonl", target);
  return planted;
}

// 8 held-out documents in the planted style, as JSONL.
inline std::string PlantedEval(uint64_t seed) {
  TestRng rng(seed);
  std::string eval;
  for (int i = 0; i < 8; ++i) {
    eval += nlohmann::json{{"text", MakeDoc(rng, "tg", 120)}}.dump() + "\n";
  }
  return eval;
}

// A small trial's inputs in `dir`: WritePlantedPool(dir, 60, 0.3, 10, seed) and eval.jsonl
// (PlantedEval(seed + 100)).
inline void WritePlantedTrial(const std::string& dir, uint64_t seed) {
  WritePlantedPool(dir, 60, 0.3, 10, seed);
  WriteText(dir + "/eval.jsonl", PlantedEval(seed + 100));
}

// The objects of a JSONL text, one per non-empty line.
inline std::vector<nlohmann::json> JsonLines(const std::string& jsonl) {
  std::vector<nlohmann::json> out;
  std::istringstream lines(jsonl);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

// A JSONL text with field `from` renamed `to` in every line (as pipelines that call the text
// "content" write it).
inline std::string RenameField(const std::string& jsonl, const std::string& from,
                               const std::string& to) {
  std::string out;
  for (nlohmann::json j : JsonLines(jsonl)) {
    j[to] = j[from];
    j.erase(from);
    out += j.dump() + "\n";
  }
  return out;
}

// The "id" of every document of a JSONL file.
inline std::set<std::string> DocumentIds(const std::string& path) {
  std::set<std::string> ids;
  for (const nlohmann::json& j : JsonLines(ReadText(path))) ids.insert(j["id"]);
  return ids;
}

// Replaces line `n` (1-based) of `path` by `line`, the line count unchanged.
inline void ReplaceLine(const std::string& path, int n, const std::string& line) {
  std::istringstream lines(ReadText(path));
  std::string out;
  int i = 1;
  for (std::string l; std::getline(lines, l); ++i) out += (i == n ? line : l) + "\n";
  WriteText(path, out);
}

}  // namespace preflight::testing
