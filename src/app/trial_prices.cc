#include "app/trial_prices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/hardware_catalog.h"

namespace preflight::app {
namespace {

Status CheckPrice(double value, const char* flag) {
  if (value == -1 || (std::isfinite(value) && value > 0)) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("{} must be a price in dollars > 0, got {}", flag, value));
}

// The device-hour: --price, else --gpu's, else the device's default.
Result<trial::HourPrice> DevicePrice(const PriceFlags& f, const trainer::TrainerSpec& t,
                                     int threads, double core_hour) {
  if (f.price != -1) return trial::HourPrice{f.price, "--price"};
  if (!f.gpu.empty() || t.device == "cuda") {
    const std::string name = f.gpu.empty() ? cost::kDefaultGpu : f.gpu;
    auto gpu = cost::FindGpu(name);
    if (!gpu.ok()) return Status::InvalidArgument("--gpu: " + gpu.status().message());
    const std::string why = f.gpu.empty()
                                ? "no --gpu or --price; --device cuda: the catalogue's " + gpu->name
                                : "--gpu " + gpu->name;
    return trial::HourPrice{gpu->price_usd_per_gpu_hour, why + " (" + gpu->price_source + ")"};
  }
  return trial::HourPrice{
      std::max(1, threads) * core_hour,
      fmt::format("no --gpu or --price; --device cpu: {} threads x the CPU core-hour price",
                  std::max(1, threads))};
}

}  // namespace

Result<trial::LaunchPrices> ResolvePrices(const PriceFlags& f, const trainer::TrainerSpec& t,
                                          int threads) {
  if (t.IsBuiltin()) {
    if (f.Given()) {
      return Status::InvalidArgument(
          "--gpu, --price and --cpu-price price a launched trainer's net saving (--trainer torch "
          "or cmd); the builtin engine's net is in core-seconds of this machine");
    }
    return trial::LaunchPrices{};
  }
  PF_RETURN_IF_ERROR(CheckPrice(f.price, "--price"));
  PF_RETURN_IF_ERROR(CheckPrice(f.cpu_price, "--cpu-price"));
  trial::LaunchPrices p;
  p.core_hour = f.cpu_price != -1
                    ? trial::HourPrice{f.cpu_price, "--cpu-price"}
                    : trial::HourPrice{cost::kCpuUsdPerCoreHour, cost::kCpuPriceSource};
  PF_ASSIGN_OR_RETURN(p.device_hour, DevicePrice(f, t, threads, p.core_hour.usd));
  return p;
}

}  // namespace preflight::app
