#include "select/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "base/json.h"
#include "base/sha256.h"
#include "corpus/chunk_reader.h"

namespace preflight::select {
namespace {

namespace fs = std::filesystem;

// A path a selection may rename a file onto: missing or a regular file.
Status CheckDestination(const std::string& path, const std::string& flag) {
  if (IsDirectory(path)) {
    return Status::InvalidArgument(path + ": is a folder; " + flag +
                                   " needs a file path (for example " +
                                   JoinPath(path, "kept.jsonl") + ")");
  }
  return CheckReplaceableFile(path, flag);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string WithoutSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The files a former selection's manifest lists as its folder output ("output.files"): none
// when the manifest is missing, not JSON or lists none; Corruption naming the JSON path when an
// entry of the list is malformed.
Result<std::vector<std::string>> ListedFiles(const std::string& manifest_path) {
  std::vector<std::string> listed;
  Result<nlohmann::json> doc = ReadJsonFile(manifest_path);
  if (!doc.ok() || JsonAt(*doc, {"output", "files"}).is_null()) return listed;
  const JsonReader manifest(*doc, manifest_path);
  PF_ASSIGN_OR_RETURN(JsonReader output, manifest.Field("output"));
  PF_ASSIGN_OR_RETURN(JsonReader files, output.Field("files"));
  PF_ASSIGN_OR_RETURN(std::vector<JsonReader> entries, files.Elements());
  for (const JsonReader& entry : entries) {
    PF_ASSIGN_OR_RETURN(std::string path, entry.String("path", ""));
    listed.push_back(std::move(path));
  }
  return listed;
}

// The regular files under `dir`, relative and sorted; false when something else is there.
bool ListRegular(const std::string& dir, std::vector<std::string>* rels) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink()) return false;
    if (it->is_directory()) continue;
    if (!it->is_regular_file()) return false;
    rels->push_back(fs::relative(it->path(), dir).string());
  }
  std::sort(rels->begin(), rels->end());
  return !ec;
}

// Flushes everything written to the file system that holds `path` (best effort).
void SyncFileSystem(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::syncfs(fd);
  ::close(fd);
}

// Appends `path`'s bytes to `out`, hashing them.
Status CopyInto(const std::string& path, Sha256& sha, AtomicFile& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::IOError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::vector<char> buf(4 << 20);
  size_t n = 0;
  Status st;
  while (st.ok() && (n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    sha.Update(std::string_view(buf.data(), n));
    st = out.Write(std::string_view(buf.data(), n));
  }
  if (st.ok() && std::ferror(f)) st = Status::IOError(path + ": read failed");
  std::fclose(f);
  return st;
}

// The decompressed content of the pieces, in order, into `sha`.
Status HashContent(const std::vector<PieceFacts>& pieces, Compression c, Sha256& sha) {
  const corpus::Format format =
      c == Compression::kZstd ? corpus::Format::kJsonlZstd : corpus::Format::kJsonlGzip;
  for (const PieceFacts& p : pieces) {
    PF_ASSIGN_OR_RETURN(auto reader, corpus::ChunkReader::OpenAs(p.path, format, 1ull << 40));
    reader->SkipHash();
    while (true) {
      PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
      if (chunk.empty()) break;
      sha.Update(chunk);
    }
  }
  return Status::Ok();
}

// One file's facts as the manifest lists them.
nlohmann::json FileJson(const std::string& path, Compression c, const std::string& sha256,
                        uint64_t bytes, const std::string& content_sha256, uint64_t content) {
  nlohmann::json j = {{"path", path}, {"sha256", sha256}, {"bytes", bytes}};
  if (c != Compression::kNone) {
    j["compression"] = CompressionName(c);
    j["jsonl_sha256"] = content_sha256;
    j["jsonl_bytes"] = content;
  }
  return j;
}

// Joins pieces into `out` (an opened temporary): its hash, and its content's.
Result<nlohmann::json> JoinPieces(const std::vector<PieceFacts>& pieces, Compression c,
                                  const std::string& name, AtomicFile& out) {
  Sha256 sha;
  uint64_t content = 0;
  for (const PieceFacts& p : pieces) {
    PF_RETURN_IF_ERROR(CopyInto(p.path, sha, out));
    content += p.content_bytes;
  }
  PF_RETURN_IF_ERROR(out.Flush());
  const std::string file_sha = sha.HexDigest();
  std::string content_sha = file_sha;
  if (c != Compression::kNone) {
    Sha256 inner;
    PF_RETURN_IF_ERROR(HashContent(pieces, c, inner));
    content_sha = inner.HexDigest();
  }
  return FileJson(name, c, file_sha, out.bytes_written(), content_sha, content);
}

// A Parquet file's kept rows, JSONL in zstd: "000_00000.parquet" -> "000_00000.jsonl.zst" (the
// extension .parquet, .parq or .pq replaced, else ".jsonl.zst" added).
std::string ParquetKeptName(const std::string& name) {
  const size_t slash = name.rfind('/');
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)) {
    std::string ext = name.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".parquet" || ext == ".parq" || ext == ".pq") {
      return name.substr(0, dot) + ".jsonl.zst";
    }
  }
  return name + ".jsonl.zst";
}

}  // namespace

