#pragma once
// How the whole calibration procedure (signal choice, line, residuals) does on corpora it has
// never seen: leave-one-group-out (a group is a corpus), and what following its verdicts would
// have cost against always curating and always training on random data.
//
// The figures (SummarizeHeldOut), each over the held-out predictions:
//   clear cases      |net| >= 10% or never caught up; accuracy = right / decided among them
//   abstained        verdict "uncertain", of all targets
//   coverage         the actual net saving inside the 80% interval (never caught up: lo <= 0)
//   value            compute per target in runs of the random arm to its best loss L* (= 1):
//                    random 1; curate 1 - net, or 2 when it never caught up (its whole budget,
//                    then the random run; these pilots' random arms reach L* near the budget's
//                    end); following = the forecast's own cost (fraction_of_trial * 2 arms *
//                    seeds runs) + the arm its verdict chose (an abstention trains on random)
//   cost             the forecasts' cost as a fraction of their trials' compute

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "forecast/calibration.h"

namespace preflight::forecast {

// Each example predicted by Calibrate(examples outside its group, candidates), at its own
// forecast cost. Needs at least 2 groups and 3 examples outside every group.
Result<std::vector<Prediction>> LeaveOneGroupOut(const std::vector<Example>& examples,
                                                 const std::vector<std::string>& candidates);

nlohmann::json SummarizeHeldOut(const std::vector<Example>& examples,
                                const std::vector<Prediction>& predictions);

// SummarizeHeldOut of LeaveOneGroupOut with every candidate, then with each of `alone` imposed
// ("by_signal": the signals that lost, and by how much). Errors when the examples are too few.
Result<nlohmann::json> EvaluateHeldOut(const std::vector<Example>& examples,
                                       const std::vector<std::string>& candidates,
                                       const std::vector<std::string>& alone);

// The summary in a few lines of text.
std::string FormatHeldOut(const nlohmann::json& held_out);

}  // namespace preflight::forecast
