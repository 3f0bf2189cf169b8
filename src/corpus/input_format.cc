#include "corpus/input_format.h"

#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/file.h"

namespace preflight::corpus {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// `path` with its last extension replaced by ".jsonl": where a conversion command writes.
std::string JsonlName(const std::string& path) {
  std::string base = BaseName(path);
  const size_t dot = base.rfind('.');
  std::string stem = dot == std::string::npos || dot == 0
                         ? path
                         : path.substr(0, path.size() - (base.size() - dot));
  return stem + ".jsonl";
}

// A path inside a Python string literal in single quotes.
std::string Py(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return "'" + out + "'";
}

// `how`: a command that converts the file, or (starting with "!") a sentence saying what to do.
Status Refuse(const std::string& path, const std::string& what, const std::string& how) {
  return Status::InvalidArgument(
      path + ": " + what +
      "; preflight reads JSONL (.jsonl, .jsonl.gz, .jsonl.zst), Parquet and UTF-8 text. " +
      (how[0] == '!' ? how.substr(1) : "Convert it with: " + how));
}

constexpr const char* kExportJsonl =
    "!Export it as JSONL (one {\"text\": ...} object per line) from the program that wrote it.";

std::string PandasCommand(const std::string& path, const std::string& reader) {
  return "python3 -c \"import pandas as pd; pd." + reader + "(" + Py(path) + ").to_json(" +
         Py(JsonlName(path)) + ", orient='records', lines=True, force_ascii=False)\"";
}

// Formats named by their magic bytes that preflight does not read.
Status RefuseByMagic(const std::string& path, std::string_view head) {
  if (StartsWith(head, "PARE")) {
    return Refuse(path, "an encrypted Parquet file (magic \"PARE\" at byte 0)",
                  "!Decrypt it with the program and key that wrote it (for example pyarrow with "
                  "its decryption properties), writing plain Parquet or JSONL.");
  }
  if (StartsWith(head, "ARROW1") || StartsWith(head, "FEA1")) {
    return Refuse(path,
                  "an Arrow/Feather file (magic \"" +
                      std::string(head.substr(0, head[0] == 'A' ? 6 : 4)) + "\" at byte 0)",
                  PandasCommand(path, "read_feather"));
  }
  if (StartsWith(head, std::string_view("\xff\xff\xff\xff", 4))) {
    return Refuse(path,
                  "an Arrow IPC stream (continuation marker ff ff ff ff at byte 0), as in a "
                  "Hugging Face datasets cache or save_to_disk folder",
                  "python3 -c \"import datasets; datasets.Dataset.from_file(" + Py(path) +
                      ").to_json(" + Py(JsonlName(path)) + ")\"");
  }
  struct Packed {
    std::string_view magic, name, command;
  };
  static constexpr Packed kPacked[] = {
      {"BZh", "bzip2", "bunzip2 -k "},
      {"\xfd"
       "7zXZ",
       "xz", "xz -dk "},
      {"\x04\x22\x4d\x18", "lz4", "lz4 -d "},
      {"PK\x03\x04", "zip", "unzip "},
      {"Obj\x01", "Avro", "avro-tools tojson "},
      {"ORC", "ORC", "orc-contents "},
  };
  for (const Packed& p : kPacked) {
    if (StartsWith(head, p.magic)) {
      return Refuse(path, "a " + std::string(p.name) + " file (magic bytes at byte 0)",
                    std::string(p.command) + path + " (then give preflight the JSONL inside)");
    }
  }
  if (head.size() >= 262 && head.substr(257, 5) == "ustar") {
    return Refuse(path, "a tar archive (\"ustar\" at byte 257)",
                  "mkdir x && tar -xf " + path +
                      " -C x (then give preflight the folder x, or the JSONL in it)");
  }
  return Status::Ok();
}

// NUL bytes or many control characters: a binary file, never read as text.
Status RefuseBinary(const std::string& path, std::string_view head) {
  size_t control = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(head[i]);
    if (c == 0) {
      return Refuse(path,
                    "a binary file (NUL byte at byte offset " + std::to_string(i) + "), not text",
                    kExportJsonl);
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b) ++control;
  }
  if (control > 8 && control * 100 > head.size()) {
    return Refuse(path,
                  "a binary file (" + std::to_string(control) + " control bytes in its first " +
                      std::to_string(head.size()) + "), not text",
                  kExportJsonl);
  }
  return Status::Ok();
}

