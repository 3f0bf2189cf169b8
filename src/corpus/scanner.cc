#include "corpus/scanner.h"

#include <omp.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "corpus/chunk_reader.h"

namespace preflight::corpus {
namespace {

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// Splits a line-aligned chunk into records, numbering lines and records as it goes.
void SplitLines(std::string_view chunk, uint64_t chunk_offset, uint32_t input, int64_t& line_no,
                uint64_t& next_index, std::vector<Record>& out, uint64_t& blank) {
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
      out.push_back(r);
    }
    p = nl ? nl + 1 : end;
  }
}

// Parses with the DOM parser, which validates the whole line (JSON and UTF-8), not just the
// fields we read. `padded` promises SIMDJSON_PADDING readable bytes after the line.
Result<std::string_view> ParseWith(simdjson::dom::parser& parser, std::string_view line,
                                   bool padded, const ReadOptions& options, const std::string& path,
                                   int64_t line_no) {
  // The "file:line" prefix is built only for an error: this runs once per document.
  auto where = [&] { return line_no > 0 ? path + ":" + std::to_string(line_no) : path; };
  simdjson::dom::element doc;
  auto error = padded ? parser.parse(line.data(), line.size(), false).get(doc)
                      : parser.parse(line.data(), line.size(), true).get(doc);
  if (error == simdjson::UTF8_ERROR) return Status::InvalidArgument(where() + ": invalid UTF-8");
  if (error) {
    return Status::InvalidArgument(where() + ": malformed JSON (" +
                                   std::string(simdjson::error_message(error)) + ")");
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) return Status::InvalidArgument(where() + ": not a JSON object");
  simdjson::dom::element field;
  if (obj[options.text_field].get(field)) {
    return Status::InvalidArgument(where() + ": no \"" + options.text_field + "\" field");
  }
  std::string_view text;
  if (field.get_string().get(text)) {
    return Status::InvalidArgument(where() + ": field \"" + options.text_field +
                                   "\" is not a string");
  }
  if (text.size() > options.max_document_bytes) {
    return Status::InvalidArgument(where() + ": document of " + std::to_string(text.size()) +
                                   " bytes is over the limit of " +
                                   std::to_string(options.max_document_bytes) + " bytes");
  }
  return text;
}

bool IsFolder(const std::string& path) { return IsDirectory(path); }

// The regular files below a folder, sorted by relative path so that order is stable.
Result<std::vector<std::string>> ListFolder(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(std::filesystem::relative(it->path(), dir).string());
  }
  if (ec) return Status::IOError(dir + ": cannot list folder (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  return files;
}

// A plain-text folder: every file is one document; its record line is a synthesised JSONL line
// {"id": relative path, "text": content} so that selection writes JSONL either way. The input's
// SHA-256 covers "relative path\0content\0" for every file in order.
Status ScanFolder(const std::string& dir, uint32_t input, const ReadOptions& options,
                  uint64_t& next_index, InputSummary& summary,
                  std::vector<std::string>& bad_examples,
                  const std::function<Status(const Record&, std::string_view text)>& visit) {
  PF_ASSIGN_OR_RETURN(std::vector<std::string> files, ListFolder(dir));
  Sha256 sha;
  for (const std::string& rel : files) {
    std::string path = JoinPath(dir, rel);
    PF_ASSIGN_OR_RETURN(std::string content, ReadFileToString(path));
    sha.Update(rel);
    sha.Update(std::string_view("\0", 1));
    sha.Update(content);
    sha.Update(std::string_view("\0", 1));
    summary.file_bytes += content.size();
    ++summary.records;
    Record r;
    r.index = next_index++;
    r.input = input;
    Status bad;
    if (content.size() > options.max_document_bytes) {
      bad = Status::InvalidArgument(path + ": document of " + std::to_string(content.size()) +
                                    " bytes is over the limit of " +
                                    std::to_string(options.max_document_bytes) + " bytes");
    } else if (!simdjson::validate_utf8(content)) {
      bad = Status::InvalidArgument(path + ": invalid UTF-8");
    }
    if (!bad.ok()) {
      if (!options.skip_bad) return bad;
      ++summary.bad;
      if (bad_examples.size() < 10) bad_examples.push_back(bad.message());
      continue;
    }
    std::string line = nlohmann::json{{"id", rel}, {"text", content}}.dump();
    r.line = line;
    ++summary.docs;
    summary.text_bytes += content.size();
    PF_RETURN_IF_ERROR(visit(r, content));
  }
  summary.sha256 = sha.HexDigest();
  return Status::Ok();
}

