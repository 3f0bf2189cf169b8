#include "engine/init_weights.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <string_view>

#include "base/file.h"
#include "engine/model.h"

namespace preflight::engine {
namespace {

static_assert(std::endian::native == std::endian::little,
              "PFINIT01 is little-endian; this writer copies memory as it is");

void PutU64(std::string& out, uint64_t v) {
  char bytes[8];
  std::memcpy(bytes, &v, 8);
  out.append(bytes, 8);
}

uint64_t GetU64(const std::string& in, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, in.data() + at, 8);
  return v;
}

std::string Header(const ModelConfig& m, uint64_t seed, uint64_t count) {
  std::string out(kInitMagic, sizeof(kInitMagic));
  for (uint64_t v : {static_cast<uint64_t>(m.layers), static_cast<uint64_t>(m.d_model),
                     static_cast<uint64_t>(m.heads), static_cast<uint64_t>(m.context),
                     static_cast<uint64_t>(m.vocab), seed, count}) {
    PutU64(out, v);
  }
  return out;
}

}  // namespace

std::string InitialWeightsBytes(const ModelConfig& model, uint64_t seed) {
  // Parameters do not depend on the batch; one window keeps the activations small.
  ModelConfig one = model;
  one.batch = 1;
  Gpt gpt(one);
  gpt.InitWeights(seed);
  std::string out = Header(model, seed, gpt.num_params());
  out.append(reinterpret_cast<const char*>(gpt.params()), gpt.num_params() * sizeof(float));
  return out;
}

Status WriteInitialWeights(const ModelConfig& model, uint64_t seed, const std::string& path) {
  PF_RETURN_IF_ERROR(ValidateModel(model));
  const uint64_t count = static_cast<uint64_t>(ParamCount(model));
  const std::string header = Header(model, seed, count);
  if (auto size = FileSize(path); size.ok() && *size == header.size() + count * sizeof(float)) {
    std::string held(header.size(), '\0');
    std::ifstream in(path, std::ios::binary);
    if (in.read(held.data(), static_cast<std::streamsize>(held.size())) && held == header) {
      return Status::Ok();  // written by an earlier invocation of the same trial
    }
  }
  return WriteFileAtomically(path, InitialWeightsBytes(model, seed));
}

Result<InitialWeights> ReadInitialWeights(const std::string& path) {
  const Result<std::string> read = ReadFileToString(path);
  if (!read.ok()) return read.status();
  const std::string& bytes = *read;
  if (bytes.size() < kInitHeaderBytes ||
      std::string_view(bytes).substr(0, 8) != std::string_view(kInitMagic, 8)) {
    return Status::Corruption(path + ": not a PFINIT01 initial-weights file (bad magic or short)");
  }
  InitialWeights w;
  w.model.layers = static_cast<int>(GetU64(bytes, 8));
  w.model.d_model = static_cast<int>(GetU64(bytes, 16));
  w.model.heads = static_cast<int>(GetU64(bytes, 24));
  w.model.context = static_cast<int>(GetU64(bytes, 32));
  w.model.vocab = static_cast<int>(GetU64(bytes, 40));
  w.seed = GetU64(bytes, 48);
  const uint64_t count = GetU64(bytes, 56);
  if (bytes.size() != kInitHeaderBytes + count * sizeof(float)) {
    return Status::Corruption(path + ": header says " + std::to_string(count) +
                              " parameters but the file holds " +
                              std::to_string((bytes.size() - kInitHeaderBytes) / sizeof(float)));
  }
  w.params.resize(count);
  std::memcpy(w.params.data(), bytes.data() + kInitHeaderBytes, count * sizeof(float));
  return w;
}

}  // namespace preflight::engine
