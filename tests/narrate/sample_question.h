#pragma once
// The data-trial question the narrate and report tests ask.

#include "narrate/lab_record.h"

namespace preflight::narrate::testing {

inline LabQuestion NewsQuestion() {
  LabQuestion q;
  q.target = "brown:news";
  q.pool = "the bundled pool";
  q.selector = "dsir";
  q.model = "tiny";
  q.model_params = 100096;
  q.steps = 2000;
  q.seeds = 4;
  q.pool_bytes = 12'300'000;
  q.eval_bytes = 250'000;
  return q;
}

}  // namespace preflight::narrate::testing
