#include "base/json.h"

#include <fmt/format.h>

#include <limits>

#include "base/file.h"

namespace preflight {
namespace {

const char* TypeName(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    case nlohmann::json::value_t::number_float:
      return "a number";
    default:
      return "something else";
  }
}

// Applies `read` to each element of the member `key`.
template <typename T, typename Read>
Result<std::vector<T>> ReadArray(const JsonReader& reader, std::string_view key, Read read) {
  PF_ASSIGN_OR_RETURN(JsonReader field, reader.Field(key));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> items, field.Elements());
  std::vector<T> out;
  out.reserve(items.size());
  for (const JsonReader& item : items) {
    PF_ASSIGN_OR_RETURN(T value, read(item));
    out.push_back(std::move(value));
  }
  return out;
}

// The member `key` read by `read`, or `if_absent` when the object has no such member.
template <typename T, typename Read>
Result<T> ReadOptional(const JsonReader& reader, std::string_view key, T if_absent, Read read) {
  if (reader.node().is_object() && !reader.node().contains(key)) return if_absent;
  PF_ASSIGN_OR_RETURN(JsonReader field, reader.Field(key));
  return read(field);
}

}  // namespace

Result<nlohmann::json> ParseJson(std::string_view text, const std::string& source) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    // Find where it broke: the exception-free parser does not say, so parse again to ask.
    try {
      nlohmann::json again = nlohmann::json::parse(text);
      (void)again;
    } catch (const nlohmann::json::parse_error& e) {
      return Status::Corruption(
          fmt::format("{}: not valid JSON at byte {}: {}", source, e.byte, e.what()));
    } catch (const nlohmann::json::exception& e) {
      // A number no double can hold ("1e999") is valid grammar that the parser refuses by
      // throwing out_of_range; found by fuzz_curve_hf, which it aborted.
      return Status::Corruption(fmt::format("{}: not readable JSON: {}", source, e.what()));
    }
    return Status::Corruption(fmt::format("{}: not valid JSON", source));
  }
  return parsed;
}

const nlohmann::json& JsonAt(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json kNull;
  const nlohmann::json* node = &j;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return kNull;
    node = &(*node)[key];
  }
  return *node;
}

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseJson(text, path);
}

JsonReader::JsonReader(const nlohmann::json& node, std::string file, std::string path)
    : node_(&node), file_(std::move(file)), path_(std::move(path)) {}

bool JsonReader::Has(std::string_view key) const {
  return node_->is_object() && node_->contains(key);
}

Status JsonReader::Error(std::string_view what) const {
  return Status::Corruption(fmt::format("{}: {}: {}", file_, path_, what));
}

Result<JsonReader> JsonReader::Field(std::string_view key) const {
  if (!node_->is_object()) {
    return Error(fmt::format("expected an object with \"{}\", found {}", key, TypeName(*node_)));
  }
  auto it = node_->find(key);
  if (it == node_->end()) return Error(fmt::format("missing \"{}\"", key));
  return JsonReader(*it, file_, fmt::format("{}.{}", path_, key));
}

Result<JsonReader> JsonReader::At(size_t index) const {
  if (!node_->is_array())
    return Error(fmt::format("expected an array, found {}", TypeName(*node_)));
  if (index >= node_->size()) {
    return Error(fmt::format("index {} past the end of {} elements", index, node_->size()));
  }
  return JsonReader((*node_)[index], file_, fmt::format("{}[{}]", path_, index));
}

Result<std::vector<JsonReader>> JsonReader::Elements() const {
  if (!node_->is_array())
    return Error(fmt::format("expected an array, found {}", TypeName(*node_)));
  std::vector<JsonReader> out;
  out.reserve(node_->size());
  for (size_t i = 0; i < node_->size(); ++i) {
    out.emplace_back((*node_)[i], file_, fmt::format("{}[{}]", path_, i));
  }
  return out;
}

Result<std::string> JsonReader::AsString() const {
  if (!node_->is_string())
    return Error(fmt::format("expected a string, found {}", TypeName(*node_)));
  return node_->get<std::string>();
}

Result<double> JsonReader::AsNumber() const {
  if (node_->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!node_->is_number())
    return Error(fmt::format("expected a number, found {}", TypeName(*node_)));
  return node_->get<double>();
}

Result<int64_t> JsonReader::AsInt() const {
  if (node_->is_number_integer()) return node_->get<int64_t>();
  if (node_->is_number_float()) {
    double v = node_->get<double>();
    if (v == static_cast<double>(static_cast<int64_t>(v))) return static_cast<int64_t>(v);
  }
  return Error(fmt::format("expected an integer, found {}", TypeName(*node_)));
}

Result<bool> JsonReader::AsBool() const {
  if (!node_->is_boolean())
    return Error(fmt::format("expected true or false, found {}", TypeName(*node_)));
  return node_->get<bool>();
}

Result<std::string> JsonReader::String(std::string_view key) const {
  PF_ASSIGN_OR_RETURN(JsonReader field, Field(key));
  return field.AsString();
}

Result<double> JsonReader::Number(std::string_view key) const {
  PF_ASSIGN_OR_RETURN(JsonReader field, Field(key));
  return field.AsNumber();
}

Result<int64_t> JsonReader::Int(std::string_view key) const {
  PF_ASSIGN_OR_RETURN(JsonReader field, Field(key));
  return field.AsInt();
}

Result<bool> JsonReader::Bool(std::string_view key) const {
  PF_ASSIGN_OR_RETURN(JsonReader field, Field(key));
  return field.AsBool();
}

Result<std::vector<double>> JsonReader::Numbers(std::string_view key) const {
  return ReadArray<double>(*this, key, [](const JsonReader& r) { return r.AsNumber(); });
}

Result<std::vector<int64_t>> JsonReader::Ints(std::string_view key) const {
  return ReadArray<int64_t>(*this, key, [](const JsonReader& r) { return r.AsInt(); });
}

Result<std::vector<std::string>> JsonReader::Strings(std::string_view key) const {
  return ReadArray<std::string>(*this, key, [](const JsonReader& r) { return r.AsString(); });
}

Result<std::string> JsonReader::String(std::string_view key, std::string if_absent) const {
  return ReadOptional<std::string>(*this, key, std::move(if_absent),
                                   [](const JsonReader& r) { return r.AsString(); });
}

Result<double> JsonReader::Number(std::string_view key, double if_absent) const {
  return ReadOptional<double>(*this, key, if_absent,
                              [](const JsonReader& r) { return r.AsNumber(); });
}

Result<int64_t> JsonReader::Int(std::string_view key, int64_t if_absent) const {
  return ReadOptional<int64_t>(*this, key, if_absent,
                               [](const JsonReader& r) { return r.AsInt(); });
}

Result<bool> JsonReader::Bool(std::string_view key, bool if_absent) const {
  return ReadOptional<bool>(*this, key, if_absent, [](const JsonReader& r) { return r.AsBool(); });
}

Result<JsonReader> JsonReader::OptionalObject(std::string_view key) const {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (node_->is_object() && !node_->contains(key)) {
    return JsonReader(kEmpty, file_, fmt::format("{}.{}", path_, key));
  }
  PF_ASSIGN_OR_RETURN(JsonReader field, Field(key));
  if (field.node().is_null()) return JsonReader(kEmpty, file_, field.path());
  if (!field.node().is_object()) {
    return field.Error(fmt::format("expected an object, found {}", TypeName(field.node())));
  }
  return field;
}

}  // namespace preflight
