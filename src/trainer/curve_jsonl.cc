// preflight's own curve format: one JSON object per eval.

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

Result<RawPoint> PointOf(const std::string& path, int line, const nlohmann::json& obj) {
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
    if (obj.is_discarded()) return LineError(path, line, "not a JSON object (malformed JSON)");
    PF_ASSIGN_OR_RETURN(RawPoint p, PointOf(path, line, obj));
    curve.points.push_back(std::move(p));
  }
  return curve;
}

}  // namespace preflight::trainer
