#pragma once
// The hardware catalogue: accelerators with their dense peak FLOP/s, memory, bandwidth, power
// and a default rental price, each with the source it came from. The data lives in
// src/cost/hardware.json and is compiled into the binary, so lookups never touch the disk.
// Thread-safe: the parsed catalogue is built once and never changes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace preflight::cost {

struct GpuSpec {
  std::string name;                       // canonical name, e.g. "H100-SXM"
  std::vector<std::string> aliases;       // other spellings FindGpu accepts
  double bf16_dense_flops = 0;            // FLOP/s, dense tensor-core peak (no 2:4 sparsity)
  std::optional<double> fp8_dense_flops;  // absent where the chip has no FP8 tensor cores
  double memory_gib = 0;
  double bandwidth_bytes_per_s = 0;
  double power_w = 0;                 // board maximum (TDP)
  double price_usd_per_gpu_hour = 0;  // default rental price; the user's --price overrides it
  std::string source;                 // where the hardware figures come from
  std::string price_source;           // where the price comes from
};

// Parses a catalogue document (the format of hardware.json). Corruption names the entry and
// the field that is missing or not a positive number.
Result<std::vector<GpuSpec>> ParseHardwareCatalog(std::string_view json_text);

// The catalogue compiled into the binary. Never empty (a broken hardware.json fails the tests).
const std::vector<GpuSpec>& HardwareCatalog();

// Looks a GPU up by name or alias, ignoring case, '-', '_' and spaces ("h100 sxm" finds
// "H100-SXM"). NotFound lists the known names.
Result<GpuSpec> FindGpu(std::string_view name);

// "A100-40GB, A100-80GB, H100-SXM, H200, B200"
std::string KnownGpuNames();

}  // namespace preflight::cost
