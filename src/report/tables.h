#pragma once
// The report's tables: section "numbers" with table#numbers and table#per-seed, for a data trial
// (steps, core-seconds) or a schedule trial (cumulative FLOPs; then also section#schedules, the
// best fixed step beside the adaptive trigger). Every string is HTML-escaped.

#include <string>

#include "trial/metrics.h"
#include "trial/schedule_metrics.h"

namespace preflight::report {

std::string NumbersTable(const trial::TrialResult& result);
std::string ScheduleTables(const trial::ScheduleTrialResult& result);

}  // namespace preflight::report