// Whether `head` is UTF-8, allowing a character cut by the end of a full-size head.
bool HeadIsUtf8(std::string_view head) {
  const size_t cut_max = head.size() == kSniffBytes ? 3 : 0;
  for (size_t cut = 0; cut <= cut_max && cut <= head.size(); ++cut) {
    if (simdjson::validate_utf8(head.data(), head.size() - cut)) return true;
  }
  return false;
}

// The first character after a UTF-8 byte-order mark and white space, or '\0'.
char FirstCharacter(std::string_view head) {
  if (StartsWith(head, "\xef\xbb\xbf")) head.remove_prefix(3);
  for (char c : head) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
  }
  return '\0';
}

std::string StripSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool IsHidden(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

Status RefuseSaveToDisk(const std::string& dir, const std::vector<std::string>& files) {
  bool state = false, info = false, dict = false;
  for (const std::string& rel : files) {
    const std::string base = BaseName(rel);
    state = state || base == "state.json";
    info = info || base == "dataset_info.json";
    dict = dict || base == "dataset_dict.json";
  }
  if (!dict && !(state && info)) return Status::Ok();
  return Refuse(dir,
                "a Hugging Face datasets save_to_disk folder (" +
                    std::string(dict ? "dataset_dict.json" : "state.json, dataset_info.json") +
                    " and Arrow shards), not documents",
                "python3 -c \"import datasets; datasets.load_from_disk(" + Py(dir) + ")" +
                    (dict ? "['train']" : "") + ".to_json(" + Py(StripSlash(dir) + ".jsonl") +
                    ")\"" + (dict ? " (once per split)" : ""));
}

}  // namespace

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kJsonl:
      return "JSONL";
    case Format::kJsonlGzip:
      return "gzip JSONL";
    case Format::kJsonlZstd:
      return "zstd JSONL";
    case Format::kPlainText:
      return "plain text";
    case Format::kParquet:
      return "Parquet";
  }
  return "?";
}

bool IsSplittable(Format format) { return format == Format::kJsonl; }

Result<Format> DetectFormat(const std::string& path, std::string_view head) {
  if (StartsWith(head, "\x1f\x8b")) return Format::kJsonlGzip;
  if (StartsWith(head, "\x28\xb5\x2f\xfd")) return Format::kJsonlZstd;
  if (StartsWith(head, "PAR1")) return Format::kParquet;
  PF_RETURN_IF_ERROR(RefuseByMagic(path, head));
  std::string name = BaseName(path);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // A Parquet name without the magic: read as named, so that the reader names the damage.
  if (EndsWith(name, ".parquet") || EndsWith(name, ".parq") || EndsWith(name, ".pq")) {
    return Format::kParquet;
  }
  PF_RETURN_IF_ERROR(RefuseBinary(path, head));
  // A compressed name without the magic: read as named, so that the decoder names the damage
  // ("not a valid zstd stream near byte offset 0") instead of the text being taken as JSONL.
  if (EndsWith(name, ".gz")) return Format::kJsonlGzip;
  if (EndsWith(name, ".zst") || EndsWith(name, ".zstd")) return Format::kJsonlZstd;
  const char first = FirstCharacter(head);
  if (EndsWith(name, ".json") && first == '[') {
    return Refuse(path, "a JSON array (it starts with '['), not JSON lines",
                  "jq -c '.[]' " + path + " > " + JsonlName(path));
  }
  if (EndsWith(name, ".jsonl") || EndsWith(name, ".json") || EndsWith(name, ".ndjson")) {
    return Format::kJsonl;
  }
  const bool text_name = EndsWith(name, ".txt") || EndsWith(name, ".md") || EndsWith(name, ".text");
  if (!text_name && first == '{') return Format::kJsonl;
  // A text name says text: invalid UTF-8 there is a bad document (skippable), as deeper in.
  if (!text_name && !HeadIsUtf8(head)) {
    return Refuse(path, "not UTF-8 text (binary, or text in another encoding)",
                  "iconv -f latin1 -t utf-8 " + path + " > " + path + ".utf8 (if it is text)");
  }
  return Format::kPlainText;
}

