#pragma once
// The prices a launched trainer's net saving is counted in (doc/trainers.md, "What a launched
// run costs"): a training run's device-hour and a CPU core-hour (selection and forecast), each
// with where it came from. Resolved from the flags before the trial (app/trial_prices.h), kept in
// trial.json beside the config (not in the fingerprint: a new price reuses every run) and in the
// result. The builtin engine's net has none: it stays in core-seconds.

#include <nlohmann/json.hpp>
#include <string>

#include "base/json.h"
#include "base/status.h"
#include "trial/metrics.h"

namespace preflight::trial {

// Dollars per hour of something, and where that price comes from.
struct HourPrice {
  double usd = 0;
  std::string source;  // e.g. "--gpu H200 (<the catalogue's price source>)", "--cpu-price"
};

struct LaunchPrices {
  HourPrice device_hour;  // one training run's device (a GPU, or its CPU cores)
  HourPrice core_hour;    // a CPU core: selection and forecast

  bool Resolved() const { return device_hour.usd > 0 && core_hour.usd > 0; }
};

// {"device_hour": {"usd", "source"}, "core_hour": {"usd", "source"}}.
nlohmann::json LaunchPricesToJson(const LaunchPrices& prices);
// Corruption naming the file and JSON path for a missing, mistyped or non-positive price.
Result<LaunchPrices> LaunchPricesFromJson(const JsonReader& json);

// The net's prices: dollars per charged second of f and per core-second of an arm's cost
// (unit "USD"); unresolved prices (a folder that records none) keep the 1:1 rule in seconds.
NetPrices NetPricesOf(const LaunchPrices& prices);

}  // namespace preflight::trial