bool IsFolderOutput(const std::string& out_path) {
  return (!out_path.empty() && out_path.back() == '/') || IsDirectory(out_path);
}

Compression KeptCompressionOf(const std::string& out_path, const corpus::Sharding& sharding,
                              uint32_t shard) {
  if (!IsFolderOutput(out_path)) return CompressionFor(out_path);
  switch (sharding.FileOf(shard).format) {
    case corpus::Format::kJsonlZstd:
    case corpus::Format::kParquet:  // Compressed as it was: JSONL in zstd.
      return Compression::kZstd;
    case corpus::Format::kJsonlGzip:
      return Compression::kGzip;
    default:
      return Compression::kNone;
  }
}

std::string KeptPiecePath(const WorkFolder& work, uint32_t shard) {
  return work.File("kept-" + std::to_string(shard));
}

std::string NotesPiecePath(const WorkFolder& work, uint32_t shard) {
  return work.File("notes-" + std::to_string(shard));
}

SelectionOutputs::~SelectionOutputs() {
  if (committed_) return;
  kept_.Abandon();
  annotations_.Abandon();
  manifest_.Abandon();
  if (manifest_named_) std::remove(manifest_path_.c_str());  // a manifest of no output
  for (auto it = made_folders_.rbegin(); it != made_folders_.rend(); ++it) ::rmdir(it->c_str());
}

Status SelectionOutputs::MakeParents(const std::string& path, const std::string& flag) {
  std::vector<std::string> missing;
  for (std::string dir = DirName(path); !dir.empty() && dir != "." && dir != "/";
       dir = DirName(dir)) {
    if (PathExists(dir)) break;
    missing.push_back(dir);
    if (DirName(dir) == dir) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST) {
      return Status::InvalidArgument(path + ": cannot create the folder " + *it + " (" +
                                     std::strerror(errno) + ") for " + flag +
                                     "; choose a writable place");
    }
    made_folders_.push_back(*it);
  }
  return Status::Ok();
}

// A folder output may replace an empty folder or a former selection's output folder (its
// manifest beside it lists exactly the files it holds), nothing else.
Status SelectionOutputs::CheckFolderOutput(const std::string& manifest_path) {
  if (!PathExists(out_path_)) return Status::Ok();
  if (IsSymbolicLink(out_path_) || !IsDirectory(out_path_)) {
    return Status::InvalidArgument(out_path_ + ": --out names a folder output (it ends in '/') " +
                                   "but this is not a folder; choose another path");
  }
  std::vector<std::string> have;
  const bool plain = ListRegular(out_path_, &have);
  if (plain && have.empty()) return Status::Ok();
  PF_ASSIGN_OR_RETURN(std::vector<std::string> listed, ListedFiles(manifest_path));
  std::sort(listed.begin(), listed.end());
  if (plain && listed == have) return Status::Ok();
  return Status::InvalidArgument(
      out_path_ + ": --out names a folder that holds files other than a former selection's " +
      "output (its manifest " + manifest_path + " does not list them); choose an empty or new " +
      "folder");
}

