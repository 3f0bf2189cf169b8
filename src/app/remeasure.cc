#include "app/remeasure.h"

#include <fmt/format.h>

#include <vector>

#include "corpus/scanner.h"
#include "ledger/ledger.h"

namespace preflight::app {
namespace {

// The settings a re-measure must share with its trial, as the two configs record them.
Status SameSettings(const nlohmann::json& t, const forecast::ForecastConfig& c) {
  const nlohmann::json model = t.value("model", nlohmann::json::object());
  const std::vector<std::pair<std::string, bool>> checks = {
      {"selector", t.value("selector", "") == c.selector},
      {"keep", t.value("keep", -1.0) == c.keep},
      {"selection_seed", t.value("selection_seed", uint64_t{0}) == c.selection_seed},
      {"model", model.value("name", "") == c.model_name &&
                    model.value("context", 0) == c.model.context &&
                    model.value("batch", 0) == c.model.batch},
      {"steps", t.value("steps", int64_t{0}) == c.steps},
      {"seeds", t.value("seeds", 0) == c.seeds}};
  for (const auto& [name, same] : checks) {
    if (!same) {
      return Status::InvalidArgument(fmt::format(
          "--remeasures: the trial's {} ({}) is not this forecast's: give the trial's settings",
          name, t.contains(name) ? t[name].dump() : "missing"));
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
  PF_RETURN_IF_ERROR(SameSettings(r["config"], config));
  return std::move(r);
}

Status CheckSameInputs(const nlohmann::json& trial, const forecast::ForecastConfig& config) {
  std::vector<std::string> want;  // the trial's pool files, then its target_select
  for (const nlohmann::json& in : trial.value("inputs", nlohmann::json::array())) {
    const std::string role = in.value("role", "");
    if (role == "pool" || role == "target_select") want.push_back(in.value("sha256", ""));
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
