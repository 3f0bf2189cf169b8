#include "corpus/scanner.h"

#include <omp.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "corpus/chunk_reader.h"
#include "corpus/input_format.h"

namespace preflight::corpus {
namespace {

constexpr std::string_view kBom = "\xef\xbb\xbf";

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

uint64_t MaxLine(const ReadOptions& options) { return options.max_document_bytes * 2 + (1u << 20); }

// Splits a line-aligned chunk into records, numbering lines and records as it goes.
void SplitLines(std::string_view chunk, uint64_t chunk_offset, uint32_t input,
                std::string_view file, int64_t& line_no, uint64_t& next_index,
                std::vector<Record>& out, uint64_t& blank) {
  out.clear();
  const char* p = chunk.data();
  const char* end = p + chunk.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
    const char* line_end = nl ? nl : end;
    std::string_view line(p, line_end - p);
    ++line_no;
    if (IsBlank(line)) {
      ++blank;
    } else {
      Record r;
      r.index = next_index++;
      r.input = input;
      r.line_no = line_no;
      r.offset = chunk_offset + (p - chunk.data());
      r.line = line;
      r.file = file;
      out.push_back(r);
    }
    p = nl ? nl + 1 : end;
  }
}

// Parses with the DOM parser, which validates the whole line (JSON and UTF-8), not just the
// fields we read. `padded` promises SIMDJSON_PADDING readable bytes after the line. On failure
// returns false and says why in `reason` (built only then: this runs once per document).
bool ParseWith(simdjson::dom::parser& parser, std::string_view line, bool padded,
               const ReadOptions& options, std::string_view* text, std::string* reason) {
  simdjson::dom::element doc;
  auto error = padded ? parser.parse(line.data(), line.size(), false).get(doc)
                      : parser.parse(line.data(), line.size(), true).get(doc);
  if (error && line.substr(0, kBom.size()) == kBom) {
    *reason =
        "starts with a UTF-8 byte-order mark (EF BB BF) inside the file (files joined with "
        "their marks?); remove the three bytes at the start of this line";
    return false;
  }
  if (error == simdjson::UTF8_ERROR) {
    *reason = "invalid UTF-8";
    return false;
  }
  if (error) {
    *reason = "malformed JSON (" + std::string(simdjson::error_message(error)) + ")";
    return false;
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) {
    *reason = "not a JSON object";
    return false;
  }
  simdjson::dom::element field;
  if (obj[options.text_field].get(field)) {
    *reason = "no \"" + options.text_field + "\" field";
    return false;
  }
  if (field.get_string().get(*text)) {
    *reason = "field \"" + options.text_field + "\" is not a string";
    return false;
  }
  if (text->size() > options.max_document_bytes) {
    *reason = "document of " + std::to_string(text->size()) + " bytes is over the limit of " +
              std::to_string(options.max_document_bytes) + " bytes";
    return false;
  }
  return true;
}

std::string BomNote(const std::string& file) {
  return file + ": starts with a UTF-8 byte-order mark (EF BB BF); it was skipped";
}

// Streams a file's bytes into `sha`, adding their count to `bytes`.
Status HashFileInto(const std::string& path, Sha256& sha, uint64_t& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return PathExists(path) ? Status::InvalidArgument(path + ": cannot open")
                            : Status::NotFound(path + ": no such file");
  }
  std::vector<char> buf(1 << 20);
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    sha.Update(std::string_view(buf.data(), n));
    bytes += n;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IOError(path + ": read failed after byte " + std::to_string(bytes));
  return Status::Ok();
}

// A folder's SHA-256 covers "relative path\0bytes on disk\0" for every file in order.
void HashFolderEntry(Sha256* folder_sha, const InputFile& file, std::string_view bytes) {
  if (folder_sha == nullptr) return;
  folder_sha->Update(file.rel);
  folder_sha->Update(std::string_view("\0", 1));
  folder_sha->Update(bytes);
  folder_sha->Update(std::string_view("\0", 1));
}

