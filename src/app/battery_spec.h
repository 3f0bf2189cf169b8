#pragma once
// A battery spec (doc/trial.md, "Many targets"): a JSON file naming targets, each with its pool,
// its selectable part and its held-out part, paths relative to the spec's folder.
//   {"name": "brown", "default_target": "cj",
//    "targets": [{"name": "cj", "label": "learned", "genre": "cj", "absent": false,
//                 "pool": "pools/cj.jsonl", "target_select": "...", "target_eval": "...",
//                 "text_field": "text", "id_field": "id",
//                 "target_text_field": "text", "target_id_field": "id"}]}   (fields optional)

#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::app {

struct BatteryTarget {
  std::string name, label, genre;
  std::string corpus;  // the corpus it comes from ("" = its own): calibrating leaves corpora out
  bool absent = false;
  std::string pool, target_select, target_eval;  // resolved against the spec's folder
  // The pool's fields (and the target files', unless given apart below); "" = the battery's
  // (--text-field, --id-field; default text, id).
  std::string text_field, id_field;
  // The target files' (target_select, target_eval); "" = the battery's --target-text-field,
  // --target-id-field, else this target's pool fields.
  std::string target_text_field, target_id_field;
};

struct BatterySpec {
  std::string path;
  std::string name = "battery";
  std::string default_target;
  std::vector<BatteryTarget> targets;
  std::string sha256;  // of the spec file's bytes
  uint64_t bytes = 0;
};

// Reads and checks a spec: Corruption naming the file and JSON path for a damaged one,
// NotFound for a missing file.
Result<BatterySpec> ReadBatterySpec(const std::string& path);

// The spec's target `name` (the default target when empty).
Result<BatteryTarget> FindTarget(const BatterySpec& spec, std::string name);

}  // namespace preflight::app
