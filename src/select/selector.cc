// The selection's options and names; RunSelection is a batch of one (batch.h).

#include "select/selector.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/number_format.h"
#include "select/batch.h"
#include "select/scorer.h"

namespace preflight::select {
namespace {

// A number as a person typed it: "0.25", "1.5", "nan", "-inf".
std::string NumberText(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return FormatG(x, 6);
}

}  // namespace

std::unique_ptr<Selector> MakeSelector(const std::string& name) {
  if (name == "random") return MakeRandomSelector();
  if (name == "first") return MakeFirstSelector();
  if (name == "dsir") return MakeDsirSelector();
  if (name == "classifier") return MakeClassifierSelector();
  return nullptr;
}

nlohmann::json ReceiptInputs(const nlohmann::json& manifest_inputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const char* role : {"pool", "target"}) {
    if (!manifest_inputs.contains(role)) continue;
    for (const auto& p : manifest_inputs[role]) {
      out.push_back({{"role", std::string(role) == "pool" ? "pool" : "target_select"},
                     {"path", p["path"]},
                     {"sha256", p["sha256"]},
                     {"docs", p["docs"]},
                     {"bytes", p["bytes"]}});
    }
  }
  return out;
}

corpus::ReadOptions SelectOptions::TargetRead() const {
  corpus::ReadOptions target = read;
  if (!target_text_field.empty()) target.text_field = target_text_field;
  return target;
}

const std::string& SelectOptions::TargetIdField() const {
  return target_id_field.empty() ? id_field : target_id_field;
}

std::string SelectOptions::ManifestPath() const {
  if (!manifest_path.empty()) return manifest_path;
  std::string out = out_path;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out + ".manifest.json";
}

const char* SelectOptions::BudgetFlag() const {
  if (keep_docs > 0) return "keep_docs";
  if (keep_bytes > 0) return "keep_bytes";
  return "keep";
}

const std::vector<std::string>& SelectorNames() {
  static const std::vector<std::string> kNames = {"random", "first", "dsir", "classifier"};
  return kNames;
}

Status SelectOptions::Validate() const {
  const auto& names = SelectorNames();
  if (std::find(names.begin(), names.end(), selector) == names.end()) {
    return Status::InvalidArgument("unknown selector '" + selector +
                                   "' (choose random, first, dsir or classifier)");
  }
  if (!(keep > 0 && keep <= 1)) {
    return Status::InvalidArgument("--keep must be a number in (0, 1], got " + NumberText(keep));
  }
  if (keep_docs > 0 && keep_bytes > 0) {
    return Status::InvalidArgument("give one budget: --keep, --keep-docs or --keep-bytes");
  }
  if (threads < 1) return Status::InvalidArgument("--threads must be at least 1");
  if (out_path.empty()) return Status::InvalidArgument("--out is required");
  if (selector == "dsir") PF_RETURN_IF_ERROR(dsir.Validate());
  if (selector == "classifier") PF_RETURN_IF_ERROR(classifier.Validate());
  return Status::Ok();
}

Result<SelectionResult> RunSelection(const std::vector<std::string>& pool,
                                     const std::vector<std::string>& target, const SelectOptions& o,
                                     const ProgressFn& progress, SelectionGroup* group,
                                     const PreparedInputs* prepared) {
  PF_ASSIGN_OR_RETURN(std::vector<SelectionResult> results,
                      RunSelections(pool, {{target, o}}, progress, group, prepared));
  return std::move(results.front());
}

}  // namespace preflight::select
