#include "ledger/writable.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "base/file.h"
#include "ledger/ledger.h"

namespace preflight::ledger {
namespace {

Status Refuse(const std::string& path, const std::string& flag, const std::string& why) {
  return Status::InvalidArgument(path + ": " + why + "; choose another " + flag);
}

// The path itself when it exists, else its nearest existing ancestor.
std::string NearestExisting(const std::string& path) {
  std::string probe = path;
  while (!PathExists(probe)) {
    const std::string parent = DirName(probe);
    if (parent == probe) break;
    probe = parent;
  }
  return probe;
}

// Creates and removes an empty file in `dir`: "" when that worked, else why not.
std::string ProbeFolder(const std::string& dir) {
  static std::atomic<int> counter{0};
  const std::string probe = JoinPath(
      dir, ".preflight-probe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

// `dir` (a folder to be written into) or, when it does not exist yet, the ancestor it will be
// made in, takes a new file.
Status CheckFolderOrAncestor(const std::string& path, const std::string& dir,
                             const std::string& flag) {
  const std::string existing = NearestExisting(dir.empty() ? "." : dir);
  if (!IsDirectory(existing)) {
    return Refuse(path, flag, existing + " is not a folder");
  }
  if (std::string why = ProbeFolder(existing); !why.empty()) {
    return Refuse(path, flag, "cannot write in " + existing + " (" + why + ")");
  }
  return Status::Ok();
}

}  // namespace

Status CheckWritableFile(const std::string& path, const std::string& flag) {
  if (path.empty()) return Status::InvalidArgument(flag + " is empty: give a file name");
  if (IsDirectory(path)) return Refuse(path, flag, "is a folder; " + flag + " names a file");
  PF_RETURN_IF_ERROR(CheckReplaceableFile(path, flag));  // a link, a FIFO, a device: refused
  return CheckFolderOrAncestor(path, DirName(path), flag);
}

Status CheckWritableFolder(const std::string& dir, const std::string& flag) {
  if (dir.empty()) return Status::InvalidArgument(flag + " is empty: give a folder");
  return CheckFolderOrAncestor(dir, dir, flag);
}

Status CheckAppendableFile(const std::string& path, const std::string& flag) {
  if (path.empty() || IsDirectory(path) || !PathExists(path)) {
    return CheckWritableFile(path, flag);
  }
  // Appended to, never renamed over: a link to a regular file is followed; anything else (a
  // FIFO, a device, a socket) would swallow or block the receipts.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return Refuse(path, flag, "is not a regular file (a FIFO, a socket or a device)");
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return Refuse(path, flag, std::string("cannot append (") + std::strerror(errno) + ")");
  ::close(fd);
  return Status::Ok();
}

Status CheckLedgerAndOutFolder(const std::string& ledger_path, const std::string& out_dir) {
  PF_RETURN_IF_ERROR(CheckAppendable(ledger_path));
  return CheckWritableFolder(out_dir, "--out");
}

}  // namespace preflight::ledger
