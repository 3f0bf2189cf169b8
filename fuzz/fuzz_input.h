#pragma once
// Shared by the corpus fuzzers: the bytes of one fuzz input as a file on disk, read every way the
// readers offer. Any Status is fine; a crash, a sanitizer report, a leak or a hang is a bug.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "corpus/chunk_reader.h"
#include "corpus/format.h"
#include "corpus/scanner.h"

namespace preflight::fuzz {

// A per-process scratch file (libFuzzer's -fork/-jobs run several processes).
inline std::string ScratchPath(const std::string& name) {
  const char* dir = std::getenv("PREFLIGHT_FUZZ_TMP");
  std::string base = dir != nullptr ? dir : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  return base + "/preflight-fuzz." + std::to_string(::getpid()) + "." + name;
}

inline void WriteBytes(const std::string& path, std::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  std::fclose(f);
}

// Reads `path` through every entry point, with small limits so that long lines hit them.
// `variant` picks strict or --skip-bad reading.
inline void ReadEveryWay(const std::string& path, uint64_t file_size, uint8_t variant) {
  (void)corpus::DetectFileFormat(path);
  corpus::ReadOptions options;
  options.skip_bad = variant % 2 == 0;
  options.max_document_bytes = 300;  // Lines over ~1.3 KB hit the reader's line limit.
  uint64_t docs = 0;
  auto summary = corpus::ScanDocuments(
      {path}, options, [&](int, const corpus::Record&, std::string_view) { ++docs; });
  if (summary.ok() && summary->docs != docs) std::abort();  // Every document is visited once.
  uint64_t lines = 0;
  Status copied = corpus::ScanLines({path}, options, [&](const corpus::Record&) {
    ++lines;
    return Status::Ok();
  });
  // Every record is copied once, whether or not it parsed.
  if (summary.ok() && copied.ok() && lines != summary->records) std::abort();
  // Two byte ranges that tile the file hold the records of a whole read.
  corpus::ShardSpec first, second;
  first.inputs = {corpus::ShardSpec::Part{true, 0, file_size / 2, 0}};
  second.inputs = {corpus::ShardSpec::Part{true, file_size / 2, UINT64_MAX, 0}};
  auto a = corpus::CountParts({path}, options, first);
  auto b = corpus::CountParts({path}, options, second);
  if (summary.ok() && a.ok() && b.ok() && (*a)[0].records + (*b)[0].records != summary->records)
    std::abort();
}

}  // namespace preflight::fuzz
