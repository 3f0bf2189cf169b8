// preflight's own curve format: one JSON object per eval.

#include <limits>
#include <nlohmann/json.hpp>

#include "trainer/curve_formats.h"

namespace preflight::trainer {
namespace {

using curve_text::LineError;

// An integer member, if present. False (with *error set) when present but not an integer.
bool OptionalInt(const nlohmann::json& obj, const char* key, std::optional<int64_t>* out,
                 std::string* error) {
  if (!obj.contains(key)) return true;
  const nlohmann::json& v = obj[key];
  if (!v.is_number_integer()) {
    *error = std::string("\"") + key + "\" must be an integer, found " + v.dump();
    return false;
  }
  *out = v.get<int64_t>();
  return true;
}

// Python's json module (a trainer's usual writer) writes a diverged loss as a bare NaN, Infinity
// or -Infinity, which JSON does not allow. The line with each such value (outside strings) read
// as null, and whether there was one, so that the loss is reported as the other formats report
// it: not a finite number.
std::string NonFiniteAsNull(std::string_view line, bool* found) {
  std::string out;
  out.reserve(line.size());
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (in_string) {
      if (ch == '\\' && i + 1 < line.size()) {
        out += ch;
        out += line[++i];
        continue;
      }
      in_string = ch != '"';
    } else if (ch == '"') {
      in_string = true;
    } else {
      bool matched = false;
      for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
        if (line.substr(i, word.size()) == word) {
          out += "null";
          i += word.size() - 1;
          *found = matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    out += ch;
  }
  return out;
}

Result<RawPoint> PointOf(const std::string& path, int line, const nlohmann::json& obj,
                         bool non_finite) {
  if (!obj.is_object()) return LineError(path, line, "expected a JSON object");
  RawPoint p;
  p.line = line;
  std::optional<int64_t> step;
  std::string error;
  if (!OptionalInt(obj, "step", &step, &error) || !OptionalInt(obj, "tokens", &p.tokens, &error) ||
      !OptionalInt(obj, "eval_tokens", &p.eval_tokens, &error)) {
    return LineError(path, line, error);
  }
  if (!step) return LineError(path, line, "no \"step\"");
  p.step = *step;
  const char* key = obj.contains("eval_bpb") ? "eval_bpb" : "eval_loss";
  if (!obj.contains(key)) return LineError(path, line, "no \"eval_bpb\" and no \"eval_loss\"");
  const nlohmann::json& v = obj[key];
  if (v.is_null() && non_finite) {  // a bare NaN or Infinity: ToEvalCurve names it
    p.value = std::numeric_limits<double>::quiet_NaN();
    p.bits_per_byte = std::string(key) == "eval_bpb";
    return p;
  }
  if (!v.is_number()) {
    return LineError(path, line,
                     std::string("\"") + key + "\" must be a number, found " + v.dump());
  }
  p.value = v.get<double>();
  p.bits_per_byte = std::string(key) == "eval_bpb";
  return p;
}

}  // namespace

Result<RawCurve> ReadJsonlCurve(const std::string& path, std::string_view text) {
  RawCurve curve{path, {}};
  int line = 0;
  for (std::string_view l : curve_text::Lines(text)) {
    ++line;
    if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
    nlohmann::json obj = nlohmann::json::parse(l, nullptr, false);
    bool non_finite = false;
    if (obj.is_discarded())
      obj = nlohmann::json::parse(NonFiniteAsNull(l, &non_finite), nullptr, false);
    if (obj.is_discarded()) return LineError(path, line, "not a JSON object (malformed JSON)");
    PF_ASSIGN_OR_RETURN(RawPoint p, PointOf(path, line, obj, non_finite));
    curve.points.push_back(std::move(p));
  }
  return curve;
}

}  // namespace preflight::trainer
