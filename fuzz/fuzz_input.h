#pragma once
// Shared by the corpus fuzzers: the bytes of one fuzz input as a file on disk, read every way the
// readers offer. Any Status is fine; a crash, a sanitizer report, a leak or a hang is a bug.

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "corpus/chunk_reader.h"
#include "corpus/input_format.h"
#include "corpus/sharding.h"
#include "corpus/scanner.h"
#include "corpus/shard_scan.h"

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

// Counts the records of every shard that was read to its end.
class CountingSink : public corpus::ShardSink {
 public:
  Status OnChunk(corpus::ChunkWork& work) override {
    for (size_t i = 0; i < work.chunk().records.size(); ++i) {
      std::string_view text;
      (void)work.Text(i, &text);
    }
    return Status::Ok();
  }
  Status OnShardDone(const corpus::ShardRead& read) override {
    records += read.records;
    return Status::Ok();
  }
  std::atomic<uint64_t> records{0};
};

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
  // Shards of a cut file, read on two threads, hold the records of a whole read.
  auto sharding = corpus::ShardInputs({path}, file_size / 2 + 1);
  if (!sharding.ok()) return;
  corpus::ScanRequest req;
  req.sharding = &*sharding;
  for (uint32_t s = 0; s < sharding->shards.size(); ++s) req.shards.push_back(s);
  req.read = &options;
  req.threads = 2;
  CountingSink sink;
  const auto failure = corpus::ScanShards(req, sink);
  if (summary.ok() && !failure && sink.records != summary->records) std::abort();
}

// The compressed-input harnesses' one body: the first byte picks the framing of the rest: (0) the
// format's magic then raw bytes, (1) compressed, (2) compressed then cut short, (3) two
// compressed members back to back; the file is then read every way ReadEveryWay knows.
template <typename Compress>
int FuzzCompressed(const uint8_t* data, size_t size, std::string_view magic, Compress compress,
                   const std::string& path) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string bytes;
  switch (mode % 4) {
    case 0:
      bytes = std::string(magic) + std::string(body);
      break;
    case 1:
      bytes = compress(body);
      break;
    case 2:
      bytes = compress(body);
      bytes.resize(bytes.size() * (mode >> 2) / 64);  // Cut short.
      break;
    default:
      bytes = compress(body.substr(0, body.size() / 2)) + compress(body.substr(body.size() / 2));
  }
  WriteBytes(path, bytes);
  ReadEveryWay(path, bytes.size(), mode >> 2);
  return 0;
}

}  // namespace preflight::fuzz
