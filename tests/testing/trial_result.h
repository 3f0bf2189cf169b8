#pragma once
// A trial's result.json without what a run measures: the core-seconds of the work actually done
// and what is computed from them (the net saving, its interval, the lab record that quotes it),
// and the folder it was written to.
// Two trials that must agree (interrupted and not, one process and several) agree on the rest.

#include <nlohmann/json.hpp>

namespace preflight::testing {

inline nlohmann::json WithoutMeasuredCosts(const nlohmann::json& result) {
  nlohmann::json r = result;
  r.erase("core_seconds_per_step");
  r.erase("lab_record");
  r.erase("compute");
  r.erase("receipt");  // the trial receipt's hash covers its measured costs
  r.erase("out_dir");  // where the run was written, not what it found
  if (r.contains("forecast") && r["forecast"].is_object()) {
    // The verdict (and so whether it was right) weighs the expected saving against the
    // forecast's measured cost, which on a test's tiny trial can be most of it.
    for (const char* key :
         {"receipt", "core_seconds", "fraction_of_trial", "verdict", "correct"}) {
      r["forecast"].erase(key);
    }
  }
  for (auto& [name, arm] : r["arm_data"].items()) arm.erase("selection_core_seconds");
  auto strip = [](nlohmann::json& cmp) {
    cmp.erase("cost");
    cmp["compute_saved"].erase("net");
    cmp["compute_saved"].erase("ci95");
    for (auto& p : cmp["compute_saved"]["per_seed"]) p.erase("net");
  };
  strip(r);
  for (auto& cmp : r["comparisons"]) strip(cmp);
  return r;
}

}  // namespace preflight::testing
