// The HF Trainer's trainer_state.json: "log_history" is a list of logged dicts; the ones holding
// "eval_loss" (nats per token) are the evals, at "step", with "num_input_tokens_seen" when the
// trainer was asked to count tokens (include_num_input_tokens_seen).

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "trainer/curve_formats.h"

namespace preflight::trainer {

Result<RawCurve> ReadHfCurve(const std::string& path, std::string_view text) {
  PF_ASSIGN_OR_RETURN(nlohmann::json doc, ParseJson(text, path));
  JsonReader root(doc, path);
  PF_ASSIGN_OR_RETURN(JsonReader history, root.Field("log_history"));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> entries, history.Elements());
  RawCurve curve{path, {}};
  for (const JsonReader& entry : entries) {
    if (!entry.node().is_object()) return entry.Error("expected an object");
    if (!entry.Has("eval_loss")) continue;
    RawPoint p;
    p.where = entry.path();
    PF_ASSIGN_OR_RETURN(p.step, entry.Int("step"));
    PF_ASSIGN_OR_RETURN(p.value, entry.Number("eval_loss"));
    if (entry.Has("num_input_tokens_seen")) {
      PF_ASSIGN_OR_RETURN(int64_t tokens, entry.Int("num_input_tokens_seen"));
      p.tokens = tokens;
    }
    curve.points.push_back(std::move(p));
  }
  return curve;
}

}  // namespace preflight::trainer