// Opens a JSONL file of an input: a file input reads `part` of itself; a folder's file (a
// non-empty `rel`) is read whole. With `folder_sha`, its bytes go into the folder's hash after
// "relative path\0" (the closing "\0" is the caller's, once the file is read).
Result<std::unique_ptr<ChunkReader>> OpenJsonl(const InputFile& file, const ShardSpec::Part& part,
                                               const ReadOptions& options, Sha256* folder_sha) {
  const bool whole = !file.rel.empty();
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                      ChunkReader::OpenAs(file.path, file.format, MaxLine(options),
                                          whole ? 0 : part.begin, whole ? UINT64_MAX : part.end));
  if (folder_sha) {
    folder_sha->Update(file.rel);
    folder_sha->Update(std::string_view("\0", 1));
    reader->HashInto(folder_sha);
  }
  return reader;
}

// A plain-text file as one document: its record line is a synthesised JSONL line
// {"id": relative path, "text": content}, so that selection writes JSONL either way.
struct TextDocument {
  std::string content;  // Without a leading byte-order mark.
  std::string line;     // Empty when the document is bad.
  std::string reason;   // Why it is bad, or empty.
  bool bom = false;
};

Result<TextDocument> ReadTextDocument(const InputFile& file, const ReadOptions& options,
                                      Sha256* folder_sha) {
  TextDocument doc;
  PF_ASSIGN_OR_RETURN(doc.content, ReadFileToString(file.path));
  HashFolderEntry(folder_sha, file, doc.content);
  if (doc.content.compare(0, kBom.size(), kBom) == 0) {
    doc.bom = true;
    doc.content.erase(0, kBom.size());
  }
  if (doc.content.size() > options.max_document_bytes) {
    doc.reason = "document of " + std::to_string(doc.content.size()) +
                 " bytes is over the limit of " + std::to_string(options.max_document_bytes) +
                 " bytes";
  } else if (!simdjson::validate_utf8(doc.content)) {
    doc.reason = "invalid UTF-8";
  } else {
    doc.line =
        nlohmann::json{{"id", file.rel.empty() ? file.path : file.rel}, {"text", doc.content}}
            .dump();
  }
  return doc;
}

// The files of one input, and whether this process reads it.
struct ListedInput {
  bool read = false;
  std::vector<InputFile> files;
};

// The files of every input, checked before any document is read. A part of an input that cannot
// be cut (a folder, a compressed or plain-text file) reads it whole when it starts at byte 0, and
// not at all otherwise.
Result<std::vector<ListedInput>> ListAll(const std::vector<std::string>& paths,
                                         const ShardSpec* shard) {
  std::vector<ListedInput> all(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    const ShardSpec::Part* part = shard ? &shard->inputs[i] : nullptr;
    if (part && !part->read) continue;
    PF_ASSIGN_OR_RETURN(all[i].files, ListInputFiles(paths[i]));
    const std::vector<InputFile>& files = all[i].files;
    const bool cuttable =
        files.size() == 1 && files[0].rel.empty() && IsSplittable(files[0].format);
    all[i].read = !part || cuttable || (part->begin == 0 && part->end > 0);
    if (!all[i].read) all[i].files.clear();
  }
  return all;
}

// Bytes on disk this process will read (for progress).
uint64_t DiskBytes(const std::vector<ListedInput>& all, const ShardSpec* shard) {
  uint64_t total = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    for (const InputFile& f : all[i].files) {
      auto size = FileSize(f.path);
      if (!size.ok()) continue;
      if (shard && f.rel.empty() && IsSplittable(f.format)) {
        const ShardSpec::Part& part = shard->inputs[i];
        total += std::min(*size, part.end) - std::min(*size, part.begin);
      } else {
        total += *size;
      }
    }
  }
  return total;
}

// What ScanDocuments carries from file to file.
struct DocumentScan {
  DocumentScan(const ReadOptions& o, const DocumentVisitor& v, const ChunkHook& hook, int t)
      : options(o), visit(v), before_chunk(hook), threads(t), parsers(t), bad_by_thread(t) {}

  const ReadOptions& options;
  const DocumentVisitor& visit;
  const ChunkHook& before_chunk;
  int threads;
  std::vector<simdjson::dom::parser> parsers;
  std::vector<std::vector<BadLine>> bad_by_thread;
  std::vector<Record> records;
  uint64_t next_index = 0;
  ScanSummary total;