Status CheckDecompressedHead(const std::string& path, std::string_view head) {
  const std::string inside = path + " (decompressed)";
  if (StartsWith(head, "\x1f\x8b") || StartsWith(head, "\x28\xb5\x2f\xfd")) {
    return Refuse(inside, "compressed twice", "decompressing it once more");
  }
  if (StartsWith(head, "PAR1")) {
    return Refuse(inside, "a Parquet file, compressed whole",
                  "!Decompress it (zstd -d or gunzip -k " + path +
                      ") and give preflight the .parquet file: Parquet compresses its own pages.");
  }
  PF_RETURN_IF_ERROR(RefuseByMagic(inside, head));
  return RefuseBinary(inside, head);
}

Result<Format> DetectFileFormat(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::InvalidArgument(path + ": cannot open (" + std::strerror(err) + ")");
  }
  std::string head(kSniffBytes, '\0');
  size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return Status::IOError(path + ": read failed at byte 0 (" + why + ")");
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  head.resize(got);
  return DetectFormat(path, head);
}

namespace {

// The kinds of file a folder may hold, one at a time.
enum class Kind { kJsonl, kParquet, kText };

Kind KindOf(Format format) {
  if (format == Format::kParquet) return Kind::kParquet;
  return format == Format::kPlainText ? Kind::kText : Kind::kJsonl;
}

constexpr const char* kKindNames[] = {"JSONL", "Parquet", "plain-text"};

// Refuses file `rel` of folder `dir` when it is another kind of file than one listed before it
// (`first`: the first file of each kind), naming one of each.
Status CheckOneKind(const std::string& dir, const std::string& rel, Format format,
                    std::string (&first)[3]) {
  const int kind = static_cast<int>(KindOf(format));
  if (first[kind].empty()) first[kind] = rel;
  for (int other = 0; other < 3; ++other) {
    if (other == kind || first[other].empty()) continue;
    const int a = std::min(kind, other), b = std::max(kind, other);
    return Status::InvalidArgument(
        dir + ": holds both " + kKindNames[a] + " (" + first[a] + ") and " + kKindNames[b] +
        " files (" + first[b] +
        "); a folder is read as JSONL shards, Parquet files or plain-text "
        "documents, one kind only: move the other files out, or give preflight the subfolder that "
        "holds the documents");
  }
  return Status::Ok();
}

// A file with its format, and a Parquet file's row groups from its checked footer.
Result<InputFile> Listed(std::string path, std::string rel, Format format) {
  InputFile file{std::move(path), std::move(rel), format, {}};
  if (format == Format::kParquet) {
    PF_ASSIGN_OR_RETURN(parquet::FileLayout layout, parquet::ReadLayout(file.path));
    file.row_groups = std::move(layout.row_groups);
  }
  return file;
}

}  // namespace

Result<std::vector<InputFile>> ListInputFiles(const std::string& path) {
  if (!IsDirectory(path)) {
    PF_ASSIGN_OR_RETURN(Format format, DetectFileFormat(path));
    PF_ASSIGN_OR_RETURN(InputFile file, Listed(path, "", format));
    return std::vector<InputFile>{std::move(file)};
  }
  std::vector<std::string> rels;
  std::error_code ec;
  namespace fs = std::filesystem;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (IsHidden(it->path())) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) rels.push_back(fs::relative(it->path(), path).string());
  }
  if (ec) return Status::IOError(path + ": cannot list folder (" + ec.message() + ")");
  std::sort(rels.begin(), rels.end());
  PF_RETURN_IF_ERROR(RefuseSaveToDisk(path, rels));
  std::vector<InputFile> files;
  std::string first[3];  // The first file of each kind.
  for (const std::string& rel : rels) {
    // The kind is checked before a Parquet footer is read: a mixed folder is named as such.
    PF_ASSIGN_OR_RETURN(Format format, DetectFileFormat(JoinPath(path, rel)));
    PF_RETURN_IF_ERROR(CheckOneKind(path, rel, format, first));
    PF_ASSIGN_OR_RETURN(InputFile file, Listed(JoinPath(path, rel), rel, format));
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace preflight::corpus
