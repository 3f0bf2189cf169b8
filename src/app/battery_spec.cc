#include "app/battery_spec.h"

#include "base/file.h"
#include "base/json.h"
#include "base/sha256.h"

namespace preflight::app {
namespace {

Result<std::string> OptionalString(const JsonReader& r, const char* key) {
  if (!r.Has(key)) return std::string();
  return r.String(key);
}

Result<BatteryTarget> ReadTarget(const JsonReader& r, const std::string& root) {
  BatteryTarget t;
  PF_ASSIGN_OR_RETURN(t.name, r.String("name"));
  PF_ASSIGN_OR_RETURN(t.label, OptionalString(r, "label"));
  PF_ASSIGN_OR_RETURN(t.corpus, OptionalString(r, "corpus"));
  PF_ASSIGN_OR_RETURN(t.genre, OptionalString(r, "genre"));
  PF_ASSIGN_OR_RETURN(t.text_field, OptionalString(r, "text_field"));
  PF_ASSIGN_OR_RETURN(t.id_field, OptionalString(r, "id_field"));
  PF_ASSIGN_OR_RETURN(t.target_text_field, OptionalString(r, "target_text_field"));
  PF_ASSIGN_OR_RETURN(t.target_id_field, OptionalString(r, "target_id_field"));
  if (r.Has("absent")) {
    PF_ASSIGN_OR_RETURN(t.absent, r.Bool("absent"));
  }
  PF_ASSIGN_OR_RETURN(std::string pool, r.String("pool"));
  PF_ASSIGN_OR_RETURN(std::string select, r.String("target_select"));
  PF_ASSIGN_OR_RETURN(std::string eval, r.String("target_eval"));
  t.pool = JoinPath(root, pool);
  t.target_select = JoinPath(root, select);
  t.target_eval = JoinPath(root, eval);
  return t;
}

}  // namespace

Result<BatterySpec> ReadBatterySpec(const std::string& path) {
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  PF_ASSIGN_OR_RETURN(nlohmann::json json, ParseJson(text, path));
  JsonReader r(json, path);
  BatterySpec spec;
  spec.path = path;
  spec.sha256 = Sha256::Hex(text);
  spec.bytes = text.size();
  if (r.Has("name")) {
    PF_ASSIGN_OR_RETURN(spec.name, r.String("name"));
  }
  PF_ASSIGN_OR_RETURN(spec.default_target, OptionalString(r, "default_target"));
  PF_ASSIGN_OR_RETURN(JsonReader targets, r.Field("targets"));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> items, targets.Elements());
  if (items.empty()) return targets.Error("the battery has no targets");
  for (const JsonReader& item : items) {
    PF_ASSIGN_OR_RETURN(BatteryTarget t, ReadTarget(item, DirName(path)));
    for (const BatteryTarget& seen : spec.targets) {
      if (seen.name == t.name) return item.Error("target \"" + t.name + "\" is named twice");
    }
    spec.targets.push_back(std::move(t));
  }
  return spec;
}

Result<BatteryTarget> FindTarget(const BatterySpec& spec, std::string name) {
  if (name.empty()) name = spec.default_target.empty() ? spec.targets[0].name : spec.default_target;
  for (const BatteryTarget& t : spec.targets) {
    if (t.name == name) return t;
  }
  return Status::InvalidArgument("no target '" + name + "' in " + spec.path);
}

}  // namespace preflight::app
