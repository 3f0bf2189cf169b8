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

// A field that may be null or absent (a chip without that mode); positive when present.
Status OptionalPositive(const json& entry, const std::string& gpu, const char* field, double scale,
                        std::optional<double>* out) {
  if (!entry.contains(field) || entry[field].is_null()) return Status::Ok();
  PF_ASSIGN_OR_RETURN(double value, PositiveNumber(entry, gpu, field));
  *out = value * scale;
  return Status::Ok();
}

}  // namespace

Result<PeakDtype> ParsePeakDtype(std::string_view name, const char* flag) {
  const std::string key = NormalizeName(name);
  if (key == "bf16") return PeakDtype::kBf16;
  if (key == "fp8") return PeakDtype::kFp8;
  if (key == "int8") return PeakDtype::kInt8;
  return Status::InvalidArgument(std::string(flag) + " must be bf16, fp8 or int8 (got '" +
                                 std::string(name) + "')");
}

std::string PeakDtypeName(PeakDtype dtype) {
  switch (dtype) {
    case PeakDtype::kFp8:
      return "fp8";
    case PeakDtype::kInt8:
      return "int8";
    case PeakDtype::kBf16:
      break;
  }
  return "bf16";
}

Result<double> DensePeak(const GpuSpec& gpu, PeakDtype dtype, const char* flag) {
  const std::optional<double> peak = dtype == PeakDtype::kBf16
                                         ? std::optional<double>(gpu.bf16_dense_flops)
                                     : dtype == PeakDtype::kFp8 ? gpu.fp8_dense_flops
                                                                : gpu.int8_dense_ops;
  if (!peak) {
    return Status::InvalidArgument(std::string(flag) + " " + PeakDtypeName(dtype) + ": the " +
                                   gpu.name + " has no " + PeakDtypeName(dtype) +
                                   " tensor cores in the catalogue (" + gpu.source +
                                   "); choose another format or GPU");
  }
  return *peak;
}

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
    PF_RETURN_IF_ERROR(
        OptionalPositive(entry, g.name, "fp8_dense_tflops", 1e12, &g.fp8_dense_flops));
    PF_RETURN_IF_ERROR(OptionalPositive(entry, g.name, "int8_dense_tops", 1e12, &g.int8_dense_ops));
    PF_ASSIGN_OR_RETURN(g.memory_gib, PositiveNumber(entry, g.name, "memory_gib"));
    PF_ASSIGN_OR_RETURN(double bw, PositiveNumber(entry, g.name, "bandwidth_gb_per_s"));
    g.bandwidth_bytes_per_s = bw * 1e9;
    PF_RETURN_IF_ERROR(OptionalPositive(entry, g.name, "power_w", 1, &g.power_w));
    PF_ASSIGN_OR_RETURN(g.price_usd_per_gpu_hour,
                        PositiveNumber(entry, g.name, "price_usd_per_gpu_hour"));
    PF_ASSIGN_OR_RETURN(g.source, Text(entry, g.name, "source"));
    PF_ASSIGN_OR_RETURN(g.price_source, Text(entry, g.name, "price_source"));
    PF_ASSIGN_OR_RETURN(g.source_date, Text(entry, g.name, "source_date"));
    PF_ASSIGN_OR_RETURN(std::string peak_kind, Text(entry, g.name, "peak_kind"));
    if (peak_kind != "dense") {
      return Status::Corruption("hardware catalogue: entry '" + g.name +
                                "': peak_kind must be \"dense\" (halve a 2:4-sparsity figure)");
    }
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
