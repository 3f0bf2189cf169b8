#pragma once
// Parses one JSONL line into its document: the whole line is validated (JSON and UTF-8), not
// just the field read, and the text field is found and checked against the size limit. One
// parser per thread; not thread-safe.

#include <memory>
#include <string>
#include <string_view>

#include "corpus/record.h"

namespace simdjson::dom {
class parser;
}

namespace preflight::corpus {

class DocumentParser {
 public:
  explicit DocumentParser(const ReadOptions& options);
  ~DocumentParser();
  DocumentParser(DocumentParser&&) noexcept;
  DocumentParser& operator=(DocumentParser&&) noexcept;

  // The text of `line`, or false with the reason it is a bad line ("malformed JSON (...)",
  // "invalid UTF-8", "no \"text\" field", ...). `padded` promises SIMDJSON_PADDING readable
  // bytes after the line. The view lives until the next call.
  bool Parse(std::string_view line, bool padded, std::string_view* text, std::string* reason);

 private:
  const ReadOptions* options_;
  std::unique_ptr<simdjson::dom::parser> parser_;
};

}  // namespace preflight::corpus
