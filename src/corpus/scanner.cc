#include "corpus/scanner.h"

#include <omp.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/file.h"
#include "base/sha256.h"
#include "corpus/chunk_reader.h"
#include "corpus/document_parser.h"
#include "corpus/input_format.h"
#include "corpus/parquet_rows.h"
#include "corpus/sharding.h"
#include "corpus/text_document.h"

namespace preflight::corpus {
namespace {

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

// An input's SHA-256 as it is read: a file input's bytes, or a folder's list of its files'
// hashes (FolderSha256).
class InputHash {
 public:
  explicit InputHash(bool folder) : folder_(folder) {}
  void AddFile(const InputFile& file, std::string sha256) {
    rels_.push_back(file.rel);
    shas_.push_back(std::move(sha256));
  }
  std::string Finish() const {
    if (!folder_) return shas_.empty() ? std::string() : shas_.front();
    return FolderSha256(rels_, shas_);
  }

 private:
  bool folder_;
  std::vector<std::string> rels_, shas_;
};

Result<TextDocument> ReadText(const InputFile& file, const ReadOptions& options, InputHash& hash) {
  Sha256 sha;
  PF_ASSIGN_OR_RETURN(TextDocument doc,
                      ReadTextDocument(file.path, file.rel.empty() ? file.path : file.rel, options,
                                       [&sha](std::string_view bytes) { sha.Update(bytes); }));
  hash.AddFile(file, sha.HexDigest());
  return doc;
}

// What ScanDocuments carries from file to file.
struct DocumentScan {
  DocumentScan(const ReadOptions& o, const DocumentVisitor& v, const ChunkHook& hook, int t)
      : options(o), visit(v), before_chunk(hook), threads(t), bad_by_thread(t) {
    for (int i = 0; i < t; ++i) parsers.emplace_back(o);
  }

