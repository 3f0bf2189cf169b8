#pragma once
// Short terminal summaries of a trial's numbers, printed under the lab record's summary line.
// Every interval in them is IntervalSentence's.

#include <string>

#include "trial/metrics.h"
#include "trial/schedule_metrics.h"

namespace preflight::narrate {

// The primary comparison's numbers, then one line per further arm:
//   "  L* (best random-arm loss)  2.0000 bits/byte at step 400\n"
//   "  curated arm reaches it at  step 271.4\n"
//   "  compute saved, gross       32.1%\n"
//   "  compute saved, net         30.0%   (95% interval 12.0% to 40.1%; selection cost charged)\n"
//   "  first vs random            never caught up net\n"
// `charged` names the costs the net saving pays for, e.g. "selection cost". "" without a
// comparison.
std::string TrialNumbersText(const trial::TrialResult& result, const std::string& charged);

// A row per schedule arm (frozen at, FLOPs spent against the baseline, t_C, net savings on FLOPs,
// core-seconds and wall time, loss at equal FLOPs) under a heading row, then the baseline's L*.
std::string ScheduleNumbersText(const trial::ScheduleTrialResult& result);

}  // namespace preflight::narrate
