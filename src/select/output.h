#pragma once
// The files a selection writes: the kept documents (plain, or compressed by their name's ending:
// ".zst" zstd, ".gz" gzip), the optional annotation file, and the manifest. Each is written to a
// temporary beside its destination and renamed into place; missing parent folders are created
// when the outputs are opened and removed again if the selection does not commit, so a failed
// selection leaves nothing behind. Opening checks every path before any work: a folder, a
// symbolic link, a FIFO, a socket or a device given as a file (base/file.h,
// CheckReplaceableFile), or a place that cannot be written, is an InvalidArgument naming the
// path and the flag.
//
// The order of the commit makes a finished-looking output imply its manifest and receipt: the
// data is completed on disk unnamed (FinishData), the former outputs are removed and the
// manifest named (CommitManifest), the caller appends its receipt, and only then are the
// annotations and, last, the kept documents named (CommitData). A run killed at any point leaves
// either no output at --out or all three. Not thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/sha256.h"
#include "base/status.h"

namespace preflight::select {

enum class Compression { kNone, kZstd, kGzip };
// By the name: "x.zst" zstd, "x.gz" gzip, anything else plain.
Compression CompressionFor(const std::string& path);
const char* CompressionName(Compression c);  // "none", "zstd", "gzip"

// An AtomicFile that compresses what it is given, by its path's name. The stream is deterministic:
// the same bytes in give the same file (zstd level 3, one thread; gzip level 6, no name or time).
class OutputFile {
 public:
  OutputFile();
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // `flag` names the option in errors ("--out").
  Status Open(const std::string& path, const std::string& flag);
  Status Write(std::string_view bytes);  // Uncompressed bytes.
  Status Finish();  // Ends the stream and flushes the temporary: the hashes are final.
  Status Commit();  // Finish() if not done, then AtomicFile::Commit().
  void Abandon();   // Drops the temporary file.

  const std::string& path() const { return file_.path(); }
  Compression compression() const { return compression_; }
  uint64_t content_bytes() const { return content_bytes_; }  // Before compression.
  uint64_t file_bytes() const { return file_.bytes_written(); }
  // Once, after Finish(); of a plain file, the file's hash (the same bytes).
  std::string content_sha256() {
    return compression_ == Compression::kNone ? file_sha256() : content_sha_.HexDigest();
  }
  std::string file_sha256() { return file_sha_.HexDigest(); }  // Once, after Finish().

 private:
  class Encoder;
  Status WriteFile(std::string_view bytes);

  AtomicFile file_;
  Compression compression_ = Compression::kNone;
  std::unique_ptr<Encoder> encoder_;
  Sha256 content_sha_, file_sha_;
  uint64_t content_bytes_ = 0;
};

// The outputs of one selection (doc/select.md): kept documents, annotations (if asked for) and
// the manifest. Only the leader of a group opens them.
class SelectionOutputs {
 public:
  SelectionOutputs() = default;
  SelectionOutputs(const SelectionOutputs&) = delete;
  SelectionOutputs& operator=(const SelectionOutputs&) = delete;
  // Without CommitData(): removes the temporaries, a manifest CommitManifest named, and the
  // folders it made.
  ~SelectionOutputs();

  // Checks every path, then creates missing parent folders and the temporaries. Errors are
  // InvalidArgument naming the path and its flag (bad usage: exit 2).
  Status Open(const std::string& out_path, const std::string& annotate_path,
              const std::string& manifest_path);
  // Whether --out held an output without its manifest when opened: the orphan of a run killed
  // before this order of commits existed, replaced by this selection.
  bool found_orphan() const { return found_orphan_; }
  OutputFile& kept() { return kept_; }
  // nullptr when no annotation file was asked for.
  OutputFile* annotations() { return annotate_ ? &annotations_ : nullptr; }
  // The kept documents and the annotations complete on disk, not named: their hashes are final.
  Status FinishData();
  // Removes the former kept documents and annotations (a rerun's), then names the manifest.
  Status CommitManifest(std::string_view manifest_text);
  // Names the annotations, then the kept documents: the last step of a selection.
  Status CommitData();

 private:
  Status MakeParents(const std::string& path, const std::string& flag);

  OutputFile kept_, annotations_;
  AtomicFile manifest_;
  std::string manifest_path_;
  bool annotate_ = false;
  bool manifest_named_ = false;
  bool committed_ = false;
  bool found_orphan_ = false;
  std::vector<std::string> made_folders_;  // Outermost first.
};

}  // namespace preflight::select
