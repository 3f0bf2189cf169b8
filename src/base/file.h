#pragma once
// The one place that talks to the file system. Everything that writes output goes through
// AtomicFile: bytes go to a temporary file beside the destination, are fsync'ed, and are renamed
// over it only on Commit(). A crash, an error or a destructor without Commit() leaves no file.
// Not thread-safe: one writer per AtomicFile.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight {

class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // Removes the temporary file unless Commit() succeeded.

  // Creates the temporary file `path`.tmp.<pid>. Fails with IOError naming `path` if its folder
  // is not writable. First removes the stale temporaries of `path` that killed runs left
  // (RemoveStaleTemporaries).
  Status Open(const std::string& path);
  Status Write(std::string_view bytes);
  // fsync, rename over the destination, fsync the folder.
  Status Commit();
  // Drops the temporary file; the destination is untouched.
  void Abandon();

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  std::string path_;
  std::string tmp_path_;
  std::FILE* file_ = nullptr;
  uint64_t bytes_written_ = 0;
};

// Removes `path`.tmp.<pid> files whose process no longer runs (a run killed before Commit()),
// and returns their paths. A temporary of a live process (this one included) is left alone, so
// two runs writing the same output do not break each other. Best effort: a file that cannot be
// removed is left and not returned. Processes are looked up in this machine's pid namespace.
std::vector<std::string> RemoveStaleTemporaries(const std::string& path);

// Writes `contents` to `path` atomically.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// Reads a whole (small) file. NotFound names the path.
Result<std::string> ReadFileToString(const std::string& path);

bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);
Result<uint64_t> FileSize(const std::string& path);
// mkdir -p.
Status MakeDirectories(const std::string& path);
// The folder part of a path ("." if none).
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);
std::string JoinPath(const std::string& a, const std::string& b);

}  // namespace preflight
