#include "base/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace preflight {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

Status FsyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return Status::IOError(dir + ": cannot open folder to fsync: " + ErrnoText());
  ::fsync(fd);  // Best effort: some file systems refuse fsync on folders.
  ::close(fd);
  return Status::Ok();
}

// What a file type is called in messages.
std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a file of another kind";
}

}  // namespace

Status CheckReplaceableFile(const std::string& path, const std::string& flag) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return Status::Ok();
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    return Status::InvalidArgument(
        path + ": " + flag + " names a symbolic link" +
        (ec ? std::string() : " (to " + target.string() + ")") +
        "; preflight renames a new file into place, which would replace the link itself: give "
        "the path it points to, or remove the link");
  }
  return Status::InvalidArgument(path + ": " + flag + " names " + KindOf(st.st_mode) +
                                 ", not a regular file; preflight renames a new file into "
                                 "place, which would replace it: choose another path");
}

std::vector<std::string> RemoveStaleTemporaries(const std::string& path) {
  std::vector<std::string> removed;
  const std::string dir = DirName(path);
  const std::string prefix = BaseName(path) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return removed;
  while (const dirent* entry = ::readdir(d)) {
    const std::string_view name(entry->d_name);
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) continue;
    const std::string_view digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(digits)));
    if (pid <= 0 || pid == ::getpid()) continue;
    // kill(pid, 0) fails with ESRCH only when no such process exists (EPERM: it runs as
    // another user, so it is alive).
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    const std::string stale = JoinPath(dir, std::string(name));
    if (std::remove(stale.c_str()) == 0) removed.push_back(stale);
  }
  ::closedir(d);
  return removed;
}

AtomicFile::~AtomicFile() { Abandon(); }

Status AtomicFile::Open(const std::string& path) { return OpenAs(path, /*durable=*/true); }

Status AtomicFile::OpenScratch(const std::string& path) {
  return OpenAs(path, /*durable=*/false);
}

Status AtomicFile::OpenAs(const std::string& path, bool durable) {
  Abandon();
  durable_ = durable;
  PF_RETURN_IF_ERROR(CheckReplaceableFile(path, "the output path"));
  if (durable_) RemoveStaleTemporaries(path);
  path_ = path;
  tmp_path_ = path + ".tmp." + std::to_string(::getpid());
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (file_ == nullptr) {
    return Status::IOError(path + ": cannot write output (" + ErrnoText() +
                           "); check that the folder exists and is writable");
  }
  bytes_written_ = 0;
  return Status::Ok();
}

Status AtomicFile::Write(std::string_view bytes) {
  if (file_ == nullptr) return Status::Internal(path_ + ": write to a file that is not open");
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return Status::IOError(path_ + ": write failed (" + ErrnoText() + ")");
  }
  bytes_written_ += bytes.size();
  return Status::Ok();
}

Status AtomicFile::Flush() {
  if (flushed_) return Status::Ok();
  if (file_ == nullptr) return Status::Internal(path_ + ": flush of a file that is not open");
  bool ok = std::fflush(file_) == 0 && (!durable_ || ::fsync(::fileno(file_)) == 0);
  std::string why = ok ? "" : ErrnoText();
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok) {
    std::remove(tmp_path_.c_str());
    tmp_path_.clear();
    return Status::IOError(path_ + ": could not flush output (" + why + ")");
  }
  flushed_ = true;
  return Status::Ok();
}

Status AtomicFile::Commit() {
  if (file_ == nullptr && !flushed_) {
    return Status::Internal(path_ + ": commit of a file that is not open");
  }
  PF_RETURN_IF_ERROR(Flush());
  flushed_ = false;
  // Checked again at the last moment: something may have been put there since Open().
  if (Status st = CheckReplaceableFile(path_, "the output path"); !st.ok()) {
    std::remove(tmp_path_.c_str());
    tmp_path_.clear();
    return st;
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    std::string err = ErrnoText();
    std::remove(tmp_path_.c_str());
    tmp_path_.clear();
    return Status::IOError(path_ + ": could not rename output into place (" + err + ")");
  }
  tmp_path_.clear();
  return durable_ ? FsyncDirectory(DirName(path_)) : Status::Ok();
}

void AtomicFile::Abandon() {
  flushed_ = false;
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!tmp_path_.empty()) {
    std::remove(tmp_path_.c_str());
    tmp_path_.clear();
  }
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  AtomicFile file;
  PF_RETURN_IF_ERROR(file.Open(path));
  PF_RETURN_IF_ERROR(file.Write(contents));
  return file.Commit();
}

Status WriteScratchFile(const std::string& path, std::string_view contents) {
  AtomicFile file;
  PF_RETURN_IF_ERROR(file.OpenScratch(path));
  PF_RETURN_IF_ERROR(file.Write(contents));
  return file.Commit();
}

Result<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open (" + ErrnoText() + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError(path + ": read failed");
  return ss.str();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsSymbolicLink(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

Result<uint64_t> FileSize(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path + ": " + ErrnoText());
  return static_cast<uint64_t>(st.st_size);
}

Status MakeDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IOError(path + ": cannot create folder (" + ec.message() + ")");
  return Status::Ok();
}

std::string DirName(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string BaseName(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty() || a == ".") return b;
  if (!b.empty() && b[0] == '/') return b;
  return a.back() == '/' ? a + b : a + "/" + b;
}

}  // namespace preflight
