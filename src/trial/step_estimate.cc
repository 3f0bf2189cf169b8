#include "trial/step_estimate.h"

#include <cmath>
#include <string>

#include "base/clock.h"
#include "engine/train.h"
#include "trial/arm_specs.h"
#include "trial/concurrent_runs.h"
#include "trial/trial_flags.h"

namespace preflight::trial {

Result<double> TimeTrainingStepSeconds(const engine::ModelConfig& model, int threads) {
  // Four steps on synthetic text; the first (allocation, warm-up) is left out.
  std::string doc;
  for (int i = 0; doc.size() < static_cast<size_t>(model.context) * model.batch * 4; ++i) {
    doc += "calibration text number " + std::to_string(i * 7919 % 1000) + ". ";
  }
  engine::TrainOptions t;
  t.model = model;
  t.steps = 4;
  t.eval_every = 1000;
  t.eval_max_windows = 1;
  t.threads = threads;
  double start = WallSeconds();
  double first_step_done = 0;
  auto r = engine::TrainOnDocuments(t, {doc}, {doc}, [&](const ProgressReport& p) {
    if (p.done == 1 && std::isnan(p.eval_bpb) && first_step_done == 0)
      first_step_done = WallSeconds();
  });
  PF_RETURN_IF_ERROR(r.status());
  return (WallSeconds() - (first_step_done > 0 ? first_step_done : start)) / 3.0;
}

double TrialSecondsFromStep(double seconds_per_step, int64_t steps, int arms, int seeds) {
  // Evals cost about a forward pass per eval window; selections a few seconds each.
  return seconds_per_step * static_cast<double>(steps) * arms * seeds * 1.15 + 5.0 * arms;
}

Result<double> EstimateTrialSeconds(const TrialConfig& c) {
  PF_RETURN_IF_ERROR(ValidateTrialFlags(c));
  // Runs side by side each train on one thread (trial/concurrent_runs.h).
  const int at_once = c.trainer.IsBuiltin() ? RunsAtOnce(c) : 1;
  PF_ASSIGN_OR_RETURN(double per_step,
                      TimeTrainingStepSeconds(c.model, at_once > 1 ? 1 : c.threads));
  const int arms = static_cast<int>(TrialArmSpecs(c).size());
  return TrialSecondsFromStep(per_step / at_once, c.steps, arms, c.seeds);
}

}  // namespace preflight::trial