  // Records bad lines (in index order); fails on the first unless skip_bad.
  Status TakeBad(std::vector<BadLine>& bad, InputSummary& summary) {
    if (bad.empty()) return Status::Ok();
    std::sort(bad.begin(), bad.end(),
              [](const BadLine& a, const BadLine& b) { return a.index < b.index; });
    if (!options.skip_bad) return Status::InvalidArgument(bad.front().Message());
    for (BadLine& b : bad) {
      if (total.bad_examples.size() < 10) total.bad_examples.push_back(b.Message());
      total.bad_lines.push_back(std::move(b));
    }
    summary.bad += bad.size();
    bad.clear();
    return Status::Ok();
  }
};

Status ScanTextFile(DocumentScan& scan, const InputFile& file, uint32_t input, Sha256* folder_sha,
                    InputSummary& summary) {
  PF_ASSIGN_OR_RETURN(TextDocument doc, ReadTextDocument(file, scan.options, folder_sha));
  if (doc.bom) scan.total.notes.push_back(BomNote(file.path));
  summary.file_bytes += doc.content.size() + (doc.bom ? kBom.size() : 0);
  ++summary.records;
  Record r;
  r.index = scan.next_index++;
  r.input = input;
  r.file = file.path;
  if (!doc.reason.empty()) {
    std::vector<BadLine> bad = {{file.path, 0, r.index, doc.reason}};
    return scan.TakeBad(bad, summary);
  }
  r.line = doc.line;
  ++summary.docs;
  summary.text_bytes += doc.content.size();
  if (scan.before_chunk) scan.before_chunk(scan.next_index);
  scan.visit(0, r, doc.content);
  return Status::Ok();
}

// Parses one chunk's records on the scan's threads.
Status ParseChunk(DocumentScan& scan, InputSummary& summary) {
  const int64_t n = static_cast<int64_t>(scan.records.size());
  const int threads = scan.threads;
  std::vector<uint64_t> docs(threads, 0), bytes(threads, 0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (int64_t i = 0; i < n; ++i) {
    const int t = omp_get_thread_num();
    const Record& r = scan.records[i];
    std::string_view text;
    std::string reason;
    if (!ParseWith(scan.parsers[t], r.line, /*padded=*/true, scan.options, &text, &reason)) {
      scan.bad_by_thread[t].push_back({std::string(r.file), r.line_no, r.index, std::move(reason)});
      continue;
    }
    ++docs[t];
    bytes[t] += text.size();
    scan.visit(t, r, text);
  }
  // Bad lines in file order, whatever thread found them.
  std::vector<BadLine> bad;
  for (auto& v : scan.bad_by_thread) {
    bad.insert(bad.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
    v.clear();
  }
  PF_RETURN_IF_ERROR(scan.TakeBad(bad, summary));
  summary.records += scan.records.size();
  for (int t = 0; t < threads; ++t) {
    summary.docs += docs[t];
    summary.text_bytes += bytes[t];
  }
  return Status::Ok();
}

Status ScanJsonlFile(DocumentScan& scan, const InputFile& file, uint32_t input,
                     const ShardSpec::Part& part, Sha256* folder_sha, InputSummary& summary,
                     const std::function<void(uint64_t)>& progress) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                      OpenJsonl(file, part, scan.options, folder_sha));
  int64_t line_no = folder_sha ? 0 : part.lines_before;
  while (true) {
    PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
    if (chunk.empty()) break;
    SplitLines(chunk, reader->chunk_offset(), input, file.path, line_no, scan.next_index,
               scan.records, summary.blank);
    if (scan.before_chunk) scan.before_chunk(scan.next_index);
    PF_RETURN_IF_ERROR(ParseChunk(scan, summary));
    if (progress) progress(reader->disk_bytes_read());
  }
  if (folder_sha) folder_sha->Update(std::string_view("\0", 1));
  if (reader->skipped_bom()) scan.total.notes.push_back(BomNote(file.path));
  summary.file_bytes += reader->disk_bytes_read();
  if (!folder_sha) summary.sha256 = reader->Sha256Hex();
  return Status::Ok();
}