Status SelectionOutputs::Open(const std::string& out_path, const std::string& annotate_path,
                              const std::string& manifest_path) {
  to_folder_ = IsFolderOutput(out_path);
  out_path_ = WithoutSlash(out_path);
  annotate_path_ = annotate_path;
  manifest_path_ = manifest_path;
  // Every path before anything is made: a refused one leaves no folder and no temporary.
  if (to_folder_) {
    PF_RETURN_IF_ERROR(CheckFolderOutput(manifest_path));
  } else {
    PF_RETURN_IF_ERROR(CheckDestination(out_path_, "--out"));
  }
  if (!annotate_path.empty()) PF_RETURN_IF_ERROR(CheckDestination(annotate_path, "--annotate"));
  PF_RETURN_IF_ERROR(CheckDestination(manifest_path, "--manifest"));
  found_orphan_ = !to_folder_ && IsRegularFile(out_path_) && !PathExists(manifest_path);
  PF_RETURN_IF_ERROR(MakeParents(out_path_, "--out"));
  if (!to_folder_) {
    if (Status st = kept_.Open(out_path_); !st.ok()) {
      return Status::InvalidArgument(st.message() + " (--out)");
    }
  }
  if (!annotate_path.empty()) {
    PF_RETURN_IF_ERROR(MakeParents(annotate_path, "--annotate"));
    if (Status st = annotations_.Open(annotate_path); !st.ok()) {
      return Status::InvalidArgument(st.message() + " (--annotate)");
    }
  }
  PF_RETURN_IF_ERROR(MakeParents(manifest_path, "--manifest"));
  if (Status st = manifest_.Open(manifest_path); !st.ok()) {
    return Status::InvalidArgument(st.message() + " (--manifest)");
  }
  return Status::Ok();
}

Status SelectionOutputs::NameFolderFiles(const corpus::Sharding& sharding) {
  if (!to_folder_) return Status::Ok();
  folder_names_.clear();
  std::set<std::string> seen;
  const bool one_folder = sharding.inputs.size() == 1 && sharding.inputs[0].folder;
  for (const corpus::ShardedFile& f : sharding.files) {
    const corpus::ShardedInput& in = sharding.inputs[f.input];
    std::string name = one_folder  ? f.rel
                       : in.folder ? JoinPath(BaseName(WithoutSlash(in.path)), f.rel)
                                   : BaseName(f.path);
    if (f.format == corpus::Format::kPlainText) name += ".jsonl";
    if (f.format == corpus::Format::kParquet) name = ParquetKeptName(name);
    if (!seen.insert(name).second) {
      return Status::InvalidArgument(
          "--out " + out_path_ + "/: two pool files would both be written as " + name +
          "; give the pool as one folder, rename one of them, or write one file (--out FILE)");
    }
    folder_names_.push_back(std::move(name));
  }
  return Status::Ok();
}

Status SelectionOutputs::AssembleFile(const std::vector<PieceFacts>& kept) {
  PF_ASSIGN_OR_RETURN(output_json_, JoinPieces(kept, CompressionFor(out_path_), out_path_, kept_));
  return Status::Ok();
}

