#include "app/receipt_facts.h"

#include <fmt/format.h>

#include "base/json.h"
#include "base/number_format.h"
#include "ledger/receipt.h"

namespace preflight::app {
namespace {

using nlohmann::json;

const json& At(const json& j, std::initializer_list<const char*> path) { return JsonAt(j, path); }

std::string Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.is_null() ? "?" : v.dump();
}

std::string Percent(const json& v) { return v.is_number() ? FormatPercent(v.get<double>()) : "?"; }

std::string Count(const json& v) { return v.is_number() ? FormatCount(v.get<double>()) : "?"; }

std::string TrialFacts(const json& r) {
  std::string net = At(r, {"caught_up"}) == false
                        ? "never caught up"
                        : "net " + Percent(At(r, {"compute_saved", "net"}));
  const json& ci = At(r, {"compute_saved", "ci95"});
  if (ci.is_array() && ci.size() == 2)
    net += " (95% " + Percent(ci[0]) + " to " + Percent(ci[1]) + ")";
  std::string out = At(r, {"kind"}) == "schedule" ? "schedule: " : "";
  out += "gross " + Percent(At(r, {"compute_saved", "gross"})) + ", " + net;
  const json& f = At(r, {"forecast"});
  if (f.is_object() && f.contains("verdict")) {
    const json& c = f["correct"];
    out += "; forecast " + Text(f["verdict"]) +
           (c.is_boolean() ? (c.get<bool>() ? ": right" : ": wrong") : ": abstained");
  }
  const json& model = At(r, {"model"});
  if (model.is_object()) {
    out += fmt::format("; {} ({} params)", Text(model["name"]), Count(model["params"]));
  }
  return out;
}

std::string ForecastFacts(const json& r) {
  const json& interval = At(r, {"interval"});
  std::string out = Text(At(r, {"verdict"})) + " (" + Text(At(r, {"strength"})) + "), predicted " +
                    Percent(At(r, {"predicted_saving"}));
  if (interval.is_array() && interval.size() == 2) {
    out += " (80% " + Percent(interval[0]) + " to " + Percent(interval[1]) + ")";
  }
  const json& probability = At(r, {"probability"});
  if (probability.is_number()) out += "; pays with p " + Percent(probability);
  return out;
}

std::string BatteryFacts(const json& r) {
  const json& rows = At(r, {"rows"});
  const json& f = At(r, {"evaluation", "forecast"});
  auto count = [](const json& n) { return n.is_number() ? n.get<int64_t>() : int64_t{0}; };
  return fmt::format("{} targets; forecast right {} of {}", rows.is_array() ? rows.size() : 0,
                     Text(At(f, {"right"})),
                     f.is_object()
                         ? std::to_string(count(At(f, {"right"})) + count(At(f, {"wrong"})))
                         : std::string("?"));
}

// "3 rungs (tiny/150 to small/600): grows, 8.1% per decade (95% 2.0% to 14.2%)".
std::string LadderFacts(const json& r) {
  const json& rungs = At(r, {"rungs"});
  std::string out = fmt::format("{} rungs", rungs.is_array() ? rungs.size() : 0);
  if (rungs.is_array() && !rungs.empty()) {
    auto name = [](const json& rung) {
      return Text(At(rung, {"model"})) + "/" + Text(At(rung, {"steps"}));
    };
    out += " (" + name(rungs.front()) + " to " + name(rungs.back()) + ")";
  }
  const json& slope = At(r, {"trend", "slope_per_decade"});
  const json& interval = At(r, {"trend", "interval"});
  out += ": " + Text(At(r, {"trend", "direction"}));
  if (slope.is_number()) out += ", " + Percent(slope) + " per decade";
  if (interval.is_array() && interval.size() == 2) {
    out += " (95% " + Percent(interval[0]) + " to " + Percent(interval[1]) + ")";
  }
  return out;
}

// "made elsewhere: gross 25.2% (95% 21.8% to 28.9%), net not stated; 2 runs per arm".
std::string ScoreFacts(const json& r) {
  std::string out = "made elsewhere: gross " + Percent(At(r, {"compute_saved", "gross"}));
  const json& ci = At(r, {"compute_saved", "ci95_gross"});
  if (ci.is_array() && ci.size() == 2) {
    out += " (95% " + Percent(ci[0]) + " to " + Percent(ci[1]) + ")";
  }
  out += At(r, {"net_stated"}) == true ? ", net " + Percent(At(r, {"compute_saved", "net"}))
                                       : ", net not stated";
  const json& per_seed = At(r, {"compute_saved", "per_seed"});
  if (per_seed.is_array()) out += fmt::format("; {} runs per arm", per_seed.size());
  return out;
}

}  // namespace

std::string ReceiptFacts(const json& receipt) {
  using ledger::ReceiptKind;
  const std::optional<ReceiptKind> kind = ledger::KindOf(receipt);
  const json& r = At(receipt, {"result"});
  if (kind == ReceiptKind::kTrial) return TrialFacts(r);
  if (kind == ReceiptKind::kForecast) return ForecastFacts(r);
  if (kind == ReceiptKind::kBattery) return BatteryFacts(r);
  if (kind == ReceiptKind::kLadder) return LadderFacts(r);
  if (kind == ReceiptKind::kScore) return ScoreFacts(r);
  if (kind == ReceiptKind::kSelection) {
    return fmt::format("{} kept {} of {} docs, {} of {} bytes",
                       Text(At(receipt, {"config", "selector"})), Text(At(r, {"kept_docs"})),
                       Text(At(r, {"pool_docs"})), Count(At(r, {"kept_bytes"})),
                       Count(At(r, {"pool_bytes"})));
  }
  if (kind == ReceiptKind::kTrain) {
    const json& bpb = At(r, {"final_eval_bpb"});
    return fmt::format("{}: {} params on {} tokens, final held-out {} bits/byte",
                       Text(At(r, {"model", "name"})), Count(At(r, {"params"})),
                       Count(At(r, {"tokens"})),
                       bpb.is_number() ? fmt::format("{:.4f}", bpb.get<double>()) : "?");
  }
  if (kind == ReceiptKind::kCost) {
    const json& usd = At(r, {"total_usd"});
    return "total " + (usd.is_number() ? FormatUsd(usd.get<double>()) : std::string("?"));
  }
  return "";
}

}  // namespace preflight::app
