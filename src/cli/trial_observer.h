#pragma once
// The progress a trial, battery or demo shows on stderr: a bar per selection and per run, and
// one line per stage note (the forecast, each battery target).

#include <memory>
#include <string>

#include "app/trial_job.h"
#include "cli/progress.h"

namespace preflight::cli {

// Draws the job's progress on stderr; silent when quiet or in an MPI rank other than 0.
class TrialProgressBar {
 public:
  explicit TrialProgressBar(bool quiet);
  ~TrialProgressBar();  // the last bar finishes: "done in ..."
  app::TrialObserver Observer();
  // The job failed: the bar in progress ends as stopped, not done.
  void Stop();

 private:
  void OnProgress(const ProgressReport& p);
  void OnNote(const std::string& line);
  bool quiet_;
  std::string stage_;
  std::unique_ptr<Progress> bar_;
};

// "trial: 8 runs of 300 steps (tiny model); estimated 42s on this machine" on stderr.
Status PrintTrialEstimate(const trial::TrialConfig& config, const std::string& who);

}  // namespace preflight::cli