Status SelectionOutputs::AssembleFolder(const corpus::Sharding& sharding, const WorkFolder& work,
                                        const std::vector<PieceFacts>& kept,
                                        const std::vector<KeptCounts>& counts) {
  folder_build_ = work.File("out");
  std::error_code ec;
  fs::remove_all(folder_build_, ec);  // A killed run's half-built folder.
  PF_RETURN_IF_ERROR(MakeDirectories(folder_build_));
  nlohmann::json files = nlohmann::json::array();
  std::vector<std::pair<std::string, std::string>> named;  // (name, sha256), sorted below
  uint64_t total = 0;
  for (uint32_t i = 0; i < sharding.files.size(); ++i) {
    const corpus::ShardedFile& f = sharding.files[i];
    const std::string dest = JoinPath(folder_build_, folder_names_[i]);
    PF_RETURN_IF_ERROR(MakeDirectories(DirName(dest)));
    const Compression c = KeptCompressionOf(out_path_ + "/", sharding, f.first_shard);
    nlohmann::json j;
    if (f.shards == 1) {
      // Linked, not moved: the piece stays for a rerun until the selection commits.
      const PieceFacts& p = kept[f.first_shard];
      fs::create_hard_link(p.path, dest, ec);
      if (ec) fs::copy_file(p.path, dest, ec);
      if (ec)
        return Status::IOError(dest + ": cannot put the piece in place (" + ec.message() + ")");
      j = FileJson(folder_names_[i], c, p.file_sha256, p.file_bytes, p.content_sha256,
                   p.content_bytes);
    } else {  // A cut plain JSONL or Parquet file: its pieces joined (zstd pieces: frames).
      AtomicFile out;
      PF_RETURN_IF_ERROR(out.Open(dest));
      std::vector<PieceFacts> pieces(kept.begin() + f.first_shard,
                                     kept.begin() + f.first_shard + f.shards);
      PF_ASSIGN_OR_RETURN(j, JoinPieces(pieces, c, folder_names_[i], out));
      PF_RETURN_IF_ERROR(out.Commit());
    }
    j["from"] = f.path;
    j["docs"] = counts[i].docs;
    j["text_bytes"] = counts[i].text_bytes;
    j["pool_docs"] = counts[i].pool_docs;
    total += j["bytes"].get<uint64_t>();
    named.emplace_back(folder_names_[i], j["sha256"].get<std::string>());
    files.push_back(std::move(j));
  }
  std::sort(named.begin(), named.end());
  std::vector<std::string> names, shas;
  for (auto& [n, s] : named) names.push_back(n), shas.push_back(s);
  output_json_ = {{"path", out_path_ + "/"},
                  {"folder", true},
                  {"sha256", corpus::FolderSha256(names, shas)},
                  {"bytes", total},
                  {"files", files}};
  return Status::Ok();
}

Status SelectionOutputs::Assemble(const corpus::Sharding& sharding, const WorkFolder& work,
                                  const std::vector<PieceFacts>& kept,
                                  const std::vector<PieceFacts>& notes,
                                  const std::vector<KeptCounts>& counts) {
  if (to_folder_) {
    PF_RETURN_IF_ERROR(AssembleFolder(sharding, work, kept, counts));
  } else {
    PF_RETURN_IF_ERROR(AssembleFile(kept));
  }
  if (annotating()) {
    PF_ASSIGN_OR_RETURN(annotations_json_, JoinPieces(notes, CompressionFor(annotate_path_),
                                                      annotate_path_, annotations_));
  }
  return Status::Ok();
}

Status SelectionOutputs::CommitManifest(std::string_view manifest_text) {
  // A former output beside the new manifest would look finished and disagree with it.
  std::vector<std::string> former;
  if (!to_folder_ && IsRegularFile(out_path_)) former.push_back(out_path_);
  if (annotating() && IsRegularFile(annotate_path_)) former.push_back(annotate_path_);
  for (const std::string& f : former) {
    if (std::remove(f.c_str()) != 0) {
      return Status::IOError(f + ": cannot remove the former output (" + std::strerror(errno) +
                             ")");
    }
  }
  if (to_folder_ && IsDirectory(out_path_)) {  // Checked at Open: empty, or a former output.
    std::error_code ec;
    fs::remove_all(out_path_, ec);
    if (ec) {
      return Status::IOError(out_path_ + ": cannot remove the former output (" + ec.message() +
                             ")");
    }
  }
  PF_RETURN_IF_ERROR(manifest_.Write(manifest_text));
  PF_RETURN_IF_ERROR(manifest_.Commit());
  manifest_named_ = true;
  return Status::Ok();
}

Status SelectionOutputs::CommitData() {
  if (annotating()) PF_RETURN_IF_ERROR(annotations_.Commit());
  if (to_folder_) {
    // Its files were written as scratch (select/piece.h): on disk before they are named.
    SyncFileSystem(folder_build_);
    if (std::rename(folder_build_.c_str(), out_path_.c_str()) != 0) {
      return Status::IOError(out_path_ + ": cannot name the output folder (" +
                             std::strerror(errno) + ")");
    }
    SyncFileSystem(out_path_);
  } else {
    PF_RETURN_IF_ERROR(kept_.Commit());
  }
  committed_ = true;
  return Status::Ok();
}

}  // namespace preflight::select
