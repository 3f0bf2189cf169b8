#pragma once
// Reading typed values out of JSON that came from a file, without exceptions. JSON is for the
// edges (manifests, receipts, run folders, specs); code inside works on typed structs, and this
// is the one way in: every failure is a Corruption Status naming the file and the JSON path,
// e.g. "out/trial.json: $.arms[1].seeds[0]: expected an integer, found a string".
// A JsonReader refers to a node it does not own: keep the parsed document alive while reading.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight {

// Parses `text`; a syntax error is Corruption naming `source` and the byte offset.
Result<nlohmann::json> ParseJson(std::string_view text, const std::string& source);
// Reads and parses a whole file: NotFound if it is missing, Corruption if it is not JSON.
Result<nlohmann::json> ReadJsonFile(const std::string& path);

// The node at a path of object keys, or a null node when any key is missing (for readers of
// receipts that show what is there, not validate it).
const nlohmann::json& JsonAt(const nlohmann::json& j, std::initializer_list<const char*> path);

class JsonReader {
 public:
  JsonReader(const nlohmann::json& node, std::string file, std::string path = "$");

  const nlohmann::json& node() const { return *node_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  bool Has(std::string_view key) const;

  // A required member (the node must be an object) or array element.
  Result<JsonReader> Field(std::string_view key) const;
  Result<JsonReader> At(size_t index) const;
  // The node's elements; Corruption unless it is an array.
  Result<std::vector<JsonReader>> Elements() const;

  // This node as a value.
  Result<std::string> AsString() const;
  Result<double> AsNumber() const;  // null reads as NaN (how non-finite numbers are written)
  Result<int64_t> AsInt() const;
  Result<bool> AsBool() const;

  // Shorthands for a required member.
  Result<std::string> String(std::string_view key) const;
  Result<double> Number(std::string_view key) const;
  Result<int64_t> Int(std::string_view key) const;
  Result<bool> Bool(std::string_view key) const;
  Result<std::vector<double>> Numbers(std::string_view key) const;
  Result<std::vector<int64_t>> Ints(std::string_view key) const;
  Result<std::vector<std::string>> Strings(std::string_view key) const;

  // An optional member: `if_absent` when the node (an object) lacks it. Only absence gives the
  // default: a member that is there is read as the required form reads it (so null is NaN for a
  // number and an error for the others), and a node that is no object is Corruption.
  Result<std::string> String(std::string_view key, std::string if_absent) const;
  Result<double> Number(std::string_view key, double if_absent) const;
  Result<int64_t> Int(std::string_view key, int64_t if_absent) const;
  Result<bool> Bool(std::string_view key, bool if_absent) const;
  // An optional object member: a missing or null one (how receipts write a part they lack, e.g.
  // "regime": null) reads as {}, whose members take their defaults; Corruption when it is there
  // and neither an object nor null.
  Result<JsonReader> OptionalObject(std::string_view key) const;

  // Corruption "<file>: <path>: <what>".
  Status Error(std::string_view what) const;

 private:
  const nlohmann::json* node_;
  std::string file_;
  std::string path_;
};

}  // namespace preflight
