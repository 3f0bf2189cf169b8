#include "engine/checkpoint.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "base/json.h"
#include "base/sha256.h"

namespace preflight::engine {
namespace {

constexpr size_t kDigestChars = 64;

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; i++) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; i++) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetLE(const std::string& in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}
// The engine runs on little-endian x86-64, so float arrays are copied as they lie in memory.
void PutFloats(std::string& out, const std::vector<float>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

}  // namespace

Status WriteCheckpoint(const std::string& path, const Checkpoint& c) {
  if (c.adam_m.size() != c.params.size() || c.adam_v.size() != c.params.size()) {
    return Status::Internal("checkpoint: optimizer state and parameters differ in size");
  }
  nlohmann::json header;
  header["fingerprint"] = c.fingerprint;
  header["step"] = c.step;
  header["rng"] = c.rng;
  header["num_params"] = c.params.size();
  header["train_seconds"] = c.train_seconds;
  header["core_seconds"] = c.core_seconds;
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : c.curve) {
    curve.push_back({p.step, p.eval_bpb, p.flops, p.train_seconds, p.core_seconds});
  }
  header["curve"] = curve;
  header["flops"] = c.flops;
  header["train_core_seconds"] = c.train_core_seconds;
  header["schedule_state"] = {{"frozen_at", c.frozen_at},
                              {"last_check", c.last_check},
                              {"trigger_seconds", c.trigger_seconds},
                              {"trigger_core_seconds", c.trigger_core_seconds},
                              {"trigger_flops", c.trigger_flops}};
  if (!c.snapshot.empty()) header["snapshot_floats"] = c.snapshot.size();
  const std::string header_text = header.dump();

  std::string out;
  out.reserve(24 + header_text.size() + 3 * c.params.size() * sizeof(float) + kDigestChars);
  out.append(kCheckpointMagic, sizeof(kCheckpointMagic));
  PutU32(out, c.snapshot.empty() ? 1 : 2);
  PutU32(out, 0);  // reserved
  PutU64(out, header_text.size());
  out += header_text;
  PutFloats(out, c.params);
  PutFloats(out, c.adam_m);
  PutFloats(out, c.adam_v);
  PutFloats(out, c.snapshot);
  out += Sha256::Hex(out);
  return WriteFileAtomically(path, out);
}

Result<Checkpoint> ReadCheckpoint(const std::string& path) {
  if (!PathExists(path)) return Status::NotFound(path + ": no checkpoint");
  PF_ASSIGN_OR_RETURN(std::string in, ReadFileToString(path));
  auto corrupt = [&](const std::string& why) {
    return Status::Corruption(path + ": corrupt checkpoint (" + why +
                              "); delete it, or the run folder, to start the run over");
  };
  if (in.size() < 24 + kDigestChars)
    return corrupt("file is " + std::to_string(in.size()) + " bytes, too short");
  if (std::memcmp(in.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    return corrupt("bad magic at offset 0: not a preflight checkpoint");
  }
  const uint32_t version = static_cast<uint32_t>(GetLE(in, 8, 4));
  if (version != 1 && version != kCheckpointVersion) {
    return corrupt("version " + std::to_string(version) +
                   " at offset 8; this build reads versions 1 to " +
                   std::to_string(kCheckpointVersion));
  }
  const size_t body = in.size() - kDigestChars;
  if (Sha256::Hex(std::string_view(in).substr(0, body)) != in.substr(body)) {
    return corrupt("SHA-256 at offset " + std::to_string(body) + " does not match the contents");
  }
  const uint64_t header_len = GetLE(in, 16, 8);
  if (24 + header_len > body) return corrupt("header length at offset 16 runs past the end");
  nlohmann::json header =
      nlohmann::json::parse(in.substr(24, header_len), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object())
    return corrupt("header at offset 24 is not JSON");
  Checkpoint c;
  try {
    c.fingerprint = header.at("fingerprint").get<std::string>();
    c.step = header.at("step").get<int64_t>();
    c.rng = header.at("rng").get<std::array<uint64_t, 4>>();
    c.train_seconds = header.at("train_seconds").get<double>();
    c.core_seconds = header.at("core_seconds").get<double>();
    for (const auto& p : header.at("curve")) {
      CheckpointEvalPoint point{p.at(0).get<int64_t>(), p.at(1).get<double>()};
      if (p.size() >= 5) {
        point.flops = p.at(2).get<double>();
        point.train_seconds = p.at(3).get<double>();
        point.core_seconds = p.at(4).get<double>();
      }
      c.curve.push_back(point);
    }
    // Optional (-1: not recorded), but a number when there.
    const JsonReader head(header, path + " (header at offset 24)");
    PF_ASSIGN_OR_RETURN(c.flops, head.Number("flops", -1.0));
    PF_ASSIGN_OR_RETURN(c.train_core_seconds, head.Number("train_core_seconds", -1.0));
    if (header.contains("schedule_state")) {
      const auto& st = header.at("schedule_state");
      c.frozen_at = st.at("frozen_at").get<int64_t>();
      c.last_check = st.at("last_check").get<int64_t>();
      c.trigger_seconds = st.at("trigger_seconds").get<double>();
      c.trigger_core_seconds = st.at("trigger_core_seconds").get<double>();
      c.trigger_flops = st.at("trigger_flops").get<double>();
    }
    const size_t n = header.at("num_params").get<size_t>();
    const size_t snap = version >= 2 ? header.at("snapshot_floats").get<size_t>() : 0;
    const size_t at = 24 + header_len;
    if (at + (3 * n + snap) * sizeof(float) != body) {
      return corrupt("expected " + std::to_string(n) + " parameters x 3 arrays" +
                     (snap ? " and a snapshot of " + std::to_string(snap) + " floats" : "") +
                     " after offset " + std::to_string(at) + ", found " +
                     std::to_string(body - at) + " bytes");
    }
    c.snapshot.resize(snap);
    // An empty vector's data() may be null, which memcpy may not be given even for 0 bytes.
    if (snap > 0) {
      std::memcpy(c.snapshot.data(), in.data() + at + 3 * n * sizeof(float), snap * sizeof(float));
    }
    for (std::vector<float>* v : {&c.params, &c.adam_m, &c.adam_v}) {
      v->resize(n);
      const size_t offset = at + (v == &c.params ? 0 : v == &c.adam_m ? 1 : 2) * n * sizeof(float);
      std::memcpy(v->data(), in.data() + offset, n * sizeof(float));
    }
  } catch (const nlohmann::json::exception& e) {
    return corrupt(std::string("header field: ") + e.what());
  }
  return c;
}

}  // namespace preflight::engine
