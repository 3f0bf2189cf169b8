#include "app/remeasure.h"

#include <fmt/format.h>

#include <vector>

#include "base/json.h"
#include "corpus/scanner.h"
#include "ledger/ledger.h"

namespace preflight::app {
namespace {

// The settings a re-measure must share with its trial, as the two configs record them.
Status SameSettings(const JsonReader& t, const forecast::ForecastConfig& c) {
  PF_ASSIGN_OR_RETURN(std::string selector, t.String("selector", ""));
  PF_ASSIGN_OR_RETURN(double keep, t.Number("keep", -1.0));
  PF_ASSIGN_OR_RETURN(int64_t selection_seed, t.Int("selection_seed", 0));
  PF_ASSIGN_OR_RETURN(JsonReader model, t.OptionalObject("model"));
  PF_ASSIGN_OR_RETURN(std::string model_name, model.String("name", ""));
  PF_ASSIGN_OR_RETURN(int64_t context, model.Int("context", 0));
  PF_ASSIGN_OR_RETURN(int64_t batch, model.Int("batch", 0));
  PF_ASSIGN_OR_RETURN(int64_t steps, t.Int("steps", 0));
  PF_ASSIGN_OR_RETURN(int64_t seeds, t.Int("seeds", 0));
  const std::vector<std::pair<std::string, bool>> checks = {
      {"selector", selector == c.selector},
      {"keep", keep == c.keep},
      {"selection_seed", static_cast<uint64_t>(selection_seed) == c.selection_seed},
      {"model", model_name == c.model_name && context == c.model.context && batch == c.model.batch},
      {"steps", steps == c.steps},
      {"seeds", seeds == c.seeds}};
  for (const auto& [name, same] : checks) {
    if (!same) {
      return Status::InvalidArgument(fmt::format(
          "--remeasures: the trial's {} ({}) is not this forecast's: give the trial's settings",
          name, t.Has(name) ? t.node()[name].dump() : "missing"));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<nlohmann::json> RemeasuredTrial(const std::string& ledger_path,
                                       const forecast::ForecastConfig& config) {
  Result<ledger::StoredReceipt> found =
      ledger::FindReceipt(ledger_path, config.remeasures, ledger::ReceiptKind::kTrial);
  if (found.status().kind() == Status::Kind::kNotFound) {
    return Status::InvalidArgument("--remeasures: " + found.status().message());
  }
  PF_RETURN_IF_ERROR(found.status());
  nlohmann::json& r = found->json;
  if (!r.contains("config")) {
    return Status::InvalidArgument("--remeasures " + config.remeasures + ": receipt in " +
                                   ledger_path + " is a trial without a config");
  }
  const JsonReader receipt(r, fmt::format("{}:{}", ledger_path, found->line));
  PF_ASSIGN_OR_RETURN(JsonReader trial_config, receipt.Field("config"));
  PF_RETURN_IF_ERROR(SameSettings(trial_config, config));
  return std::move(r);
}

Status CheckSameInputs(const nlohmann::json& trial, const forecast::ForecastConfig& config) {
  std::vector<std::string> want;  // the trial's pool files, then its target_select
  const JsonReader receipt(trial, "trial receipt " + config.remeasures);
  if (receipt.Has("inputs")) {
    PF_ASSIGN_OR_RETURN(JsonReader inputs, receipt.Field("inputs"));
    PF_ASSIGN_OR_RETURN(std::vector<JsonReader> items, inputs.Elements());
    for (const JsonReader& in : items) {
      PF_ASSIGN_OR_RETURN(std::string role, in.String("role", ""));
      if (role != "pool" && role != "target_select") continue;
      PF_ASSIGN_OR_RETURN(std::string sha256, in.String("sha256", ""));
      want.push_back(std::move(sha256));
    }
  }
  std::vector<std::string> paths = config.pool;
  paths.push_back(config.target_select);
  for (size_t i = 0; i < paths.size() || i < want.size(); ++i) {
    if (i < paths.size() && i < want.size()) {
      PF_ASSIGN_OR_RETURN(corpus::InputSummary have, corpus::HashInput(paths[i]));
      if (have.sha256 == want[i]) continue;
    }
    return Status::InvalidArgument(fmt::format(
        "--remeasures: {} is not what the trial read (its SHA-256 differs, or the files are not "
        "as many): re-measure on the trial's own inputs",
        i < paths.size() ? paths[i] : "the trial's input " + std::to_string(i + 1)));
  }
  return Status::Ok();
}

}  // namespace preflight::app
