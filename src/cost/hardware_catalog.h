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
  std::optional<double> int8_dense_ops;   // integer ops/s, dense; absent where there is no mode
  double memory_gib = 0;
  double bandwidth_bytes_per_s = 0;
  std::optional<double> power_w;      // board maximum (TDP); absent where it is not published
  double price_usd_per_gpu_hour = 0;  // default rental price; the user's --price overrides it
  std::string source;                 // where the hardware figures come from
  std::string source_date;            // when that datasheet was published or last revised
  std::string price_source;           // where the price comes from
};

// A CPU core-hour's default price: what a launched trial charges for its selection and forecast
// core-seconds (doc/trainers.md, "What a launched run costs"; --cpu-price overrides it). A
// preflight core-second is one hardware thread's CPU second, as a cloud vCPU is one thread.
inline constexpr double kCpuUsdPerCoreHour = 0.0425;
inline constexpr char kCpuPriceSource[] =
    "AWS EC2 on-demand c5 (compute-optimised, Linux, us-east-1): c5.2xlarge $0.34 per hour for "
    "8 vCPUs = $0.0425 per vCPU-hour (the EC2 Auto Scaling user guide's pricing example)";
// The GPU a launched trial on --device cuda is priced at when no --gpu or --price is given (as
// `cost` and `plan` default to it).
inline constexpr char kDefaultGpu[] = "H100-SXM";

// The number format a peak is quoted for. Training runs at BF16; inference may run at FP8 or
// INT8 where the chip has tensor cores for it.
enum class PeakDtype { kBf16, kFp8, kInt8 };
// "bf16", "fp8", "int8" (any case); InvalidArgument naming `flag` and the choices otherwise.
Result<PeakDtype> ParsePeakDtype(std::string_view name, const char* flag);
std::string PeakDtypeName(PeakDtype dtype);  // "bf16", "fp8", "int8"
// The dense peak of `gpu` at `dtype` in operations per second. InvalidArgument naming `flag`
// when the chip has no tensor cores for that format (an A100 has no FP8).
Result<double> DensePeak(const GpuSpec& gpu, PeakDtype dtype, const char* flag);

// Parses a catalogue document (the format of hardware.json). Corruption names the entry and
// the field that is missing or not a positive number, and refuses an entry whose peak_kind is
// not "dense" or that has no source or source_date.
Result<std::vector<GpuSpec>> ParseHardwareCatalog(std::string_view json_text);

// The catalogue compiled into the binary. Never empty (a broken hardware.json fails the tests).
const std::vector<GpuSpec>& HardwareCatalog();

// Looks a GPU up by name or alias, ignoring case, '-', '_' and spaces ("h100 sxm" finds
// "H100-SXM"). NotFound lists the known names.
Result<GpuSpec> FindGpu(std::string_view name);

// "A100-40GB, A100-80GB, H100-SXM, H100-PCIe, H200, B200, L40S, MI300X, TPU-v5e, TPU-v5p"
std::string KnownGpuNames();

}  // namespace preflight::cost
