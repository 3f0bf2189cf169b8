#pragma once
// The one place that talks to the file system. Everything that writes output goes through
// AtomicFile: bytes go to a temporary file beside the destination, are fsync'ed, and are renamed
// over it only on Commit(). A crash, an error or a destructor without Commit() leaves no file.
// The rename replaces only a regular file: a destination that is a folder, a symbolic link, a
// FIFO, a socket or a device is refused (CheckReplaceableFile) before the temporary is made and
// again just before the rename, so an --out that names one is never destroyed.
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

  // Creates the temporary file `path`.tmp.<pid>. InvalidArgument when `path` exists and is not a
  // regular file (CheckReplaceableFile); IOError naming `path` if its folder is not writable.
  // First removes the stale temporaries of `path` that killed runs left (RemoveStaleTemporaries).
  Status Open(const std::string& path);
  // A scratch file (a cache in a work folder, rebuilt if lost): renamed into place like any
  // other, so a killed process never leaves half of it, but not fsync'ed (a machine crash may
  // lose it) and its folder not searched for stale temporaries (the folder is thrown away).
  Status OpenScratch(const std::string& path);
  Status Write(std::string_view bytes);
  // Flushes, fsyncs and closes the temporary: its bytes are all on disk, not yet named. Commit()
  // does it when it has not been done.
  Status Flush();
  // Flush, rename over the destination, fsync the folder. InvalidArgument (the temporary
  // removed) when the destination became something other than a regular file since Open().
  Status Commit();
  // Drops the temporary file; the destination is untouched.
  void Abandon();

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  Status OpenAs(const std::string& path, bool durable);

  std::string path_;
  std::string tmp_path_;
  std::FILE* file_ = nullptr;
  bool flushed_ = false;  // the temporary is complete and closed (Flush)
  bool durable_ = true;   // fsync the file and its folder (not a scratch file)
  uint64_t bytes_written_ = 0;
};

// Removes `path`.tmp.<pid> files whose process no longer runs (a run killed before Commit()),
// and returns their paths. A temporary of a live process (this one included) is left alone, so
// two runs writing the same output do not break each other. Best effort: a file that cannot be
// removed is left and not returned. Processes are looked up in this machine's pid namespace.
std::vector<std::string> RemoveStaleTemporaries(const std::string& path);

// OK when `path` does not exist or is a regular file; else InvalidArgument naming `path`, `flag`
// (what named it, e.g. "--out") and what it is ("a FIFO (named pipe)", "a symbolic link (to T)",
// "a character device", "a folder", ...). Symbolic links are refused, not written through: a rename
// replaces the link itself, and writing to its target would put the output (and the files written
// beside it: manifest, temporaries) in two different folders.
Status CheckReplaceableFile(const std::string& path, const std::string& flag);

// Writes `contents` to `path` atomically.
Status WriteFileAtomically(const std::string& path, std::string_view contents);
// The same for a scratch file (AtomicFile::OpenScratch).
Status WriteScratchFile(const std::string& path, std::string_view contents);

// Reads a whole (small) file. NotFound names the path.
Result<std::string> ReadFileToString(const std::string& path);

bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);     // follows a symbolic link
bool IsSymbolicLink(const std::string& path);  // the path itself (lstat)
Result<uint64_t> FileSize(const std::string& path);
// mkdir -p.
Status MakeDirectories(const std::string& path);
// The folder part of a path ("." if none).
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);
std::string JoinPath(const std::string& a, const std::string& b);

}  // namespace preflight
