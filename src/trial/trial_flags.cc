#include "trial/trial_flags.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/schedule.h"
#include "trial/arm_specs.h"

namespace preflight::trial {
namespace {

Status ValidateKeeps(const TrialConfig& c) {
  if (c.IsScheduleTrial() || !c.baseline.empty()) {
    return Status::InvalidArgument(
        "several --keep fractions make their own baseline (the whole pool, random order): not "
        "with schedule arms or --baseline");
  }
  if (c.keeps.size() < 2) {
    return Status::InvalidArgument("a keep trial needs two or more --keep fractions");
  }
  if (c.keep != 1) {
    return Status::InvalidArgument("a keep trial's baseline keeps the whole pool (keep 1)");
  }
  for (size_t i = 0; i < c.keeps.size(); ++i) {
    const double k = c.keeps[i];
    if (!(k > 0 && k < 1)) {
      return Status::InvalidArgument(
          fmt::format("--keep: {} is not in (0, 1); the baseline already keeps the whole pool", k));
    }
    if (i > 0 && !(k > c.keeps[i - 1])) {
      return Status::InvalidArgument(fmt::format(
          "--keep: give each fraction once, in increasing order ({} after {})", k, c.keeps[i - 1]));
    }
  }
  return Status::Ok();
}

Status ValidateSchedules(const TrialConfig& c) {
  if (c.schedule_data != "random" && c.schedule_data != "curated" && c.schedule_data != "pool") {
    return Status::InvalidArgument("--data must be random, curated or pool, not '" +
                                   c.schedule_data + "'");
  }
  if (c.schedule_data == "pool" && c.pool.size() != 1) {
    return Status::InvalidArgument(
        "--data pool trains on the pool file as it is: give one --pool file (or use --data "
        "random)");
  }
  if (c.schedule_data == "curated" && (c.selector == "random" || c.selector == "first")) {
    return Status::InvalidArgument("--data curated needs a selector (dsir or classifier)");
  }
  if (!c.baseline.empty()) {
    return Status::InvalidArgument("--baseline first is for data trials, not schedule trials");
  }
  std::vector<std::string> names;
  for (const std::string& spec : c.schedules) {
    PF_ASSIGN_OR_RETURN(engine::Schedule s, engine::ParseSchedule(spec, c.model.layers));
    if (s.empty()) return Status::InvalidArgument("a schedule arm needs a schedule, not 'none'");
    if (s.ToString() != spec) {
      return Status::InvalidArgument("schedule '" + spec + "' is not in canonical form; write '" +
                                     s.ToString() + "'");
    }
    const std::string name = ScheduleArmName(spec);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return Status::InvalidArgument("schedule '" + spec + "' is given twice");
    }
    names.push_back(name);
  }
  return Status::Ok();
}

}  // namespace

Status ValidateTrialFlags(const TrialConfig& c) {
  if (c.pool.empty()) return Status::InvalidArgument("--pool is required");
  if (c.target_select.empty()) return Status::InvalidArgument("--target-select is required");
  if (c.target_eval.empty()) return Status::InvalidArgument("--target-eval is required");
  if (c.out_dir.empty()) return Status::InvalidArgument("--out is required");
  if (c.IsScheduleTrial()) {
    PF_RETURN_IF_ERROR(ValidateSchedules(c));
  } else if (c.selector == "random") {
    return Status::InvalidArgument(
        "--selector random would compare random data with itself; choose dsir, classifier or "
        "first");
  }
  if (c.IsKeepTrial()) PF_RETURN_IF_ERROR(ValidateKeeps(c));
  if (c.baseline != "" && c.baseline != "first") {
    return Status::InvalidArgument("--baseline must be 'first' (or absent), not '" + c.baseline +
                                   "'");
  }
  PF_RETURN_IF_ERROR(trainer::ValidateTrainerSpec(c.trainer));
  if (c.IsScheduleTrial() && !c.trainer.IsBuiltin()) {
    return Status::InvalidArgument(
        "schedule arms (--arm-b, --sweep) change the engine's training and run on --trainer "
        "builtin only, not --trainer " +
        c.trainer.kind);
  }
  if (c.seeds < 1) return Status::InvalidArgument("--seeds must be at least 1");
  if (c.runs_at_once < 0) {
    return Status::InvalidArgument("--runs-at-once must be at least 1 (or 0: auto)");
  }
  if (c.steps < 1) return Status::InvalidArgument("--steps must be at least 1");
  if (!(c.keep > 0 && c.keep <= 1)) {
    return Status::InvalidArgument(
        fmt::format("--keep must be a number in (0, 1], got {}", c.keep));
  }
  return engine::ValidateModel(c.model);
}

}  // namespace preflight::trial
