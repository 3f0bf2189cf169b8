#include "cost/hardware_catalog.h"

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cost/hardware_catalog_data.h"

namespace preflight::cost {
namespace {

using nlohmann::json;

// Lower-case, without the separators people vary: "H100 SXM" == "h100-sxm" == "H100_SXM".
std::string NormalizeName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

Result<double> PositiveNumber(const json& entry, const std::string& gpu, const char* field) {
  auto it = entry.find(field);
  if (it == entry.end() || !it->is_number() || !(it->get<double>() > 0) ||
      !std::isfinite(it->get<double>())) {
    return Status::Corruption("hardware catalogue: entry '" + gpu + "': field '" + field +
                              "' must be a positive number");
  }
  return it->get<double>();
}

Result<std::string> Text(const json& entry, const std::string& gpu, const char* field) {
  auto it = entry.find(field);
  if (it == entry.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Status::Corruption("hardware catalogue: entry '" + gpu + "': field '" + field +
                              "' must be a non-empty string (every figure needs its source)");
  }
  return it->get<std::string>();
}

}  // namespace

Result<std::vector<GpuSpec>> ParseHardwareCatalog(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("gpus") || !doc["gpus"].is_array()) {
    return Status::Corruption("hardware catalogue: not a JSON object with a 'gpus' array");
  }
  std::vector<GpuSpec> out;
  for (const json& entry : doc["gpus"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      return Status::Corruption("hardware catalogue: an entry has no string 'name'");
    }
    GpuSpec g;
    g.name = entry["name"].get<std::string>();
    if (entry.contains("aliases")) {
      for (const json& a : entry["aliases"]) {
        if (!a.is_string()) {
          return Status::Corruption("hardware catalogue: entry '" + g.name +
                                    "': aliases must be strings");
        }
        g.aliases.push_back(a.get<std::string>());
      }
    }
    PF_ASSIGN_OR_RETURN(double bf16, PositiveNumber(entry, g.name, "bf16_dense_tflops"));
    g.bf16_dense_flops = bf16 * 1e12;
    if (entry.contains("fp8_dense_tflops") && !entry["fp8_dense_tflops"].is_null()) {
      PF_ASSIGN_OR_RETURN(double fp8, PositiveNumber(entry, g.name, "fp8_dense_tflops"));
      g.fp8_dense_flops = fp8 * 1e12;
    }
    PF_ASSIGN_OR_RETURN(g.memory_gib, PositiveNumber(entry, g.name, "memory_gib"));
    PF_ASSIGN_OR_RETURN(double bw, PositiveNumber(entry, g.name, "bandwidth_gb_per_s"));
    g.bandwidth_bytes_per_s = bw * 1e9;
    PF_ASSIGN_OR_RETURN(g.power_w, PositiveNumber(entry, g.name, "power_w"));
    PF_ASSIGN_OR_RETURN(g.price_usd_per_gpu_hour,
                        PositiveNumber(entry, g.name, "price_usd_per_gpu_hour"));
    PF_ASSIGN_OR_RETURN(g.source, Text(entry, g.name, "source"));
    PF_ASSIGN_OR_RETURN(g.price_source, Text(entry, g.name, "price_source"));
    out.push_back(std::move(g));
  }
  if (out.empty()) return Status::Corruption("hardware catalogue: no GPUs");
  return out;
}

const std::vector<GpuSpec>& HardwareCatalog() {
  // A catalogue that does not parse is a build defect, caught by the tests; at run time it
  // degrades to an empty list rather than aborting, and every lookup then fails with NotFound.
  static const std::vector<GpuSpec> catalog = [] {
    auto parsed = ParseHardwareCatalog(kHardwareCatalogJson);
    return parsed.ok() ? std::move(parsed).value() : std::vector<GpuSpec>{};
  }();
  return catalog;
}

std::string KnownGpuNames() {
  std::string out;
  for (const GpuSpec& g : HardwareCatalog()) {
    if (!out.empty()) out += ", ";
    out += g.name;
  }
  return out;
}

Result<GpuSpec> FindGpu(std::string_view name) {
  const std::string key = NormalizeName(name);
  for (const GpuSpec& g : HardwareCatalog()) {
    if (NormalizeName(g.name) == key) return g;
    for (const std::string& alias : g.aliases) {
      if (NormalizeName(alias) == key) return g;
    }
  }
  return Status::NotFound("unknown GPU '" + std::string(name) +
                          "'; known GPUs: " + KnownGpuNames());
}

}  // namespace preflight::cost
