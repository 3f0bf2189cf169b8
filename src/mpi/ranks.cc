#include "mpi/ranks.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#ifdef PREFLIGHT_HAVE_MPI
#include <mpi.h>

#include "base/clock.h"
#include "mpi/internal.h"
#endif

namespace preflight::mpi {

#ifdef PREFLIGHT_HAVE_MPI
namespace internal {

std::string EncodeStatus(const Status& status) {
  std::string out(1, static_cast<char>(status.kind()));
  return out + status.message();
}

Status DecodeStatus(const std::string& bytes) {
  if (bytes.empty()) return Status::Internal("MPI: empty status message");
  std::string message = bytes.substr(1);
  switch (static_cast<Status::Kind>(bytes[0])) {
    case Status::Kind::kOk:
      return Status::Ok();
    case Status::Kind::kInvalidArgument:
      return Status::InvalidArgument(message);
    case Status::Kind::kNotFound:
      return Status::NotFound(message);
    case Status::Kind::kCorruption:
      return Status::Corruption(message);
    case Status::Kind::kIOError:
      return Status::IOError(message);
    case Status::Kind::kInternal:
      break;
  }
  return Status::Internal(message);
}

Status Agree(const Status& local, uint64_t* sent) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = local.ok() ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  *sent += sizeof(int);
  if (first == size) return Status::Ok();
  std::string bytes = rank == first ? EncodeStatus(local) : std::string();
  uint64_t n = bytes.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, first, MPI_COMM_WORLD);
  bytes.resize(n);
  MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, first, MPI_COMM_WORLD);
  if (rank == first) *sent += 8 + n;
  Status failed = DecodeStatus(bytes);
  return DecodeStatus(EncodeStatus(failed).substr(0, 1) + "rank " + std::to_string(first) + ": " +
                      failed.message());
}

}  // namespace internal

namespace {

bool g_started = false;
int g_rank = 0, g_size = 1, g_local = 1;

constexpr uint64_t kPiece = uint64_t{1} << 30;  // MPI counts are ints: move big data in pieces.

Status Check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Status::Internal(std::string("MPI ") + what + " failed: " + std::string(text, len));
}

class MpiGroup final : public select::SelectionGroup {
 public:
  int rank() const override { return g_rank; }
  int size() const override { return g_size; }

  void SetPhase(const std::string& phase) override {
    const double now = WallSeconds();
    if (!phases_.empty()) phases_[current_].seconds += now - since_;
    since_ = now;
    for (size_t i = 0; i < phases_.size(); ++i) {
      if (phases_[i].phase == phase) {
        current_ = i;
        return;
      }
    }
    phases_.push_back({phase, 0, 0});
    current_ = phases_.size() - 1;
  }

  Status Agree(const Status& local) override {
    uint64_t sent = 0;
    Status st = internal::Agree(local, &sent);
    Count(sent);
    return st;
  }

  Status SumU64(std::vector<uint64_t>* values) override {
    for (size_t at = 0; at < values->size(); at += kPiece / 8) {
      const int n = static_cast<int>(std::min<uint64_t>(kPiece / 8, values->size() - at));
      PF_RETURN_IF_ERROR(Check(MPI_Allreduce(MPI_IN_PLACE, values->data() + at, n, MPI_UINT64_T,
                                             MPI_SUM, MPI_COMM_WORLD),
                               "Allreduce"));
    }
    Count(values->size() * 8);
    return Status::Ok();
  }

  Status ExclusivePrefixU64(std::vector<uint64_t>* values) override {
    std::vector<uint64_t> out(values->size(), 0);
    PF_RETURN_IF_ERROR(
        Check(MPI_Exscan(values->data(), out.data(), static_cast<int>(values->size()), MPI_UINT64_T,
                         MPI_SUM, MPI_COMM_WORLD),
              "Exscan"));
    if (g_rank == 0) std::fill(out.begin(), out.end(), 0);  // Exscan leaves rank 0's undefined.
    Count(values->size() * 8);
    *values = std::move(out);
    return Status::Ok();
  }

  Result<double> SumDouble(double value) override {
    double sum = 0;
    PF_RETURN_IF_ERROR(
        Check(MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "Allreduce"));
    Count(8);
    return sum;
  }

