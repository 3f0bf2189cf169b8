#pragma once
// A hand-made trial for the report tests: three arms of four seeds on one eval schedule, the
// curated arm crossing L* between eval points, the "first" arm never catching up.

#include <cmath>
#include <string>

#include "base/number_format.h"
#include "narrate/lab_record.h"
#include "narrate/sample_question.h"
#include "report/trial_report.h"
#include "trial/metrics.h"
#include "trial/trial_inputs.h"

namespace preflight::report::testing {

inline ReportData SampleReport(const std::string& curated_name = "curated") {
  trial::TrialInputs in;
  trial::Arm random{{"random", "random", ""}, {1, 2, 3, 4}, {}, 0.4};
  trial::Arm curated{{curated_name, "dsir", ""}, {1, 2, 3, 4}, {}, 41.5};
  trial::Arm first{{"first", "first", ""}, {1, 2, 3, 4}, {}, 0.1};
  for (int s = 0; s < 4; ++s) {
    random.curves.push_back(trial::testing::SmoothCurve(2.10 + 0.01 * s, 1.0, 0.004 * s));
    curated.curves.push_back(trial::testing::SmoothCurve(1.98 + 0.015 * s, 1.15, 0.004 * s));
    first.curves.push_back(trial::testing::SmoothCurve(2.25 + 0.01 * s, 1.0, 0.003 * s));
  }
  in.arms = {random, curated, first};
  in.baseline = 0;
  in.core_seconds_per_step = 0.85;
  in.flops_per_step = 3.4e11;
  ReportData data;
  data.title = "dsir on brown:news";
  data.arms = in.arms;
  data.result = trial::ComputeTrial(in).value();
  data.lab_record = narrate::BuildLabRecord(narrate::testing::NewsQuestion(), data.result);
  data.facts = {{"model", "tiny (100,096 parameters)"}, {"target", "brown:news"}};
  return data;
}

}  // namespace preflight::report::testing
