#include "corpus/document_parser.h"

#include <simdjson.h>

#include "corpus/text_document.h"

namespace preflight::corpus {

DocumentParser::DocumentParser(const ReadOptions& options)
    : options_(&options), parser_(std::make_unique<simdjson::dom::parser>()) {}
DocumentParser::~DocumentParser() = default;
DocumentParser::DocumentParser(DocumentParser&&) noexcept = default;
DocumentParser& DocumentParser::operator=(DocumentParser&&) noexcept = default;

// Built only on failure: this runs once per document.
bool DocumentParser::Parse(std::string_view line, bool padded, std::string_view* text,
                           std::string* reason) {
  const ReadOptions& options = *options_;
  simdjson::dom::element doc;
  auto error = padded ? parser_->parse(line.data(), line.size(), false).get(doc)
                      : parser_->parse(line.data(), line.size(), true).get(doc);
  if (error && line.substr(0, kBom.size()) == kBom) {
    *reason =
        "starts with a UTF-8 byte-order mark (EF BB BF) inside the file (files joined with "
        "their marks?); remove the three bytes at the start of this line";
    return false;
  }
  if (error == simdjson::UTF8_ERROR) {
    *reason = "invalid UTF-8";
    return false;
  }
  if (error) {
    *reason = "malformed JSON (" + std::string(simdjson::error_message(error)) + ")";
    return false;
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) {
    *reason = "not a JSON object";
    return false;
  }
  simdjson::dom::element field;
  if (obj[options.text_field].get(field)) {
    *reason = "no \"" + options.text_field + "\" field";
    return false;
  }
  if (field.get_string().get(*text)) {
    *reason = "field \"" + options.text_field + "\" is not a string";
    return false;
  }
  if (text->size() > options.max_document_bytes) {
    *reason = "document of " + std::to_string(text->size()) + " bytes is over the limit of " +
              std::to_string(options.max_document_bytes) + " bytes";
    return false;
  }
  return true;
}

}  // namespace preflight::corpus
