#include "cost/pilot_saving.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json.h"
#include "base/number_format.h"
#include "ledger/receipt.h"

namespace preflight::cost {
namespace {

// The member `key` as a number when it is there; Corruption (naming the path) when it is there
// but is not a number.
Status OptionalNumber(const JsonReader& r, const char* key, std::optional<double>* out) {
  if (!r.Has(key) || out->has_value()) return Status::Ok();
  PF_ASSIGN_OR_RETURN(double value, r.Number(key));
  *out = value;
  return Status::Ok();
}

// The scale from the trial's result object (`result`) and, for a receipt, its config.
Status ReadScale(const JsonReader& result, const std::optional<JsonReader>& config,
                 PilotScale* scale) {
  if (result.Has("model") && result.node()["model"].is_object()) {
    PF_ASSIGN_OR_RETURN(JsonReader model, result.Field("model"));
    if (model.Has("name")) {
      PF_ASSIGN_OR_RETURN(scale->model, model.String("name"));
    }
    PF_RETURN_IF_ERROR(OptionalNumber(model, "params", &scale->params));
  } else if (result.Has("model")) {
    PF_ASSIGN_OR_RETURN(scale->model, result.String("model"));
  }
  PF_RETURN_IF_ERROR(OptionalNumber(result, "params", &scale->params));
  PF_RETURN_IF_ERROR(OptionalNumber(result, "budget_steps", &scale->steps));
  PF_RETURN_IF_ERROR(OptionalNumber(result, "steps", &scale->steps));
  PF_RETURN_IF_ERROR(OptionalNumber(result, "tokens", &scale->tokens));
  if (!scale->tokens && result.Has("compute")) {
    PF_ASSIGN_OR_RETURN(JsonReader compute, result.Field("compute"));
    if (compute.Has("runs")) {
      PF_ASSIGN_OR_RETURN(JsonReader runs, compute.Field("runs"));
      PF_ASSIGN_OR_RETURN(std::vector<JsonReader> items, runs.Elements());
      if (!items.empty()) PF_RETURN_IF_ERROR(OptionalNumber(items[0], "tokens", &scale->tokens));
    }
  }
  if (config) {
    if (!scale->model && config->Has("model") && config->node()["model"].is_string()) {
      PF_ASSIGN_OR_RETURN(scale->model, config->String("model"));
    }
    PF_RETURN_IF_ERROR(OptionalNumber(*config, "steps", &scale->steps));
  }
  return Status::Ok();
}

Status ReadRegime(const JsonReader& result, PilotRegime* regime) {
  if (!result.Has("regime")) return Status::Ok();
  PF_ASSIGN_OR_RETURN(JsonReader node, result.Field("regime"));
  if (node.Has("informative")) {
    PF_ASSIGN_OR_RETURN(bool informative, node.Bool("informative"));
    regime->informative = informative;
  }
  return OptionalNumber(node, "margin", &regime->margin);
}

Status ReadFraction(const JsonReader& result, MeasuredSaving* s) {
  if (!result.Has("compute_saved")) {
    return result.Error(
        "missing \"compute_saved\" (expected a trial's result.json or trial receipt)");
  }
  PF_ASSIGN_OR_RETURN(JsonReader saved, result.Field("compute_saved"));
  PF_ASSIGN_OR_RETURN(JsonReader net, saved.Field("net"));
  if (net.node().is_null()) {
    bool never = result.Has("caught_up") && result.node()["caught_up"].is_boolean() &&
                 !result.node()["caught_up"].get<bool>();
    return Status::InvalidArgument(
        result.file() + (never ? ": the curated arm never caught up, so there is no saving to "
                                 "project"
                               : ": " + net.path() + " is null: no saving to project"));
  }
  PF_ASSIGN_OR_RETURN(s->fraction, net.AsNumber());
  PF_RETURN_IF_ERROR(ValidateSaving(s->fraction));
  if (saved.Has("ci95")) {
    PF_ASSIGN_OR_RETURN(std::vector<double> ci, saved.Numbers("ci95"));
    if (ci.size() != 2) {
      return saved.Error("\"ci95\" must be [low, high], found " + std::to_string(ci.size()) +
                         " numbers");
    }
    s->ci_low = ci[0];
    s->ci_high = ci[1];
  }
  return Status::Ok();
}

// Says what was measured, from whatever the receipt records of it.
std::string Detail(const nlohmann::json& config) {
  std::string detail;
  for (const char* key : {"selector", "model", "steps", "seeds", "keep"}) {
    if (!config.contains(key)) continue;
    const nlohmann::json& v = config[key];
    if (!detail.empty()) detail += ", ";
    detail += std::string(key) + " " + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return detail;
}

}  // namespace

Result<PilotSaving> ReadPilotSaving(const std::string& path) {
  PF_ASSIGN_OR_RETURN(nlohmann::json doc, ReadJsonFile(path));
  JsonReader root(doc, path);
  if (!doc.is_object()) {
    return root.Error("expected a JSON object (a trial's result.json or trial receipt)");
  }
  if (root.Has("kind")) {
    PF_ASSIGN_OR_RETURN(std::string kind, root.String("kind"));
    if (ledger::KindFromName(kind) != ledger::ReceiptKind::kTrial) {
      return Status::InvalidArgument(path + ": receipt kind is '" + kind +
                                     "', not 'trial': only a trial measures compute saved");
    }
  }
  // A ledger receipt keeps the trial's output under "result"; result.json and `preflight trial
  // --json` hold the same object at the top level. Both are accepted.
  JsonReader result = root;
  if (root.Has("result")) {
    PF_ASSIGN_OR_RETURN(result, root.Field("result"));
  }
  std::optional<JsonReader> config;
  if (root.Has("config") && doc["config"].is_object()) {
    PF_ASSIGN_OR_RETURN(config, root.Field("config"));
  }
  PilotSaving p;
  p.saving.source = path;
  PF_RETURN_IF_ERROR(ReadFraction(result, &p.saving));
  p.saving.detail = Detail(config ? config->node() : doc);
  PF_RETURN_IF_ERROR(ReadScale(result, config, &p.scale));
  PF_RETURN_IF_ERROR(ReadRegime(result, &p.regime));
  return p;
}

std::string DollarIntervalWithheld(const PilotRegime& regime) {
  if (!regime.informative) return "no dollar interval: the pilot has no regime check";
  if (!*regime.informative) {
    return "no dollar interval: the pilot's regime check calls it uninformative";
  }
  return "";
}

std::string DescribePilotScale(const PilotScale& s) {
  std::string facts;
  auto add = [&facts](const std::string& fact) { facts += (facts.empty() ? "" : ", ") + fact; };
  if (s.params) add(FormatCount(*s.params) + " params");
  if (s.steps) add(FormatSteps(*s.steps) + " steps");
  if (s.tokens) add(FormatCount(*s.tokens) + " tokens per run");
  std::string name = s.model ? "the " + *s.model + " pilot" : "the pilot";
  if (!s.model && facts.empty()) return "the pilot (scale not recorded)";
  return facts.empty() ? name : name + " (" + facts + ")";
}

std::string DescribeRegime(const PilotRegime& r) {
  if (!r.informative) return "not checked (no regime in the file)";
  std::string margin =
      r.margin ? " (margin " + FormatG(*r.margin, 3) + " bits/byte over byte n-grams)" : "";
  return (*r.informative ? "informative" : "uninformative") + margin;
}

double RoundSignificant(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x;
  int shift = digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(x))));
  // Divide or multiply by an exact power of ten, so that 1.2e6 comes back as exactly 1200000.
  if (shift >= 0) {
    double scale = std::pow(10.0, shift);
    return std::round(x * scale) / scale;
  }
  double scale = std::pow(10.0, -shift);
  return std::round(x / scale) * scale;
}

}  // namespace preflight::cost
