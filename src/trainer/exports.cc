#include "trainer/exports.h"

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/file.h"
#include "base/json.h"
#include "base/sha256.h"
#include "corpus/scanner.h"
#include "engine/config.h"

namespace preflight::trainer {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the exports are little-endian; this writer copies memory as it is");

constexpr const char* kFiles[] = {"text.jsonl", "tokens.bin", "llmc.bin"};

// Writes `bytes` atomically and returns their SHA-256.
Result<std::string> WriteHashed(const std::string& path, std::string_view bytes) {
  PF_RETURN_IF_ERROR(WriteFileAtomically(path, bytes));
  return Sha256::Hex(bytes);
}

Result<std::string> HashFile(const std::string& path) {
  PF_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  return Sha256::Hex(bytes);
}

// The documents of `source` in file order, and the source's SHA-256.
struct Documents {
  std::vector<std::string> texts;
  std::string sha256;
  uint64_t bytes = 0;
};

Result<Documents> ReadDocuments(const std::string& source, const std::string& text_field) {
  corpus::ReadOptions read;
  read.text_field = text_field;  // one thread: documents arrive in file order
  Documents docs;
  PF_ASSIGN_OR_RETURN(
      corpus::ScanSummary s,
      corpus::ScanDocuments({source}, read, [&](int, const corpus::Record&, std::string_view text) {
        docs.texts.emplace_back(text);
        docs.bytes += text.size();
      }));
  docs.sha256 = s.inputs.at(0).sha256;
  return docs;
}

std::string TextJsonl(const std::vector<std::string>& texts) {
  std::string out;
  for (const std::string& t : texts) {
    out +=
        nlohmann::json{{"text", t}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

// The tokens as little-endian uint16 bytes (engine/data.h Tokenize, written out).
std::string TokenBytes(const std::vector<std::string>& texts) {
  std::string out;
  for (const std::string& t : texts) {
    const uint16_t boundary = engine::kBoundaryToken;
    out.append(reinterpret_cast<const char*>(&boundary), 2);
    for (unsigned char c : t) {
      const uint16_t token = c;
      out.append(reinterpret_cast<const char*>(&token), 2);
    }
  }
  return out;
}

std::string LlmcHeader(uint64_t tokens) {
  int32_t header[kLlmcHeaderInts] = {};
  header[0] = kLlmcMagic;
  header[1] = kLlmcVersion;
  header[2] = static_cast<int32_t>(tokens);
  return std::string(reinterpret_cast<const char*>(header), sizeof(header));
}

nlohmann::json ManifestJson(const ArmExport& e, const std::string& source,
                            const std::vector<std::pair<std::string, uint64_t>>& sizes,
                            const std::vector<std::string>& hashes) {
  nlohmann::json files = nlohmann::json::object();
  for (size_t i = 0; i < sizes.size(); ++i) {
    files[sizes[i].first] = {{"sha256", hashes[i]}, {"bytes", sizes[i].second}};
  }
  return {{"tokenizer", "bytes"},
          {"vocab", engine::kVocabSize},
          {"boundary", engine::kBoundaryToken},
          {"tokens", e.tokens},
          {"documents", e.documents},
          {"bytes", e.bytes},
          {"source",
           {{"path", source}, {"sha256", e.source_sha256}, {"text_field", e.source_text_field}}},
          {"files", files}};
}

}  // namespace

ArmExport ExportPaths(const std::string& dir) {
  ArmExport e;
  e.dir = dir;
  e.text_jsonl = JoinPath(dir, "text.jsonl");
  e.tokens_bin = JoinPath(dir, "tokens.bin");
  e.llmc_bin = JoinPath(dir, "llmc.bin");
  e.manifest = JoinPath(dir, "manifest.json");
  return e;
}

Result<ArmExport> ReadExport(const std::string& dir) {
  ArmExport e = ExportPaths(dir);
  if (!PathExists(e.manifest)) return Status::NotFound(e.manifest + ": no export here");
  PF_ASSIGN_OR_RETURN(nlohmann::json json, ReadJsonFile(e.manifest));
  JsonReader r(json, e.manifest);
  PF_ASSIGN_OR_RETURN(int64_t tokens, r.Int("tokens"));
  PF_ASSIGN_OR_RETURN(int64_t documents, r.Int("documents"));
  PF_ASSIGN_OR_RETURN(int64_t bytes, r.Int("bytes"));
  e.tokens = static_cast<uint64_t>(tokens);
  e.documents = static_cast<uint64_t>(documents);
  e.bytes = static_cast<uint64_t>(bytes);
  PF_ASSIGN_OR_RETURN(JsonReader source, r.Field("source"));
  PF_ASSIGN_OR_RETURN(e.source_sha256, source.String("sha256"));
  e.source_text_field = "text";  // exports made before the field was recorded read "text"
  if (source.Has("text_field")) {
    PF_ASSIGN_OR_RETURN(e.source_text_field, source.String("text_field"));
  }
  PF_ASSIGN_OR_RETURN(JsonReader files, r.Field("files"));
  for (const char* name : kFiles) {
    PF_ASSIGN_OR_RETURN(JsonReader file, files.Field(name));
    PF_ASSIGN_OR_RETURN(std::string want, file.String("sha256"));
    const std::string path = JoinPath(dir, name);
    auto have = HashFile(path);
    if (!have.ok() || *have != want) {
      return Status::Corruption(path + ": does not match the SHA-256 in " + e.manifest);
    }
  }
  return e;
}

Result<ArmExport> ExportArm(const std::string& source, const std::string& text_field,
                            const std::string& dir) {
  PF_ASSIGN_OR_RETURN(Documents docs, ReadDocuments(source, text_field));
  if (auto held = ReadExport(dir);
      held.ok() && held->source_sha256 == docs.sha256 && held->source_text_field == text_field) {
    return held;  // made by an earlier invocation from the same bytes and field
  }
  ArmExport e = ExportPaths(dir);
  e.source_text_field = text_field;
  e.documents = docs.texts.size();
  e.bytes = docs.bytes;
  e.tokens = e.documents + e.bytes;
  e.source_sha256 = docs.sha256;
  if (e.tokens > static_cast<uint64_t>(INT32_MAX)) {
    return Status::InvalidArgument(source + ": " + std::to_string(e.tokens) +
                                   " tokens do not fit one llm.c shard (at most 2^31 - 1)");
  }
  PF_RETURN_IF_ERROR(MakeDirectories(dir));
  const std::string text = TextJsonl(docs.texts);
  const std::string tokens = TokenBytes(docs.texts);
  docs.texts.clear();
  std::vector<std::string> hashes(3);
  PF_ASSIGN_OR_RETURN(hashes[0], WriteHashed(e.text_jsonl, text));
  PF_ASSIGN_OR_RETURN(hashes[1], WriteHashed(e.tokens_bin, tokens));
  PF_ASSIGN_OR_RETURN(hashes[2], WriteHashed(e.llmc_bin, LlmcHeader(e.tokens) + tokens));
  const std::vector<std::pair<std::string, uint64_t>> sizes = {
      {kFiles[0], text.size()},
      {kFiles[1], tokens.size()},
      {kFiles[2], tokens.size() + kLlmcHeaderInts * sizeof(int32_t)}};
  PF_RETURN_IF_ERROR(
      WriteFileAtomically(e.manifest, ManifestJson(e, source, sizes, hashes).dump(2) + "\n"));
  return e;
}

}  // namespace preflight::trainer
