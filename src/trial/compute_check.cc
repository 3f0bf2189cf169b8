#include "trial/compute_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace preflight::trial {
namespace {

bool SameFlopsPerStep(double a, double reference) {
  const double scale = std::max(std::abs(reference), std::abs(a));
  return std::isfinite(a) && std::abs(a - reference) <= 1e-9 * scale;
}

Status Refuse(const std::string& why, const std::vector<std::string>& problems) {
  if (problems.empty()) return Status::Ok();
  std::string msg = why;
  for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  return Status::InvalidArgument(msg);
}

// The rule both kinds of trial share: one model and one batch shape.
template <typename Run>
void CheckShape(const Run& run, const Run& ref, const char* per_step, const char* note,
                std::vector<std::string>* problems) {
  if (!SameFlopsPerStep(run.flops_per_step, ref.flops_per_step)) {
    problems->push_back(fmt::format("run '{}' has {:g} FLOPs{} but run '{}' has {:g}{}", run.run,
                                    run.flops_per_step, per_step, ref.run, ref.flops_per_step,
                                    note));
  }
  if (run.tokens_per_step != ref.tokens_per_step) {
    problems->push_back(fmt::format("run '{}' has {} tokens/step but run '{}' has {}", run.run,
                                    run.tokens_per_step, ref.run, ref.tokens_per_step));
  }
}

}  // namespace

Status CheckComputeMatched(const std::vector<RunCompute>& runs) {
  if (runs.empty()) return Status::InvalidArgument("compute check: no runs recorded");
  const RunCompute& ref = runs[0];
  std::vector<std::string> problems;
  for (const RunCompute& run : runs) {
    CheckShape(run, ref, "/step", "", &problems);
    if (run.steps != ref.steps) {
      problems.push_back(fmt::format("run '{}' trained {} steps but run '{}' trained {}", run.run,
                                     run.steps, ref.run, ref.steps));
    }
  }
  return Refuse(
      "the arms are not compute-matched, so no saving is reported (every run must use the same "
      "model, batch, context and steps): ",
      problems);
}

Status CheckSameEvalSteps(const std::vector<RunEvalSteps>& runs) {
  if (runs.empty()) return Status::Ok();
  const RunEvalSteps& ref = runs[0];
  std::vector<std::string> problems;
  for (const RunEvalSteps& run : runs) {
    if (run.steps == ref.steps) continue;
    size_t i = 0;
    while (i < run.steps.size() && i < ref.steps.size() && run.steps[i] == ref.steps[i]) ++i;
    const auto at = [&](const std::vector<int64_t>& steps) {
      return i < steps.size() ? fmt::format("step {}", steps[i]) : std::string("its end");
    };
    problems.push_back(fmt::format(
        "run '{}' has {} eval points but run '{}' has {}; eval {} is at {} in '{}' and at {} in "
        "'{}'",
        run.run, run.steps.size(), ref.run, ref.steps.size(), i + 1, at(run.steps), run.run,
        at(ref.steps), ref.run));
  }
  return Refuse(
      "the runs were not evaluated at the same steps, so their curves cannot be compared (every "
      "run must evaluate at the same steps): ",
      problems);
}

Status CheckScheduleCompute(const std::vector<ScheduleRunCompute>& runs, int64_t budget) {
  if (runs.empty()) return Status::InvalidArgument("compute check: no runs recorded");
  const ScheduleRunCompute& ref = runs[0];
  double baseline_flops = 0;
  int baselines = 0;
  for (const auto& r : runs) {
    if (r.baseline) {
      baseline_flops = std::max(baseline_flops, r.flops);
      ++baselines;
    }
  }
  std::vector<std::string> problems;
  if (baselines == 0) problems.push_back("no baseline run");
  for (const auto& r : runs) {
    CheckShape(r, ref, " per full step", " (a different model)", &problems);
    if (r.baseline ? r.steps != budget : (r.steps < 1 || r.steps > budget)) {
      problems.push_back(
          fmt::format("run '{}' trained {} steps against a budget of {}", r.run, r.steps, budget));
    }
    if (!r.baseline && r.flops > baseline_flops * (1 + 1e-9)) {
      problems.push_back(
          fmt::format("schedule run '{}' spent {:g} FLOPs, more than the baseline's {:g}", r.run,
                      r.flops, baseline_flops));
    }
  }
  return Refuse(
      "the schedule trial's runs are not comparable, so no saving is reported (same model, data "
      "and step budget; a schedule may spend less, never more): ",
      problems);
}

}  // namespace preflight::trial