uint64_t DiskBytes(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const auto& p : paths) {
    auto size = FileSize(p);
    if (size.ok() && !IsFolder(p)) total += *size;
  }
  return total;
}

struct BadLine {
  uint64_t index;
  std::string message;
};

}  // namespace

Result<std::string_view> ParseTextField(std::string_view line, const ReadOptions& options,
                                        const std::string& where) {
  simdjson::dom::parser parser;
  return ParseWith(parser, line, false, options, where, 0);
}

Result<ScanSummary> ScanDocuments(const std::vector<std::string>& paths, const ReadOptions& options,
                                  const DocumentVisitor& visit, const ProgressFn& progress,
                                  const ChunkHook& before_chunk, const ShardSpec* shard) {
  const int threads = std::max(1, options.threads);
  std::vector<simdjson::dom::parser> parsers(threads);
  ScanSummary total;
  uint64_t next_index = shard ? shard->first_index : 0;
  if (shard && shard->inputs.size() != paths.size())
    return Status::Internal("ScanDocuments: the shard does not have one part per input");
  uint64_t disk_total = 0;
  if (shard) {
    for (uint32_t input = 0; input < paths.size(); ++input) {
      const ShardSpec::Part& part = shard->inputs[input];
      auto size = FileSize(paths[input]);
      if (part.read && size.ok() && !IsFolder(paths[input]))
        disk_total += std::min(*size, part.end) - std::min(*size, part.begin);
    }
  } else {
    disk_total = DiskBytes(paths);
  }
  uint64_t disk_done = 0;
  std::vector<Record> records;
  std::vector<std::vector<BadLine>> bad_by_thread(threads);
  const uint64_t max_line = options.max_document_bytes * 2 + (1u << 20);

  for (uint32_t input = 0; input < paths.size(); ++input) {
    const std::string& path = paths[input];
    InputSummary summary;
    summary.path = path;
    const ShardSpec::Part whole;
    const ShardSpec::Part& part = shard ? shard->inputs[input] : whole;
    if (!part.read) {
      total.inputs.push_back(std::move(summary));
      continue;
    }
    if (IsFolder(path)) {
      PF_RETURN_IF_ERROR(ScanFolder(path, input, options, next_index, summary, total.bad_examples,
                                    [&](const Record& r, std::string_view text) {
                                      if (before_chunk) before_chunk(r.index + 1);
                                      visit(0, r, text);
                                      return Status::Ok();
                                    }));
    } else {
      PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                          ChunkReader::Open(path, max_line, part.begin, part.end));
      int64_t line_no = part.lines_before;
      uint64_t disk_before = disk_done;
      while (true) {
        PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
        if (chunk.empty()) break;
        SplitLines(chunk, reader->chunk_offset(), input, line_no, next_index, records,
                   summary.blank);
        const int64_t n = static_cast<int64_t>(records.size());
        if (before_chunk) before_chunk(next_index);
        std::vector<uint64_t> docs(threads, 0), bytes(threads, 0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
        for (int64_t i = 0; i < n; ++i) {
          const int t = omp_get_thread_num();
          const Record& r = records[i];
          auto text = ParseWith(parsers[t], r.line, /*padded=*/true, options, path, r.line_no);
          if (!text.ok()) {
            bad_by_thread[t].push_back({r.index, text.status().message()});
            continue;
          }
          ++docs[t];
          bytes[t] += text->size();
          visit(t, r, *text);
        }
        // Report bad lines in file order, whatever thread found them.
        std::vector<BadLine> bad;
        for (auto& v : bad_by_thread) {
          bad.insert(bad.end(), std::make_move_iterator(v.begin()),
                     std::make_move_iterator(v.end()));
          v.clear();
        }
        std::sort(bad.begin(), bad.end(),
                  [](const BadLine& a, const BadLine& b) { return a.index < b.index; });
        if (!bad.empty() && !options.skip_bad) return Status::InvalidArgument(bad.front().message);
        for (auto& b : bad) {
          if (total.bad_examples.size() < 10) total.bad_examples.push_back(std::move(b.message));
        }
        summary.bad += bad.size();
        summary.records += records.size();
        for (int t = 0; t < threads; ++t) {
          summary.docs += docs[t];
          summary.text_bytes += bytes[t];
        }
        disk_done = disk_before + reader->disk_bytes_read();
        if (progress) progress(disk_done, disk_total);
      }
      summary.file_bytes = reader->disk_bytes_read();
      summary.sha256 = reader->Sha256Hex();
    }
    total.records += summary.records;
    total.docs += summary.docs;
    total.text_bytes += summary.text_bytes;
    total.bad += summary.bad;
    total.inputs.push_back(std::move(summary));
  }
  return total;
}

