#pragma once
// The prices of a launched trial's net saving (trial/launch_prices.h) from --gpu, --price and
// --cpu-price and the trainer's device (doc/trainers.md, "What a launched run costs"):
//   device-hour: --price; else --gpu's catalogue price (cost/hardware.json); else, on --device
//     cuda, the catalogue's cost::kDefaultGpu; else (--device cpu) the run's threads x a core-hour;
//   core-hour: --cpu-price; else cost::kCpuUsdPerCoreHour.
// Each price records where it came from. The builtin engine takes no prices (its net stays in
// core-seconds): a price flag given to it is refused.

#include <string>

#include "base/status.h"
#include "trainer/trainer_spec.h"
#include "trial/launch_prices.h"

namespace preflight::app {

struct PriceFlags {
  std::string gpu;        // --gpu NAME (catalogue); "" = not given
  double price = -1;      // --price, USD per device-hour; -1 = not given
  double cpu_price = -1;  // --cpu-price, USD per CPU core-hour; -1 = not given

  bool Given() const { return !gpu.empty() || price != -1 || cpu_price != -1; }
};

// InvalidArgument for a price flag given to the builtin, a price that is not a number > 0, or a
// GPU the catalogue does not know (naming the ones it knows). Unresolved prices for the builtin.
Result<trial::LaunchPrices> ResolvePrices(const PriceFlags& flags,
                                          const trainer::TrainerSpec& trainer, int threads);

}  // namespace preflight::app
