#include "select/work_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/file.h"

namespace preflight::select {

std::string WorkFolder::PathFor(const std::string& out_path) {
  std::string base = out_path;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base + ".partial";
}

Result<std::unique_ptr<WorkFolder>> WorkFolder::Open(const std::string& out_path) {
  std::unique_ptr<WorkFolder> w(new WorkFolder(PathFor(out_path)));
  w->resumed_ = IsDirectory(w->path_);
  if (!w->resumed_ && PathExists(w->path_)) {
    return Status::InvalidArgument(w->path_ + ": exists and is not a folder; preflight keeps a " +
                                   "selection's work there: move it, or choose another --out");
  }
  if (::mkdir(w->path_.c_str(), 0777) != 0 && errno != EEXIST) {
    return Status::InvalidArgument(w->path_ + ": cannot create the work folder (" +
                                   std::strerror(errno) + "); choose a writable --out");
  }
  const std::string lock = w->File("lock");
  w->lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (w->lock_fd_ < 0) {
    return Status::InvalidArgument(lock + ": cannot open (" + std::string(std::strerror(errno)) +
                                   ")");
  }
  if (::flock(w->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Status::InvalidArgument("another selection is writing " + out_path + " (its work " +
                                   "folder " + w->path_ + " is locked); wait for it to end, " +
                                   "or choose another --out");
  }
  return w;
}

std::unique_ptr<WorkFolder> WorkFolder::Join(const std::string& out_path) {
  return std::unique_ptr<WorkFolder>(new WorkFolder(PathFor(out_path)));
}

WorkFolder::~WorkFolder() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string WorkFolder::File(const std::string& name) const { return JoinPath(path_, name); }

Status WorkFolder::Remove() {
  std::error_code ec;
  namespace fs = std::filesystem;
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    if (entry.path().filename() == "lock") continue;
    fs::remove_all(entry.path(), ec);
    if (ec) return Status::IOError(entry.path().string() + ": cannot remove (" + ec.message() + ")");
  }
  fs::remove(File("lock"), ec);
  fs::remove(path_, ec);
  if (ec) return Status::IOError(path_ + ": cannot remove (" + ec.message() + ")");
  return Status::Ok();
}

}  // namespace preflight::select
