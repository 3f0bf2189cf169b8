#include "cli/trial_observer.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "trial/step_estimate.h"

namespace preflight::cli {

TrialProgressBar::TrialProgressBar(bool quiet) : quiet_(quiet || !app::IsLeaderProcess()) {}

TrialProgressBar::~TrialProgressBar() {
  if (bar_) bar_->Finish();
}

void TrialProgressBar::Stop() {
  if (bar_) bar_->Stop();
  bar_.reset();
  stage_.clear();
}

app::TrialObserver TrialProgressBar::Observer() {
  return {[this](const ProgressReport& p) { OnProgress(p); },
          [this](const std::string& line) { OnNote(line); }};
}

namespace {

// What a run's bar shows after its fraction: the note, else its latest loss and throughput.
std::string RunNumbers(const ProgressReport& p) {
  if (!p.note.empty() || p.total == 0) return p.note;
  const std::string loss = std::isfinite(p.train_loss) ? fmt::format("loss {:.3f}", p.train_loss)
                           : std::isfinite(p.eval_bpb) ? fmt::format("eval {:.3f} bpb", p.eval_bpb)
                                                       : "";
  return fmt::format("{}{}{:.0f} tok/s", loss, loss.empty() ? "" : " | ", p.tokens_per_second);
}

}  // namespace

void TrialProgressBar::OnProgress(const ProgressReport& p) {
  if (quiet_) return;
  if (p.stage != stage_) {
    if (bar_) bar_->Finish();
    stage_ = p.stage;
    const std::string label =
        p.runs > 0 && p.run > 0 ? fmt::format("[{}/{}] {}", p.run, p.runs, p.stage) : p.stage;
    bar_ = std::make_unique<Progress>(label, static_cast<double>(std::max<uint64_t>(1, p.total)),
                                      p.unit);
  }
  bar_->Update(static_cast<double>(p.done), RunNumbers(p));
}

void TrialProgressBar::OnNote(const std::string& line) {
  if (quiet_) return;
  if (bar_) {
    bar_->Finish();
    bar_.reset();
    stage_.clear();
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

Status PrintTrialEstimate(const trial::TrialConfig& c, const std::string& who) {
  if (!app::IsLeaderProcess()) return Status::Ok();
  PF_ASSIGN_OR_RETURN(double seconds, trial::EstimateTrialSeconds(c));
  const int arms = c.IsScheduleTrial() ? 1 + static_cast<int>(c.schedules.size())
                                       : (c.baseline == "first" ? 3 : 2);
  std::fprintf(stderr, "%s: %d runs of %lld steps (%s model); estimated %s on this machine%s\n",
               who.c_str(), arms * c.seeds, static_cast<long long>(c.steps), c.model_name.c_str(),
               HumanDuration(seconds).c_str(),
               c.IsScheduleTrial() ? " (an upper bound: frozen steps cost less)" : "");
  return Status::Ok();
}

}  // namespace preflight::cli
