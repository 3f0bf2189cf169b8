#pragma once
// An arm's documents exported in the forms trainers read (doc/trainers.md, "Arms exported once"):
//   DIR/text.jsonl     one {"text": ...} per document, in the arm's order
//   DIR/tokens.bin     headerless little-endian uint16 tokens: per document, 256 then its bytes
//                      (the engine's tokenisation, engine/data.h Tokenize)
//   DIR/llmc.bin       llm.c's shard: 256 little-endian int32 (magic 20240520, version 1, the
//                      token count, zeros), then the same uint16 tokens
//   DIR/manifest.json  tokenizer, vocab, boundary, counts, the source's and each file's SHA-256
// Every file is written atomically (base/file.h), the manifest last: a folder with a manifest is
// a whole export. Not thread-safe for one DIR.

#include <cstdint>
#include <string>

#include "base/status.h"

namespace preflight::trainer {

inline constexpr int32_t kLlmcMagic = 20240520;
inline constexpr int32_t kLlmcVersion = 1;
inline constexpr int kLlmcHeaderInts = 256;

// An export's files and counts.
struct ArmExport {
  std::string dir, text_jsonl, tokens_bin, llmc_bin, manifest;
  uint64_t tokens = 0;  // documents + bytes
  uint64_t documents = 0;
  uint64_t bytes = 0;  // UTF-8 bytes of the documents' text
  std::string source_sha256;
  std::string source_text_field;  // the field its documents were read from
};

// The file paths of an export in `dir` (nothing read; counts zero).
ArmExport ExportPaths(const std::string& dir);

// Exports the documents (field `text_field`: the pool's for an arm, the target's for T_eval) of
// the JSONL file `source` into `dir`, unless `dir` already holds an export of the same source
// bytes and field whose files all match their recorded SHA-256 (then it is only read back). Errors
// name the source (bad documents) or the file written.
Result<ArmExport> ExportArm(const std::string& source, const std::string& text_field,
                            const std::string& dir);

// The export in `dir`, read back from its manifest and checked against its files' SHA-256.
// NotFound without a manifest; Corruption naming the file for a damaged one or a file that
// no longer matches.
Result<ArmExport> ReadExport(const std::string& dir);

}  // namespace preflight::trainer
