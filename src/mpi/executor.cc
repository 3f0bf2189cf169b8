// Trial runs over MPI ranks (ranks.h). Rank 0, the leader, makes the arms, trains the runs dealt to
// it and collects every other rank's results; the others train theirs and send each result to
// the leader as it finishes. Tasks are dealt round-robin: task i runs on rank i % size.
//
// Messages (point to point, MPI_COMM_WORLD):
//   result   worker -> leader: task index, ok flag, then the run's output or the failure's Status
//   control  leader -> worker: how the job ended (an encoded Status) once no result is pending,
//            or at once after a failure anywhere
//   ack      worker -> leader: the worker has stopped; the leader returns after every ack
// A worker looks for a control message before each of its tasks, so after a failure every rank
// stops at its next task boundary (a run in progress is finished, not interrupted). The leader
// keeps receiving until every worker has acked, so no send is left without a receiver.

#ifdef PREFLIGHT_HAVE_MPI

#include <mpi.h>

#include <cstring>

#include "mpi/ranks.h"
#include "mpi/internal.h"

namespace preflight::mpi {
namespace {

constexpr int kResultTag = 7101, kControlTag = 7102, kAckTag = 7103;

std::string ReceiveAny(int source, int tag, MPI_Status* status) {
  MPI_Probe(source, tag, MPI_COMM_WORLD, status);
  int n = 0;
  MPI_Get_count(status, MPI_BYTE, &n);
  std::string bytes(static_cast<size_t>(n), '\0');
  MPI_Recv(bytes.data(), n, MPI_BYTE, status->MPI_SOURCE, status->MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return bytes;
}

class MpiRunExecutor final : public trial::RunExecutor {
 public:
  MpiRunExecutor() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  bool IsLeader() const override { return rank_ == 0; }
  bool InProcess() const override { return false; }

  Status AfterArms(Status local) override {
    uint64_t sent = 0;
    return internal::Agree(local, &sent);
  }

  Status RunTasks(int count, const std::function<Result<std::string>(int)>& run,
                  const std::function<Status(int, const std::string&)>& on_result) override {
    return rank_ == 0 ? Lead(count, run, on_result) : Work(count, run);
  }

 private:
  Status Lead(int count, const std::function<Result<std::string>(int)>& run,
              const std::function<Status(int, const std::string&)>& on_result) {
    Status failure;
    int outstanding = 0;
    for (int i = 0; i < count; ++i)
      if (i % size_ != 0) ++outstanding;
    auto fail = [&](int rank, const Status& st) {
      if (!failure.ok()) return;
      failure = internal::DecodeStatus(internal::EncodeStatus(st).substr(0, 1) + "rank " +
                                       std::to_string(rank) + ": " + st.message());
    };
    auto handle = [&](const MPI_Status& from, const std::string& msg) {
      --outstanding;
      if (msg.size() < 5) return fail(from.MPI_SOURCE, Status::Internal("malformed result"));
      int task = 0;
      std::memcpy(&task, msg.data(), 4);
      const std::string payload = msg.substr(5);
      if (msg[4] == 1) {
        Status st = on_result(task, payload);
        if (!st.ok()) fail(0, st);
      } else {
        fail(from.MPI_SOURCE, internal::DecodeStatus(payload));
      }
    };
    auto drain = [&] {
      int flag = 1;
      while (flag) {
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
          std::string msg = ReceiveAny(st.MPI_SOURCE, kResultTag, &st);
          handle(st, msg);
        }
      }
    };
    for (int i = 0; i < count && failure.ok(); i += size_) {
      drain();
      if (!failure.ok()) break;
      auto out = run(i);
      if (!out.ok()) {
        fail(0, out.status());
        break;
      }
      if (Status st = on_result(i, *out); !st.ok()) fail(0, st);
    }
    while (failure.ok() && outstanding > 0) {
      MPI_Status st;
      std::string msg = ReceiveAny(MPI_ANY_SOURCE, kResultTag, &st);
      handle(st, msg);
    }
    // Tell every worker how the job ended, then wait until each has stopped; results that arrive
    // after a failure are dropped.
    std::string control = internal::EncodeStatus(failure);
    for (int r = 1; r < size_; ++r) {
      MPI_Send(control.data(), static_cast<int>(control.size()), MPI_BYTE, r, kControlTag,
               MPI_COMM_WORLD);
    }
    int acks = 0;
    while (acks < size_ - 1) {
      MPI_Status st;
      std::string msg = ReceiveAny(MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
      if (st.MPI_TAG == kAckTag) ++acks;
    }
    return failure;
  }

  Status Work(int count, const std::function<Result<std::string>(int)>& run) {
    std::string control;
    bool have_control = false;
    for (int i = rank_; i < count; i += size_) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(0, kControlTag, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        control = ReceiveAny(0, kControlTag, &st);
        have_control = true;
        break;
      }
      auto out = run(i);
      std::string msg(4, '\0');
      std::memcpy(msg.data(), &i, 4);
      msg.push_back(out.ok() ? 1 : 0);
      msg += out.ok() ? *out : internal::EncodeStatus(out.status());
      MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, 0, kResultTag, MPI_COMM_WORLD);
      if (!out.ok()) break;
    }
    if (!have_control) {
      MPI_Status st;
      control = ReceiveAny(0, kControlTag, &st);
    }
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kAckTag, MPI_COMM_WORLD);
    return internal::DecodeStatus(control);
  }

  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<trial::RunExecutor> MakeMpiRunExecutor() {
  return std::make_unique<MpiRunExecutor>();
}

}  // namespace preflight::mpi

#endif  // PREFLIGHT_HAVE_MPI
