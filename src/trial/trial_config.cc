#include "trial/trial_config.h"

#include <fmt/format.h>

#include "base/json.h"

namespace preflight::trial {

nlohmann::json TrialConfig::ToJson() const {
  nlohmann::json j = PlanJson();
  j["target_eval"] = target_eval;
  j["target_name"] = target_name;
  j["baseline"] = baseline;
  j["eval_every"] = eval_every;
  j["eval_max_windows"] = eval_max_windows;
  j["forecast"] = forecast_hash;
  // Schedule trials and launched trainers add their keys; other trials' fingerprints stay as
  // they were.
  if (IsScheduleTrial()) {
    j["schedules"] = schedules;
    j["schedule_data"] = schedule_data;
  }
  if (!trainer.IsBuiltin()) j["trainer"] = trainer.ToJson();
  if (IsKeepTrial()) j["keeps"] = keeps;
  return j;
}

Result<TrialConfig> TrialConfigFromJson(const nlohmann::json& json, const std::string& file) {
  JsonReader r(json, file, "$.config");
  TrialConfig c;
  PF_ASSIGN_OR_RETURN(c.pool, r.Strings("pool"));
  PF_ASSIGN_OR_RETURN(c.target_select, r.String("target_select"));
  PF_ASSIGN_OR_RETURN(c.target_eval, r.String("target_eval"));
  PF_ASSIGN_OR_RETURN(c.target_name, r.String("target_name"));
  PF_ASSIGN_OR_RETURN(c.selector, r.String("selector"));
  PF_ASSIGN_OR_RETURN(c.keep, r.Number("keep"));
  PF_ASSIGN_OR_RETURN(int64_t selection_seed, r.Int("selection_seed"));
  c.selection_seed = static_cast<uint64_t>(selection_seed);
  PF_ASSIGN_OR_RETURN(c.baseline, r.String("baseline"));
  PF_ASSIGN_OR_RETURN(int64_t seeds, r.Int("seeds"));
  c.seeds = static_cast<int>(seeds);
  PF_ASSIGN_OR_RETURN(JsonReader model, r.Field("model"));
  PF_ASSIGN_OR_RETURN(c.model_name, model.String("name"));
  for (auto [key, field] : {std::pair<const char*, int*>{"layers", &c.model.layers},
                            {"d_model", &c.model.d_model},
                            {"heads", &c.model.heads},
                            {"context", &c.model.context},
                            {"batch", &c.model.batch}}) {
    PF_ASSIGN_OR_RETURN(int64_t v, model.Int(key));
    *field = static_cast<int>(v);
  }
  PF_ASSIGN_OR_RETURN(c.steps, r.Int("steps"));
  PF_ASSIGN_OR_RETURN(c.eval_every, r.Int("eval_every"));
  PF_ASSIGN_OR_RETURN(c.eval_max_windows, r.Int("eval_max_windows"));
  PF_ASSIGN_OR_RETURN(double lr, r.Number("lr"));
  c.lr = static_cast<float>(lr);
  PF_ASSIGN_OR_RETURN(int64_t threads, r.Int("threads"));
  c.threads = static_cast<int>(threads);
  PF_ASSIGN_OR_RETURN(c.forecast_hash, r.String("forecast"));
  if (r.Has("text_field")) {
    PF_ASSIGN_OR_RETURN(c.text_field, r.String("text_field"));
  }
  if (r.Has("id_field")) {
    PF_ASSIGN_OR_RETURN(c.id_field, r.String("id_field"));
  }
  if (r.Has("target_text_field")) {
    PF_ASSIGN_OR_RETURN(c.target_text_field, r.String("target_text_field"));
  }
  if (r.Has("target_id_field")) {
    PF_ASSIGN_OR_RETURN(c.target_id_field, r.String("target_id_field"));
  }
  if (r.Has("schedules")) {
    PF_ASSIGN_OR_RETURN(c.schedules, r.Strings("schedules"));
    PF_ASSIGN_OR_RETURN(c.schedule_data, r.String("schedule_data"));
  }
  if (r.Has("trainer")) {
    PF_ASSIGN_OR_RETURN(JsonReader trainer, r.Field("trainer"));
    PF_ASSIGN_OR_RETURN(c.trainer, trainer::TrainerSpecFromJson(trainer));
  }
  if (r.Has("keeps")) {
    PF_ASSIGN_OR_RETURN(c.keeps, r.Numbers("keeps"));
  }
  return c;
}

std::string KeepArmName(double keep) { return fmt::format("keep-{}", keep); }

}  // namespace preflight::trial
