#pragma once
// A schedule trial's words: the verdict's sentence (the best fixed step beside the adaptive
// trigger) and the lab record, from trial/schedule_metrics.h's numbers.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trial/schedule_metrics.h"

namespace preflight::narrate {

struct ScheduleQuestion {
  std::string target;  // the held-out target's name
  std::string data;    // what both arms trained on, e.g. "a random quarter of the pool (9.8 MB)"
  std::string model;
  int64_t model_params = 0;
  int64_t steps = 0;
  int seeds = 0;
  int64_t eval_bytes = 0;
};

// Fixed before training: what would prove each schedule wrong.
std::string ScheduleFalsifier(const ScheduleQuestion& question,
                              const std::vector<trial::ArmSpec>& arms);

// The verdict in one plain paragraph ("" unless both a fixed and an adaptive arm were tried): what
// each achieved, net of the trigger's cost, who won, and the selection-on-the-eval-set warning
// when the fixed step was the best of several. What result.verdict.text should hold.
std::string ScheduleVerdictText(const trial::ScheduleTrialResult& result);

// {summary, question, falsifier, finding, does_not_show[...]}, like BuildLabRecord.
nlohmann::json BuildScheduleLabRecord(const ScheduleQuestion& question,
                                      const trial::ScheduleTrialResult& result);

}  // namespace preflight::narrate
