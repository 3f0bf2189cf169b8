#pragma once
// The files a selection writes (doc/select.md): the kept documents -- one file (`--out FILE`),
// or a folder (`--out DIR/`) with one file per pool file, under its relative name and with its
// compression --, the optional annotations (one file) and the manifest. The write pass makes one
// piece per shard in the work folder (select/piece.h); Assemble joins them into the outputs.
//
// Every path is checked before any work: a symbolic link, FIFO, socket or device given as a
// file, a folder output that holds something other than a former selection's output, or a place
// that cannot be written, is an InvalidArgument naming the path and the flag. Missing parent
// folders are made, and removed again if the selection does not commit.
//
// The order of the commit makes a finished-looking output imply its manifest and receipt: the
// outputs are completed on disk unnamed (Assemble), the former outputs are removed and the
// manifest named (CommitManifest), the caller appends its receipt, and only then are the
// annotations and, last, the kept documents named (CommitData; a folder by one rename). A run
// killed at any point leaves either no output at --out or all three. Not thread-safe.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/status.h"
#include "corpus/sharding.h"
#include "select/compress.h"
#include "select/piece.h"
#include "select/work_folder.h"

namespace preflight::select {

// What the write pass counted of one pool file's kept documents.
struct KeptCounts {
  uint64_t docs = 0, text_bytes = 0, pool_docs = 0;
};

// Whether `out_path` asks for a folder output: it ends in '/' or names a folder.
bool IsFolderOutput(const std::string& out_path);
// How shard `shard`'s kept lines are compressed: by --out's name, or in a folder output as the
// pool file they come from.
Compression KeptCompressionOf(const std::string& out_path, const corpus::Sharding& sharding,
                              uint32_t shard);
// The pieces of `shard` in the work folder.
std::string KeptPiecePath(const WorkFolder& work, uint32_t shard);
std::string NotesPiecePath(const WorkFolder& work, uint32_t shard);

class SelectionOutputs {
 public:
  SelectionOutputs() = default;
  SelectionOutputs(const SelectionOutputs&) = delete;
  SelectionOutputs& operator=(const SelectionOutputs&) = delete;
  // Without CommitData(): removes the temporaries, a manifest CommitManifest named, and the
  // folders it made.
  ~SelectionOutputs();

  // Checks every path and makes missing parent folders (errors: InvalidArgument naming the
  // path and its flag). `out_path` ending in '/' or naming a folder asks for a folder output.
  Status Open(const std::string& out_path, const std::string& annotate_path,
              const std::string& manifest_path);
  // Whether --out held an output without its manifest when opened (a killed run's of an older
  // version), now replaced.
  bool found_orphan() const { return found_orphan_; }
  bool to_folder() const { return to_folder_; }

  // Names every pool file's output in a folder output; two files that would share a name are
  // refused. Before the write pass.
  Status NameFolderFiles(const corpus::Sharding& sharding);
  bool annotating() const { return !annotate_path_.empty(); }

  // Joins the pieces (one per shard of the sharding, in order) into the outputs, complete on disk
  // but unnamed. `counts`: per pool file, what was kept (for a folder output's manifest).
  Status Assemble(const corpus::Sharding& sharding, const WorkFolder& work,
                  const std::vector<PieceFacts>& kept, const std::vector<PieceFacts>& notes,
                  const std::vector<KeptCounts>& counts);
  // The manifest's "output" and (with --annotate) "annotations" blocks.
  const nlohmann::json& output_json() const { return output_json_; }
  const nlohmann::json& annotations_json() const { return annotations_json_; }

  // Removes the former outputs (a rerun's), then names the manifest.
  Status CommitManifest(std::string_view manifest_text);
  // Names the annotations, then the kept documents: the last step of a selection.
  Status CommitData();

 private:
  Status MakeParents(const std::string& path, const std::string& flag);
  Status CheckFolderOutput(const std::string& manifest_path);
  Status AssembleFile(const std::vector<PieceFacts>& kept);
  Status AssembleFolder(const corpus::Sharding& sharding, const WorkFolder& work,
                        const std::vector<PieceFacts>& kept, const std::vector<KeptCounts>& counts);

  std::string out_path_, annotate_path_, manifest_path_;
  bool to_folder_ = false;
  std::vector<std::string> folder_names_;  // Per pool file, in a folder output.
  std::string folder_build_;               // Where the folder output is built.
  AtomicFile kept_, annotations_, manifest_;
  nlohmann::json output_json_, annotations_json_;
  bool manifest_named_ = false;
  bool committed_ = false;
  bool found_orphan_ = false;
  std::vector<std::string> made_folders_;  // Outermost first.
};

}  // namespace preflight::select