// ScanLines for one JSONL file.
Status CopyJsonlLines(const InputFile& file, uint32_t input, const ShardSpec::Part& part,
                      const ReadOptions& options, Sha256* folder_sha, uint64_t& next_index,
                      InputSummary& summary, const std::function<Status(const Record&)>& visit) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                      OpenJsonl(file, part, options, folder_sha));
  int64_t line_no = folder_sha ? 0 : part.lines_before;
  uint64_t blank = 0;
  std::vector<Record> records;
  while (true) {
    PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
    if (chunk.empty()) break;
    SplitLines(chunk, reader->chunk_offset(), input, file.path, line_no, next_index, records,
               blank);
    for (const Record& r : records) PF_RETURN_IF_ERROR(visit(r));
  }
  if (folder_sha) folder_sha->Update(std::string_view("\0", 1));
  summary.file_bytes += reader->disk_bytes_read();
  if (!folder_sha) summary.sha256 = reader->Sha256Hex();
  return Status::Ok();
}

}  // namespace

Result<std::string> ParseTextField(std::string_view line, const ReadOptions& options,
                                   const std::string& where) {
  simdjson::dom::parser parser;
  std::string_view text;
  std::string reason;
  if (!ParseWith(parser, line, false, options, &text, &reason))
    return Status::InvalidArgument(where + ": " + reason);
  return std::string(text);  // a view into `parser`, which dies here
}

Result<ScanSummary> ScanDocuments(const std::vector<std::string>& paths, const ReadOptions& options,
                                  const DocumentVisitor& visit, const ProgressFn& progress,
                                  const ChunkHook& before_chunk, const ShardSpec* shard) {
  if (shard && shard->inputs.size() != paths.size())
    return Status::Internal("ScanDocuments: the shard does not have one part per input");
  PF_ASSIGN_OR_RETURN(auto listing, ListAll(paths, shard));
  const int threads = std::max(1, options.threads);
  DocumentScan scan(options, visit, before_chunk, threads);
  scan.next_index = shard ? shard->first_index : 0;
  const uint64_t disk_total = DiskBytes(listing, shard);
  uint64_t disk_done = 0;
  for (uint32_t input = 0; input < paths.size(); ++input) {
    InputSummary summary;
    summary.path = paths[input];
    const ShardSpec::Part whole;
    const ShardSpec::Part& part = shard ? shard->inputs[input] : whole;
    if (!listing[input].read) {  // Another process's part.
      scan.total.inputs.push_back(std::move(summary));
      continue;
    }
    const bool folder = IsDirectory(paths[input]);
    Sha256 folder_sha;
    for (const InputFile& file : listing[input].files) {
      ++summary.files;
      if (file.format == Format::kPlainText) {
        const uint64_t bytes_before = summary.file_bytes;
        PF_RETURN_IF_ERROR(
            ScanTextFile(scan, file, input, folder ? &folder_sha : nullptr, summary));
        disk_done += summary.file_bytes - bytes_before;
        if (progress) progress(disk_done, disk_total);
        continue;
      }
      const uint64_t disk_before = disk_done;
      PF_RETURN_IF_ERROR(ScanJsonlFile(scan, file, input, part, folder ? &folder_sha : nullptr,
                                       summary, [&](uint64_t read) {
                                         disk_done = disk_before + read;
                                         if (progress) progress(disk_done, disk_total);
                                       }));
    }
    if (folder) summary.sha256 = folder_sha.HexDigest();
    if (summary.sha256.empty() && !folder) {  // A plain-text file input.
      PF_ASSIGN_OR_RETURN(InputSummary hashed, HashInput(paths[input]));
      summary.sha256 = hashed.sha256;
    }
    scan.total.records += summary.records;
    scan.total.docs += summary.docs;
    scan.total.text_bytes += summary.text_bytes;
    scan.total.bad += summary.bad;
    scan.total.inputs.push_back(std::move(summary));
  }
  return std::move(scan.total);
}

