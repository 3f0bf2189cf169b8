#pragma once
// What the readers share: a blank line, the longest line a reader buffers, the byte-order-mark
// note, and a plain-text file read as one document.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "corpus/record.h"

namespace preflight::corpus {

inline constexpr std::string_view kBom = "\xef\xbb\xbf";

// Spaces, tabs and '\r' only: not a document, not an error.
bool IsBlank(std::string_view line);
// The longest line a reader holds: a document at the size limit, escaped, and its other fields.
uint64_t MaxLineBytes(const ReadOptions& options);
// "x.jsonl: starts with a UTF-8 byte-order mark (EF BB BF); it was skipped".
std::string BomNote(const std::string& file);

// A plain-text file as one document. Its record line is a synthesized JSONL line
// {"id": `id`, "text": content}, so that selection writes JSONL either way.
struct TextDocument {
  std::string content;  // Without a leading byte-order mark.
  std::string line;     // Empty when the document is bad.
  std::string reason;   // Why it is bad, or empty.
  bool bom = false;
  uint64_t file_bytes = 0;  // On disk, the mark included.
};

// Reads `path` whole; `on_bytes` (if set) sees the bytes on disk, for hashing.
Result<TextDocument> ReadTextDocument(const std::string& path, const std::string& id,
                                      const ReadOptions& options,
                                      const std::function<void(std::string_view)>& on_bytes);

}  // namespace preflight::corpus
