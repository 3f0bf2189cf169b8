#include "trial/concurrent_runs.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/config.h"

namespace preflight::trial {
namespace {

// A second thread does not speed a run of a model under this (tiny: 120,640 parameters); small
// (842,624) trains 1.7x faster on two threads than on one (concurrent_runs.h).
constexpr int64_t kOneThreadParams = 500'000;

// What the workers share: the next task, the finished ones waiting for the caller, the first
// failure, and how many are still running.
class Pool {
 public:
  Pool(int count, const std::function<Result<std::string>(int)>& run) : count_(count), run_(run) {}

  void Work() {
    while (true) {
      int i;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (next_ >= count_ || stop_) return;
        i = next_++;
        ++running_;
      }
      Result<std::string> out = run_(i);
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      if (!out.ok()) stop_ = true;
      done_.emplace_back(i, std::move(out));
      cv_.notify_all();
    }
  }

  // On the calling thread: passes each result on as it arrives; returns the first failure.
  Status Collect(const std::function<Status(int, const std::string&)>& on_result) {
    Status first;
    while (true) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !done_.empty() || Finished(); });
      if (done_.empty()) return first;
      auto [i, out] = std::move(done_.front());
      done_.pop_front();
      lock.unlock();
      Status st = out.ok() ? on_result(i, *out) : out.status();
      if (!st.ok() && first.ok()) {
        first = st;
        std::lock_guard<std::mutex> relock(mu_);
        stop_ = true;
      }
    }
  }

 private:
  bool Finished() const { return running_ == 0 && (next_ >= count_ || stop_); }

  const int count_;
  const std::function<Result<std::string>(int)>& run_;
  std::mutex mu_;
  std::condition_variable cv_;
  int next_ = 0, running_ = 0;
  bool stop_ = false;
  std::deque<std::pair<int, Result<std::string>>> done_;
};

}  // namespace

int RunsAtOnce(const TrialConfig& c) {
  if (c.runs_at_once >= 1) return c.runs_at_once;
  if (c.IsScheduleTrial() || engine::ParamCount(c.model) >= kOneThreadParams) return 1;
  const int threads = c.threads > 0 ? c.threads
                                    : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, threads);
}

Status RunConcurrently(int count, int workers,
                       const std::function<Result<std::string>(int)>& run,
                       const std::function<Status(int, const std::string&)>& on_result) {
  workers = std::clamp(workers, 1, std::max(1, count));
  Pool pool(count, run);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) threads.emplace_back([&pool] { pool.Work(); });
  Status st = pool.Collect(on_result);
  for (std::thread& t : threads) t.join();
  return st;
}

}  // namespace preflight::trial
