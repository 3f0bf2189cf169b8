#pragma once
// Where a selection keeps its work until it commits: `<out>.partial/` beside --out (for a folder
// output `kept/`, `kept.partial/`). It holds each shard's kept lines and annotations (pieces,
// joined into the outputs at the end), each pass's results per shard (so that a rerun after a
// kill reuses them: select/resume.h), and, for a folder output, the folder being built. A lock
// file keeps two selections from writing one output at once. A committed selection removes the
// folder; a killed one leaves it for the rerun; a failed one removes it.
// Not thread-safe to open; the paths it hands out are.

#include <memory>
#include <string>

#include "base/status.h"

namespace preflight::select {

class WorkFolder {
 public:
  // Makes the folder (or reopens a killed run's) and locks it. InvalidArgument when another
  // live selection holds it, naming --out.
  static Result<std::unique_ptr<WorkFolder>> Open(const std::string& out_path);
  // The leader's folder, on another process of a group (no lock: the leader holds it).
  static std::unique_ptr<WorkFolder> Join(const std::string& out_path);
  ~WorkFolder();
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;

  // `<out>.partial` for `<out>` or `<out>/`.
  static std::string PathFor(const std::string& out_path);
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const;
  // Whether it held a killed run's work when opened.
  bool resumed() const { return resumed_; }
  // Removes the folder and what it holds (the lock last).
  Status Remove();

 private:
  explicit WorkFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
  int lock_fd_ = -1;
  bool resumed_ = false;
};

}  // namespace preflight::select
