#pragma once
// Writing a row's values as JSON text: strings escaped as JSON requires (quote, backslash and
// control characters; everything else, non-ASCII included, as its UTF-8 bytes), numbers as JSON
// numbers, and the value forms schema.h lists per type.

#include <string>
#include <string_view>

#include "parquet/schema.h"

namespace preflight::parquet {

// Appends `text` as a JSON string, quotes included. `text` must be valid UTF-8.
void AppendJsonString(std::string_view text, std::string* out);
// As AppendJsonString, but any byte sequence that is not UTF-8 becomes U+FFFD.
void AppendJsonStringRepairing(std::string_view text, std::string* out);
// Appends a flat column's value in its JSON form (`null` for a null).
void AppendJsonValue(const Column& column, const Value& value, std::string* out);
// A value as the text an id is known by: a string as it is, anything else as its JSON text.
void AppendIdText(const Column& column, const Value& value, std::string* out);

}  // namespace preflight::parquet
