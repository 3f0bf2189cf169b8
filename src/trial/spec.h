#pragma once
// What a trial will select and train, as far as a forecast of it needs to know: the pool and the
// target's selectable part with their fields, the selection, and the pilot (model, steps, seeds,
// learning rate, threads). The trial's config (runner.h) and the forecast's config
// (forecast/forecast.h) are both this spec and more, so the trial hands the forecast its spec as
// one value. It holds no held-out file: the forecast never sees T_eval.
// Header only: plain data, two accessors and its JSON (forecast/ uses it without linking the
// trial).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/config.h"

namespace preflight::trial {

struct TrialSpec {
  std::vector<std::string> pool;
  std::string target_select;  // T_sel: what the selector (and the forecast) may read
  // The documents' fields: the pool's (--text-field, --id-field; the arms are the pool's lines,
  // so they are read with these too), and the target files' (--target-text-field,
  // --target-id-field; "" = the pool's).
  std::string text_field = "text";
  std::string id_field = "id";
  std::string target_text_field, target_id_field;
  std::string selector = "dsir";
  double keep = 0.25;
  uint64_t selection_seed = 1;
  std::string model_name = "tiny";
  engine::ModelConfig model;
  int64_t steps = 300;
  int seeds = 4;  // runs per arm, seeds 1..seeds
  float lr = 1e-3f;
  int threads = 2;

  // The target files' fields, resolved.
  const std::string& TargetTextField() const {
    return target_text_field.empty() ? text_field : target_text_field;
  }
  const std::string& TargetIdField() const {
    return target_id_field.empty() ? id_field : target_id_field;
  }

  // The spec's keys of a trial's or a forecast's config (their fingerprints): the fields only
  // where they are not the defaults, so that a field added with a default leaves the
  // fingerprint of a spec at that default unchanged (its recorded trials still match).
  nlohmann::json PlanJson() const {
    nlohmann::json j = {{"pool", pool},
                        {"target_select", target_select},
                        {"selector", selector},
                        {"keep", keep},
                        {"selection_seed", selection_seed},
                        {"model", engine::ModelToJson(model_name, model)},
                        {"steps", steps},
                        {"seeds", seeds},
                        {"lr", lr},
                        {"threads", threads}};
    if (text_field != "text") j["text_field"] = text_field;
    if (id_field != "id") j["id_field"] = id_field;
    if (TargetTextField() != text_field) j["target_text_field"] = TargetTextField();
    if (TargetIdField() != id_field) j["target_id_field"] = TargetIdField();
    return j;
  }
};

}  // namespace preflight::trial
