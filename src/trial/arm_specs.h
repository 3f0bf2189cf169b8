#pragma once
// A trial's arms as specs (name, data, schedule, keep), in arm order, and how the trial reads
// the pool and the targets to make and score them.

#include <string>
#include <vector>

#include "corpus/record.h"
#include "select/selector.h"
#include "trial/metrics.h"
#include "trial/trial_config.h"

namespace preflight::trial {

// The arms' specs in arm order (data trials: random, curated[, first]; keep trials: random,
// then one arm per fraction; schedule trials: baseline, then one arm per schedule).
std::vector<ArmSpec> TrialArmSpecs(const TrialConfig& config);

// The data files a trial makes: every data arm, or a schedule trial's one shared file.
std::vector<ArmSpec> TrialDataSpecs(const TrialConfig& config);

// A file-name-safe arm name for a schedule: "freeze:blocks=0-1@0.7" -> "freeze-blocks-0-1-at-0.7".
std::string ScheduleArmName(const std::string& schedule);

// How the trial reads the pool and its arms (the pool's lines: the pool's text field).
corpus::ReadOptions PoolReadOptions(const TrialConfig& config);
// How it reads T_sel and T_eval (the target's text field).
corpus::ReadOptions TargetReadOptions(const TrialConfig& config);

// The options of every selection the trial makes (selector and output aside): the pool's and
// the target's fields, the keep fraction, seed and threads.
select::SelectOptions SelectionOptionsOf(const TrialConfig& config);

}  // namespace preflight::trial