Result<std::vector<PartCount>> CountParts(const std::vector<std::string>& paths,
                                          const ReadOptions& options, const ShardSpec& shard) {
  if (shard.inputs.size() != paths.size())
    return Status::Internal("CountParts: the shard does not have one part per input");
  PF_ASSIGN_OR_RETURN(auto listing, ListAll(paths, &shard));
  std::vector<PartCount> counts(paths.size());
  for (uint32_t input = 0; input < paths.size(); ++input) {
    const ShardSpec::Part& part = shard.inputs[input];
    for (const InputFile& file : listing[input].files) {
      if (file.format == Format::kPlainText) {
        ++counts[input].lines;
        ++counts[input].records;
        continue;
      }
      PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                          OpenJsonl(file, part, options, nullptr));
      while (true) {
        PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
        if (chunk.empty()) break;
        const char* p = chunk.data();
        const char* end = p + chunk.size();
        while (p < end) {
          const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
          const char* line_end = nl ? nl : end;
          ++counts[input].lines;
          if (!IsBlank(std::string_view(p, line_end - p))) ++counts[input].records;
          p = nl ? nl + 1 : end;
        }
      }
    }
  }
  return counts;
}

Result<InputSummary> HashInput(const std::string& path) {
  InputSummary summary;
  summary.path = path;
  Sha256 sha;
  if (!IsDirectory(path)) {
    PF_RETURN_IF_ERROR(HashFileInto(path, sha, summary.file_bytes));
    summary.files = 1;
    summary.sha256 = sha.HexDigest();
    return summary;
  }
  PF_ASSIGN_OR_RETURN(std::vector<InputFile> files, ListInputFiles(path));
  for (const InputFile& file : files) {
    sha.Update(file.rel);
    sha.Update(std::string_view("\0", 1));
    PF_RETURN_IF_ERROR(HashFileInto(file.path, sha, summary.file_bytes));
    sha.Update(std::string_view("\0", 1));
    ++summary.files;
  }
  summary.sha256 = sha.HexDigest();
  return summary;
}

Status ScanLines(const std::vector<std::string>& paths, const ReadOptions& options,
                 const std::function<Status(const Record&)>& visit,
                 std::vector<InputSummary>* inputs, const ShardSpec* shard) {
  if (inputs) inputs->clear();
  if (shard && shard->inputs.size() != paths.size())
    return Status::Internal("ScanLines: the shard does not have one part per input");
  PF_ASSIGN_OR_RETURN(auto listing, ListAll(paths, shard));
  uint64_t next_index = shard ? shard->first_index : 0;
  for (uint32_t input = 0; input < paths.size(); ++input) {
    InputSummary summary;
    summary.path = paths[input];
    const ShardSpec::Part whole_part;
    const ShardSpec::Part& part = shard ? shard->inputs[input] : whole_part;
    if (!listing[input].read) {  // Another process's part.
      if (inputs) inputs->push_back(std::move(summary));
      continue;
    }
    const bool folder = IsDirectory(paths[input]);
    Sha256 folder_sha;
    for (const InputFile& file : listing[input].files) {
      ++summary.files;
      if (file.format == Format::kPlainText) {
        // Bad files were dealt with by the scan that chose the records: not visited, numbered.
        PF_ASSIGN_OR_RETURN(TextDocument doc,
                            ReadTextDocument(file, options, folder ? &folder_sha : nullptr));
        summary.file_bytes += doc.content.size() + (doc.bom ? kBom.size() : 0);
        Record r;
        r.index = next_index++;
        r.input = input;
        r.line = doc.line;
        r.file = file.path;
        if (!doc.line.empty()) PF_RETURN_IF_ERROR(visit(r));
        continue;
      }
      PF_RETURN_IF_ERROR(CopyJsonlLines(file, input, part, options, folder ? &folder_sha : nullptr,
                                        next_index, summary, visit));
    }
    if (folder) summary.sha256 = folder_sha.HexDigest();
    if (inputs) {
      if (summary.sha256.empty() && !folder) {  // A plain-text file input.
        PF_ASSIGN_OR_RETURN(InputSummary hashed, HashInput(paths[input]));
        summary.sha256 = hashed.sha256;
      }
      inputs->push_back(std::move(summary));
    }
  }
  return Status::Ok();
}

}  // namespace preflight::corpus