  const ReadOptions& options;
  const DocumentVisitor& visit;
  const ChunkHook& before_chunk;
  int threads;
  std::vector<DocumentParser> parsers;
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

Status ScanTextFile(DocumentScan& scan, const InputFile& file, uint32_t input, InputHash& hash,
                    InputSummary& summary) {
  PF_ASSIGN_OR_RETURN(TextDocument doc, ReadText(file, scan.options, hash));
  if (doc.bom) scan.total.notes.push_back(BomNote(file.path));
  summary.file_bytes += doc.file_bytes;
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
    if (!scan.parsers[t].Parse(r.line, /*padded=*/true, &text, &reason)) {
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

Status ScanJsonlFile(DocumentScan& scan, const InputFile& file, uint32_t input, InputHash& hash,
                     InputSummary& summary, const std::function<void(uint64_t)>& bytes_read) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                      ChunkReader::OpenAs(file.path, file.format, MaxLineBytes(scan.options)));
  int64_t line_no = 0;
  while (true) {
    PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
    if (chunk.empty()) break;
    SplitLines(chunk, reader->chunk_offset(), input, file.path, line_no, scan.next_index,
               scan.records, summary.blank);
    if (scan.before_chunk) scan.before_chunk(scan.next_index);
    PF_RETURN_IF_ERROR(ParseChunk(scan, summary));
    if (bytes_read) bytes_read(reader->disk_bytes_read());
  }
  if (reader->skipped_bom()) scan.total.notes.push_back(BomNote(file.path));
  summary.file_bytes += reader->disk_bytes_read();
  hash.AddFile(file, reader->Sha256Hex());
  return Status::Ok();
}

// ScanLines for one JSONL file.
Status CopyJsonlLines(const InputFile& file, uint32_t input, const ReadOptions& options,
                      uint64_t& next_index, InputHash& hash, InputSummary& summary,
                      const std::function<Status(const Record&)>& visit) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                      ChunkReader::OpenAs(file.path, file.format, MaxLineBytes(options)));
  int64_t line_no = 0;
  uint64_t blank = 0;
  std::vector<Record> records;
  while (true) {
    PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
    if (chunk.empty()) break;
    SplitLines(chunk, reader->chunk_offset(), input, file.path, line_no, next_index, records,
               blank);
    for (const Record& r : records) PF_RETURN_IF_ERROR(visit(r));
  }
  summary.file_bytes += reader->disk_bytes_read();
  hash.AddFile(file, reader->Sha256Hex());
  return Status::Ok();
}

// A Parquet file's bad rows of one batch, and its documents' records and texts.
struct ParquetChunk {
  std::vector<Record> records;
  std::vector<std::string_view> texts;
  std::vector<BadLine> bad;
};

// A Parquet row's record: numbered like a line of its file, placed by its row group and row.
template <typename Row>
Record RowRecord(const Row& row, const InputFile& file, uint32_t input, uint64_t index,
                 int64_t line_no) {
  Record r;
  r.index = index;
  r.input = input;
  r.line_no = line_no;
  r.file = file.path;
  r.row_group = row.row_group;
  r.row_in_group = row.row_in_group;
  return r;
}

void SortParquetBatch(const ParquetBatch& batch, const InputFile& file, uint32_t input,
                      uint64_t& next_index, int64_t& line_no, ParquetChunk& out) {
  out.records.clear();
  out.texts.clear();
  for (const ParquetBatch::Row& row : batch.rows) {
    const Record r = RowRecord(row, file, input, next_index++, ++line_no);
    if (!row.bad.empty()) {
      out.bad.push_back(
          {file.path, r.line_no, r.index, std::string(row.bad), row.row_group, row.row_in_group});
      continue;
    }
    out.records.push_back(r);
    out.texts.push_back(row.text);
  }
}

// ScanDocuments for one Parquet file: its text column, visited on the scan's threads batch by
// batch; then the file's bytes read once more, in order, for its SHA-256.
Status ScanParquetFile(DocumentScan& scan, const InputFile& file, uint32_t input, InputHash& hash,
                       InputSummary& summary, const std::function<void(uint64_t)>& bytes_read) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ParquetRows> rows,
                      ParquetRows::Open(file.path, scan.options, /*lines=*/false));
  ParquetBatch batch;
  ParquetChunk chunk;
  int64_t line_no = 0;
  while (true) {
    PF_RETURN_IF_ERROR(rows->NextBatch(&batch, ChunkReader::kChunkBytes, 1 << 16));
    if (batch.rows.empty()) break;
    SortParquetBatch(batch, file, input, scan.next_index, line_no, chunk);
    if (scan.before_chunk) scan.before_chunk(scan.next_index);
    const int64_t n = static_cast<int64_t>(chunk.records.size());
#pragma omp parallel for num_threads(scan.threads) schedule(dynamic, 16)
    for (int64_t i = 0; i < n; ++i)
      scan.visit(omp_get_thread_num(), chunk.records[i], chunk.texts[i]);
    summary.records += batch.rows.size();
    summary.docs += chunk.records.size();
    for (std::string_view t : chunk.texts) summary.text_bytes += t.size();
    PF_RETURN_IF_ERROR(scan.TakeBad(chunk.bad, summary));
    if (bytes_read) bytes_read(rows->progress_bytes());
  }
  Sha256 sha;
  PF_RETURN_IF_ERROR(HashFileInto(file.path, sha, summary.file_bytes));
  hash.AddFile(file, sha.HexDigest());
  return Status::Ok();
}

// ScanLines for one Parquet file: every row as its JSON line, then the file's SHA-256.
Status CopyParquetLines(const InputFile& file, uint32_t input, const ReadOptions& options,
                        uint64_t& next_index, InputHash& hash, InputSummary& summary,
                        const std::function<Status(const Record&)>& visit) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<ParquetRows> rows,
                      ParquetRows::Open(file.path, options, /*lines=*/true));
  ParquetRows::Row row;
  int64_t line_no = 0;
  while (true) {
    PF_ASSIGN_OR_RETURN(bool more, rows->Next(&row));
    if (!more) break;
    Record r = RowRecord(row, file, input, next_index++, ++line_no);
    r.line = row.line;
    PF_RETURN_IF_ERROR(visit(r));
  }
  Sha256 sha;
  PF_RETURN_IF_ERROR(HashFileInto(file.path, sha, summary.file_bytes));
  hash.AddFile(file, sha.HexDigest());
  return Status::Ok();
}

// The files of every input, checked before any document is read.
Result<std::vector<std::vector<InputFile>>> ListAll(const std::vector<std::string>& paths) {
  std::vector<std::vector<InputFile>> all(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    PF_ASSIGN_OR_RETURN(all[i], ListInputFiles(paths[i]));
  }
  return all;
}

uint64_t DiskBytes(const std::vector<std::vector<InputFile>>& all) {
  uint64_t total = 0;
  for (const auto& files : all) {
    for (const InputFile& f : files) {
      auto size = FileSize(f.path);
      if (size.ok()) total += *size;
    }
  }
  return total;
}

}  // namespace

Result<std::string> ParseTextField(std::string_view line, const ReadOptions& options,
                                   const std::string& where) {
  DocumentParser parser(options);
  std::string_view text;
  std::string reason;
  if (!parser.Parse(line, false, &text, &reason))
    return Status::InvalidArgument(where + ": " + reason);
  return std::string(text);  // a view into `parser`, which dies here
}

