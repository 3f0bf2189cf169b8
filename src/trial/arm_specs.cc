#include "trial/arm_specs.h"

#include <cctype>

#include "trial/run_training.h"

namespace preflight::trial {
namespace {

std::string ScheduleDataKind(const TrialConfig& c) {
  return c.schedule_data == "curated" ? c.selector : c.schedule_data;  // or "random", "pool"
}

}  // namespace

// A file-name-safe arm name for a schedule: "freeze:blocks=0-1@0.7" -> "freeze-blocks-0-1-at-0.7".
std::string ScheduleArmName(const std::string& schedule) {
  std::string out;
  for (char ch : schedule) {
    if (ch == '@') {
      out += "-at-";
    } else if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_') {
      out += ch;
    } else if (out.empty() || out.back() != '-') {
      out += '-';
    }
  }
  return out;
}

std::vector<ArmSpec> TrialDataSpecs(const TrialConfig& c) {
  if (!c.IsScheduleTrial()) return TrialArmSpecs(c);
  return {{kScheduleDataArm, ScheduleDataKind(c), ""}};
}

std::vector<ArmSpec> TrialArmSpecs(const TrialConfig& c) {
  if (c.IsScheduleTrial()) {
    std::vector<ArmSpec> arms = {{"baseline", ScheduleDataKind(c), ""}};
    for (const std::string& s : c.schedules) {
      arms.push_back({ScheduleArmName(s), ScheduleDataKind(c), s});
    }
    return arms;
  }
  if (c.IsKeepTrial()) {
    std::vector<ArmSpec> arms = {{"random", "random", "", 1.0}};
    for (double keep : c.keeps) arms.push_back({KeepArmName(keep), c.selector, "", keep});
    return arms;
  }
  std::vector<ArmSpec> arms = {{"random", "random", ""}, {"curated", c.selector, ""}};
  if (c.baseline == "first") arms.push_back({"first", "first", ""});
  return arms;
}

corpus::ReadOptions PoolReadOptions(const TrialConfig& c) {
  corpus::ReadOptions read;
  read.text_field = c.text_field;
  return read;
}

corpus::ReadOptions TargetReadOptions(const TrialConfig& c) {
  corpus::ReadOptions read;
  read.text_field = c.TargetTextField();
  return read;
}

select::SelectOptions SelectionOptionsOf(const TrialConfig& c) {
  select::SelectOptions o;
  o.keep = c.keep;
  o.seed = c.selection_seed;
  o.threads = c.threads;
  o.read = PoolReadOptions(c);
  o.id_field = c.id_field;
  o.target_text_field = c.TargetTextField();
  o.target_id_field = c.TargetIdField();
  return o;
}

}  // namespace preflight::trial
