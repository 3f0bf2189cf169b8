#include "trial/launch_prices.h"

namespace preflight::trial {
namespace {

Result<HourPrice> HourPriceFromJson(const JsonReader& prices, const char* key) {
  PF_ASSIGN_OR_RETURN(JsonReader r, prices.Field(key));
  HourPrice p;
  PF_ASSIGN_OR_RETURN(p.usd, r.Number("usd"));
  PF_ASSIGN_OR_RETURN(p.source, r.String("source"));
  if (!(p.usd > 0)) return r.Error("usd must be a price > 0");
  return p;
}

}  // namespace

nlohmann::json LaunchPricesToJson(const LaunchPrices& p) {
  auto hour = [](const HourPrice& h) {
    return nlohmann::json{{"usd", h.usd}, {"source", h.source}};
  };
  return {{"device_hour", hour(p.device_hour)}, {"core_hour", hour(p.core_hour)}};
}

Result<LaunchPrices> LaunchPricesFromJson(const JsonReader& r) {
  LaunchPrices p;
  PF_ASSIGN_OR_RETURN(p.device_hour, HourPriceFromJson(r, "device_hour"));
  PF_ASSIGN_OR_RETURN(p.core_hour, HourPriceFromJson(r, "core_hour"));
  return p;
}

NetPrices NetPricesOf(const LaunchPrices& p) {
  if (!p.Resolved()) return {};
  return {p.device_hour.usd / 3600, p.core_hour.usd / 3600, "USD"};
}

}  // namespace preflight::trial