Result<ScanSummary> ScanDocuments(const std::vector<std::string>& paths, const ReadOptions& options,
                                  const DocumentVisitor& visit, const ProgressFn& progress,
                                  const ChunkHook& before_chunk) {
  PF_ASSIGN_OR_RETURN(auto listing, ListAll(paths));
  const int threads = std::max(1, options.threads);
  DocumentScan scan(options, visit, before_chunk, threads);
  const uint64_t disk_total = DiskBytes(listing);
  uint64_t disk_done = 0;
  for (uint32_t input = 0; input < paths.size(); ++input) {
    InputSummary summary;
    summary.path = paths[input];
    InputHash hash(IsDirectory(paths[input]));
    for (const InputFile& file : listing[input]) {
      ++summary.files;
      const uint64_t disk_before = disk_done;
      if (file.format == Format::kPlainText) {
        const uint64_t bytes_before = summary.file_bytes;
        PF_RETURN_IF_ERROR(ScanTextFile(scan, file, input, hash, summary));
        disk_done += summary.file_bytes - bytes_before;
        if (progress) {
          progress({.stage = "read", .done = disk_done, .total = disk_total, .unit = "B"});
        }
        continue;
      }
      auto report = [&](uint64_t read) {
        disk_done = disk_before + read;
        if (progress) {
          progress({.stage = "read", .done = disk_done, .total = disk_total, .unit = "B"});
        }
      };
      if (file.format == Format::kParquet) {
        PF_RETURN_IF_ERROR(ScanParquetFile(scan, file, input, hash, summary, report));
        continue;
      }
      PF_RETURN_IF_ERROR(ScanJsonlFile(scan, file, input, hash, summary, report));
    }
    summary.sha256 = hash.Finish();
    scan.total.records += summary.records;
    scan.total.docs += summary.docs;
    scan.total.text_bytes += summary.text_bytes;
    scan.total.bad += summary.bad;
    scan.total.inputs.push_back(std::move(summary));
  }
  return std::move(scan.total);
}

Result<InputSummary> HashInput(const std::string& path) {
  InputSummary summary;
  summary.path = path;
  if (!IsDirectory(path)) {
    Sha256 sha;
    PF_RETURN_IF_ERROR(HashFileInto(path, sha, summary.file_bytes));
    summary.files = 1;
    summary.sha256 = sha.HexDigest();
    return summary;
  }
  PF_ASSIGN_OR_RETURN(std::vector<InputFile> files, ListInputFiles(path));
  InputHash hash(true);
  for (const InputFile& file : files) {
    Sha256 sha;
    PF_RETURN_IF_ERROR(HashFileInto(file.path, sha, summary.file_bytes));
    hash.AddFile(file, sha.HexDigest());
    ++summary.files;
  }
  summary.sha256 = hash.Finish();
  return summary;
}

Status ScanLines(const std::vector<std::string>& paths, const ReadOptions& options,
                 const std::function<Status(const Record&)>& visit,
                 std::vector<InputSummary>* inputs) {
  if (inputs) inputs->clear();
  PF_ASSIGN_OR_RETURN(auto listing, ListAll(paths));
  uint64_t next_index = 0;
  for (uint32_t input = 0; input < paths.size(); ++input) {
    InputSummary summary;
    summary.path = paths[input];
    InputHash hash(IsDirectory(paths[input]));
    for (const InputFile& file : listing[input]) {
      ++summary.files;
      if (file.format == Format::kPlainText) {
        // Bad files were dealt with by the scan that chose the records: not visited, numbered.
        PF_ASSIGN_OR_RETURN(TextDocument doc, ReadText(file, options, hash));
        summary.file_bytes += doc.file_bytes;
        Record r;
        r.index = next_index++;
        r.input = input;
        r.line = doc.line;
        r.file = file.path;
        if (!doc.line.empty()) PF_RETURN_IF_ERROR(visit(r));
        continue;
      }
      if (file.format == Format::kParquet) {
        PF_RETURN_IF_ERROR(
            CopyParquetLines(file, input, options, next_index, hash, summary, visit));
        continue;
      }
      PF_RETURN_IF_ERROR(CopyJsonlLines(file, input, options, next_index, hash, summary, visit));
    }
    summary.sha256 = hash.Finish();
    if (inputs) inputs->push_back(std::move(summary));
  }
  return Status::Ok();
}

}  // namespace preflight::corpus
