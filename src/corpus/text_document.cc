#include "corpus/text_document.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace preflight::corpus {

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

uint64_t MaxLineBytes(const ReadOptions& options) {
  return options.max_document_bytes * 2 + (1u << 20);
}

std::string BomNote(const std::string& file) {
  return file + ": starts with a UTF-8 byte-order mark (EF BB BF); it was skipped";
}

Result<TextDocument> ReadTextDocument(const std::string& path, const std::string& id,
                                      const ReadOptions& options,
                                      const std::function<void(std::string_view)>& on_bytes) {
  TextDocument doc;
  PF_ASSIGN_OR_RETURN(doc.content, ReadFileToString(path));
  doc.file_bytes = doc.content.size();
  if (on_bytes) on_bytes(doc.content);
  if (doc.content.compare(0, kBom.size(), kBom) == 0) {
    doc.bom = true;
    doc.content.erase(0, kBom.size());
  }
  if (doc.content.size() > options.max_document_bytes) {
    doc.reason = "document of " + std::to_string(doc.content.size()) +
                 " bytes is over the limit of " + std::to_string(options.max_document_bytes) +
                 " bytes";
  } else if (!simdjson::validate_utf8(doc.content)) {
    doc.reason = "invalid UTF-8";
  } else {
    doc.line = nlohmann::json{{"id", id}, {"text", doc.content}}.dump();
  }
  return doc;
}

}  // namespace preflight::corpus