Result<std::vector<PartCount>> CountParts(const std::vector<std::string>& paths,
                                          const ReadOptions& options, const ShardSpec& shard) {
  if (shard.inputs.size() != paths.size())
    return Status::Internal("CountParts: the shard does not have one part per input");
  std::vector<PartCount> counts(paths.size());
  const uint64_t max_line = options.max_document_bytes * 2 + (1u << 20);
  for (uint32_t input = 0; input < paths.size(); ++input) {
    const ShardSpec::Part& part = shard.inputs[input];
    if (!part.read) continue;
    const std::string& path = paths[input];
    if (IsFolder(path)) {
      PF_ASSIGN_OR_RETURN(std::vector<std::string> files, ListFolder(path));
      counts[input].records = files.size();
      continue;
    }
    PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                        ChunkReader::Open(path, max_line, part.begin, part.end));
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
  return counts;
}

Result<InputSummary> HashInput(const std::string& path) {
  if (IsFolder(path)) {
    std::vector<InputSummary> inputs;
    ReadOptions lenient;
    lenient.skip_bad = true;
    PF_RETURN_IF_ERROR(ScanLines(
        {path}, lenient, [](const Record&) { return Status::Ok(); }, &inputs));
    return inputs.at(0);
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return PathExists(path) ? Status::InvalidArgument(path + ": cannot open")
                            : Status::NotFound(path + ": no such file");
  }
  InputSummary summary;
  summary.path = path;
  Sha256 sha;
  std::vector<char> buf(8 << 20);
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    sha.Update(std::string_view(buf.data(), n));
    summary.file_bytes += n;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IOError(path + ": read failed");
  summary.sha256 = sha.HexDigest();
  return summary;
}

Status ScanLines(const std::vector<std::string>& paths, const ReadOptions& options,
                 const std::function<Status(const Record&)>& visit,
                 std::vector<InputSummary>* inputs, const ShardSpec* shard) {
  if (inputs) inputs->clear();
  if (shard && shard->inputs.size() != paths.size())
    return Status::Internal("ScanLines: the shard does not have one part per input");
  uint64_t next_index = shard ? shard->first_index : 0;
  const uint64_t max_line = options.max_document_bytes * 2 + (1u << 20);
  std::vector<Record> records;
  std::vector<std::string> ignored;
  for (uint32_t input = 0; input < paths.size(); ++input) {
    const std::string& path = paths[input];
    const ShardSpec::Part whole;
    const ShardSpec::Part& part = shard ? shard->inputs[input] : whole;
    if (!part.read) {
      if (inputs) {
        InputSummary unread;
        unread.path = path;
        inputs->push_back(unread);
      }
      continue;
    }
    if (IsFolder(path)) {
      InputSummary summary;
      ReadOptions lenient = options;
      lenient.skip_bad = true;  // Bad files were dealt with by the scan that chose the records.
      PF_RETURN_IF_ERROR(ScanFolder(path, input, lenient, next_index, summary, ignored,
                                    [&](const Record& r, std::string_view) { return visit(r); }));
      if (inputs) {
        summary.path = path;
        inputs->push_back(std::move(summary));
      }
      continue;
    }
    PF_ASSIGN_OR_RETURN(std::unique_ptr<ChunkReader> reader,
                        ChunkReader::Open(path, max_line, part.begin, part.end));
    int64_t line_no = part.lines_before;
    uint64_t blank = 0;
    while (true) {
      PF_ASSIGN_OR_RETURN(std::string_view chunk, reader->Next());
      if (chunk.empty()) break;
      SplitLines(chunk, reader->chunk_offset(), input, line_no, next_index, records, blank);
      for (const Record& r : records) PF_RETURN_IF_ERROR(visit(r));
    }
    if (inputs) {
      InputSummary summary;
      summary.path = path;
      summary.file_bytes = reader->disk_bytes_read();
      summary.sha256 = reader->Sha256Hex();
      inputs->push_back(std::move(summary));
    }
  }
  return Status::Ok();
}

}  // namespace preflight::corpus