  // Point to point, in rank order, in pieces: no limit on the sizes, and the leader holds one
  // rank's bytes in flight at a time.
  Result<std::string> GatherToLeader(const std::string& local) override {
    if (g_rank != 0) {
      uint64_t n = local.size();
      PF_RETURN_IF_ERROR(
          Check(MPI_Send(&n, 1, MPI_UINT64_T, 0, kGatherTag, MPI_COMM_WORLD), "Send"));
      for (uint64_t at = 0; at < n; at += kPiece) {
        const int len = static_cast<int>(std::min(kPiece, n - at));
        PF_RETURN_IF_ERROR(Check(
            MPI_Send(local.data() + at, len, MPI_BYTE, 0, kGatherTag, MPI_COMM_WORLD), "Send"));
      }
      Count(8 + n);
      return std::string();
    }
    std::string all = local;
    for (int r = 1; r < g_size; ++r) {
      uint64_t n = 0;
      PF_RETURN_IF_ERROR(Check(
          MPI_Recv(&n, 1, MPI_UINT64_T, r, kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv"));
      const size_t at0 = all.size();
      all.resize(at0 + n);
      for (uint64_t at = 0; at < n; at += kPiece) {
        const int len = static_cast<int>(std::min(kPiece, n - at));
        PF_RETURN_IF_ERROR(Check(MPI_Recv(all.data() + at0 + at, len, MPI_BYTE, r, kGatherTag,
                                          MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                                 "Recv"));
      }
    }
    return all;
  }

  Status StreamToLeader(const std::string& local,
                        const std::function<Status(std::string_view)>& sink) override {
    if (g_rank != 0) {
      PF_ASSIGN_OR_RETURN(std::string ignored, GatherToLeader(local));
      return Status::Ok();
    }
    Status failed = sink(local);
    std::string piece;
    for (int r = 1; r < g_size; ++r) {
      uint64_t n = 0;
      PF_RETURN_IF_ERROR(Check(
          MPI_Recv(&n, 1, MPI_UINT64_T, r, kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv"));
      for (uint64_t at = 0; at < n; at += kPiece) {
        const int len = static_cast<int>(std::min(kPiece, n - at));
        piece.resize(len);
        PF_RETURN_IF_ERROR(Check(
            MPI_Recv(piece.data(), len, MPI_BYTE, r, kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "Recv"));
        if (failed.ok()) failed = sink(piece);
      }
    }
    return failed;
  }

  Status Broadcast(std::string* bytes) override {
    uint64_t n = bytes->size();
    PF_RETURN_IF_ERROR(Check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "Bcast"));
    bytes->resize(n);
    for (uint64_t at = 0; at < n; at += kPiece) {
      const int len = static_cast<int>(std::min(kPiece, n - at));
      PF_RETURN_IF_ERROR(
          Check(MPI_Bcast(bytes->data() + at, len, MPI_BYTE, 0, MPI_COMM_WORLD), "Bcast"));
    }
    if (g_rank == 0) Count(8 + n);
    return Status::Ok();
  }

  std::vector<PhaseCost> Costs() const override {
    std::vector<PhaseCost> out = phases_;
    if (!out.empty()) out[current_].seconds += WallSeconds() - since_;
    return out;
  }

 private:
  static constexpr int kGatherTag = 7001;
  void Count(uint64_t bytes) {
    if (phases_.empty()) SetPhase("other");
    phases_[current_].bytes_sent += bytes;
  }
  std::vector<PhaseCost> phases_;
  size_t current_ = 0;
  double since_ = 0;
};

}  // namespace

std::unique_ptr<trial::RunExecutor> MakeMpiRunExecutor();  // executor.cc

bool Init(int* argc, char*** argv) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMIX_RANK") == nullptr)
    return true;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return false;
  g_started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &g_local);
  MPI_Comm_free(&local);
  return true;
}

void Finalize() {
  if (!g_started) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  g_started = false;
}

int Rank() { return g_rank; }
int Size() { return g_size; }
int LocalRanks() { return g_local; }

std::unique_ptr<select::SelectionGroup> MakeSelectionGroup() {
  if (g_size < 2) return nullptr;
  return std::make_unique<MpiGroup>();
}

std::unique_ptr<trial::RunExecutor> MakeRunExecutor() {
  if (g_size < 2) return nullptr;
  return MakeMpiRunExecutor();
}

#else  // Built without MPI: one process, always.

// Started by mpirun on several ranks, a binary without MPI would run the whole command once per
// rank over the same files and outputs: it refuses to start instead (main says how to build MPI
// in). scripts/setup.sh builds without MPI unless OpenMPI is installed.
bool Init(int*, char***) {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size == nullptr || std::atoi(size) <= 1;
}
void Finalize() {}
int Rank() { return 0; }
int Size() { return 1; }
int LocalRanks() { return 1; }
std::unique_ptr<select::SelectionGroup> MakeSelectionGroup() { return nullptr; }
std::unique_ptr<trial::RunExecutor> MakeRunExecutor() { return nullptr; }

#endif

int DefaultThreads() {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, hw / std::max(1, LocalRanks()));
}

}  // namespace preflight::mpi
