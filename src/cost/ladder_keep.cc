#include "cost/ladder_keep.h"

#include <fmt/format.h>

#include "base/json.h"
#include "base/number_format.h"
#include "ledger/receipt.h"

namespace preflight::cost {
namespace {

constexpr double kCheapEpochs = 4;  // Muennighoff et al. 2023

std::string Percent(double keep) { return fmt::format("{:.3g}%", 100 * keep); }

}  // namespace

Result<LadderKeep> ReadLadderKeep(const std::string& path) {
  PF_ASSIGN_OR_RETURN(nlohmann::json doc, ReadJsonFile(path));
  LadderKeep out;
  out.source = path;
  JsonReader top(doc, path);
  if (!doc.is_object()) return top.Error("expected a ladder's ladder.json, --json or receipt");
  // A receipt holds the ladder's document under "result".
  const bool receipt = doc.contains("result") && doc["result"].is_object();
  if (receipt && ledger::KindOf(doc) != ledger::ReceiptKind::kLadder) {
    PF_ASSIGN_OR_RETURN(std::string kind, top.String("kind", ""));
    return Status::InvalidArgument(path + ": a '" + kind + "' receipt, not a ladder's");
  }
  if (receipt && doc["hash"].is_string()) out.receipt = doc["hash"].get<std::string>();
  if (!receipt && doc["receipt"].is_string()) out.receipt = doc["receipt"].get<std::string>();
  PF_ASSIGN_OR_RETURN(JsonReader result, receipt ? top.Field("result") : top);
  if (!result.Has("recommendation")) {
    return Status::InvalidArgument(
        path +
        ": no recommendation: a ladder recommends a fraction when --keep lists two or "
        "more (e.g. --keep 0.05,0.1,0.25,0.5)");
  }
  PF_ASSIGN_OR_RETURN(JsonReader rec, result.Field("recommendation"));
  PF_ASSIGN_OR_RETURN(out.flops, rec.Number("flops"));
  PF_ASSIGN_OR_RETURN(out.extrapolated, rec.Bool("extrapolated"));
  PF_ASSIGN_OR_RETURN(out.reason, rec.String("reason"));
  PF_ASSIGN_OR_RETURN(JsonReader keep, rec.Field("keep"));
  if (keep.node().is_null()) {
    return Status::InvalidArgument(path + ": the ladder recommends no fraction: " + out.reason);
  }
  PF_ASSIGN_OR_RETURN(out.keep, keep.AsNumber());
  PF_ASSIGN_OR_RETURN(JsonReader interval, rec.Field("interval"));
  PF_ASSIGN_OR_RETURN(JsonReader lo, interval.At(0));
  PF_ASSIGN_OR_RETURN(JsonReader hi, interval.At(1));
  PF_ASSIGN_OR_RETURN(out.lo, lo.AsNumber());
  PF_ASSIGN_OR_RETURN(out.hi, hi.AsNumber());
  if (!(out.keep > 0 && out.keep <= 1) || !(out.flops > 0)) {
    return rec.Error("expected a keep in (0, 1] and a positive flops");
  }
  return out;
}

KeptData KeptDataOf(const LadderKeep& keep, double run_tokens, double pool_tokens) {
  KeptData k;
  k.kept_tokens = keep.keep * pool_tokens;
  k.epochs = k.kept_tokens > 0 ? run_tokens / k.kept_tokens : 0;
  k.repeats = k.epochs > kCheapEpochs;
  return k;
}

nlohmann::json LadderKeepJson(const LadderKeep& keep, const std::optional<KeptData>& kept,
                              std::optional<double> pool_tokens) {
  nlohmann::json j = {{"keep", keep.keep},      {"interval", {keep.lo, keep.hi}},
                      {"flops", keep.flops},    {"extrapolated", keep.extrapolated},
                      {"reason", keep.reason},  {"source", keep.source},
                      {"receipt", keep.receipt}};
  if (kept && pool_tokens) {
    j["pool_tokens"] = *pool_tokens;
    j["kept_tokens"] = kept->kept_tokens;
    j["epochs"] = kept->epochs;
    j["repeats"] = kept->repeats;
  }
  return j;
}

std::string LadderKeepText(const LadderKeep& keep, const std::optional<KeptData>& kept) {
  std::string out = fmt::format(
      "  keep {} of the pool (95% {} to {}), as the ladder in {} recommended for {} FLOPs per "
      "run{}\n",
      Percent(keep.keep), Percent(keep.lo), Percent(keep.hi), keep.source, FormatSci(keep.flops),
      keep.extrapolated ? ", an EXTRAPOLATION beyond its rungs" : "");
  if (kept) {
    out += fmt::format("  the kept part: {} tokens, {} epochs of the run's tokens{}\n",
                       FormatSci(kept->kept_tokens), FormatPlain(kept->epochs, 2),
                       kept->repeats ? "; past ~4 epochs repeated data loses value (Muennighoff "
                                       "et al. 2023): keep more, or plan fewer tokens"
                                     : "");
  }
  return out;
}

}  // namespace preflight::cost
