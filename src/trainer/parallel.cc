#include "trainer/parallel.h"

#include <chrono>
#include <thread>
#include <utility>

#include "base/clock.h"

namespace preflight::trainer {
namespace {

struct InFlight {
  size_t index = 0;
  RunningLaunch launch;
};

class Executor {
 public:
  Executor(const CmdTrainer& trainer, const std::vector<RunRequest>& requests, int parallel,
           const LaunchCallbacks& callbacks)
      : trainer_(trainer), requests_(requests), parallel_(parallel), callbacks_(callbacks) {}

  Status Run() {
    while (true) {
      StartWhatFits();
      if (running_.empty()) break;
      if (!PollAll()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      Report();
    }
    return failure_;
  }

 private:
  void Fail(const Status& st) {
    if (failure_.ok() && !st.ok()) failure_ = st;
  }

  void Done(size_t index, const RunResult& result) {
    if (callbacks_.on_done) Fail(callbacks_.on_done(index, result));
  }

  void StartWhatFits() {
    while (failure_.ok() && next_ < requests_.size() &&
           running_.size() < static_cast<size_t>(parallel_)) {
      const size_t i = next_++;
      if (std::optional<RunResult> done = trainer_.Finished(requests_[i])) {
        Done(i, *done);
        continue;
      }
      auto spec = trainer_.Prepare(requests_[i]);
      auto launch = spec.ok() ? StartLaunch(*spec) : Result<RunningLaunch>(spec.status());
      if (!launch.ok()) {
        Fail(launch.status());
        continue;
      }
      if (callbacks_.on_start) callbacks_.on_start(i);
      running_.push_back({i, std::move(launch).value()});
    }
  }

  // Collects every launch that has ended; whether any had.
  bool PollAll() {
    bool any = false;
    for (size_t k = 0; k < running_.size();) {
      auto ended = PollLaunch(running_[k].launch, trainer_.Limits());
      if (ended.ok() && !*ended) {
        ++k;
        continue;
      }
      any = true;
      const size_t i = running_[k].index;
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
      if (!ended.ok()) {
        Fail(ended.status());
        continue;
      }
      auto result = trainer_.Collect(requests_[i]);
      if (result.ok()) {
        Done(i, *result);
      } else {
        Fail(result.status());
      }
    }
    return any;
  }

  void Report() {
    const double now = WallSeconds();
    if (running_.empty() || !callbacks_.on_wait || now - last_report_ < 1.0) return;
    last_report_ = now;
    const InFlight& oldest = running_.front();
    callbacks_.on_wait(oldest.index, now - oldest.launch.started_wall);
  }

  const CmdTrainer& trainer_;
  const std::vector<RunRequest>& requests_;
  const int parallel_;
  const LaunchCallbacks& callbacks_;
  std::vector<InFlight> running_;
  size_t next_ = 0;
  Status failure_;
  double last_report_ = 0;
};

}  // namespace

Status RunLaunches(const CmdTrainer& trainer, const std::vector<RunRequest>& requests, int parallel,
                   const LaunchCallbacks& callbacks) {
  return Executor(trainer, requests, parallel < 1 ? 1 : parallel, callbacks).Run();
}

}  // namespace preflight::trainer
