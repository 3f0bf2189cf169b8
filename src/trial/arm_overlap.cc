#include "trial/arm_overlap.h"

#include <fmt/format.h>

#include <functional>
#include <string_view>
#include <unordered_set>

namespace preflight::trial {

uint64_t CountCopies(const std::vector<std::string>& docs, const std::vector<std::string>& eval) {
  std::hash<std::string_view> hash;
  std::unordered_set<uint64_t> held_out;
  for (const std::string& text : eval) held_out.insert(hash(text));
  uint64_t copies = 0;
  for (const std::string& doc : docs) copies += held_out.count(hash(doc));
  return copies;
}

std::vector<std::string> OverlapWarnings(const std::map<std::string, ArmRecord>& arms) {
  std::vector<std::string> warnings;
  std::string copies;
  for (const auto& [name, arm] : arms) {
    if (!arm.eval_copies || *arm.eval_copies == 0) continue;
    copies += fmt::format("{}{}: {} of {}", copies.empty() ? "" : ", ", name, *arm.eval_copies,
                          arm.kept_docs);
  }
  if (!copies.empty()) {
    warnings.push_back("the arms hold copies of --target-eval documents (" + copies +
                       "): the runs train on held-out text, so their held-out loss is not held "
                       "out; remove those documents from the pool");
  }
  // Every arm records the same inputs; the first arm's are enough.
  if (!arms.empty()) {
    const std::vector<ledger::InputRecord>& in = arms.begin()->second.inputs;
    for (const ledger::InputRecord& target : in) {
      if (target.role != "target_select") continue;
      for (const ledger::InputRecord& pool : in) {
        if (pool.role != "pool" || pool.sha256 != target.sha256) continue;
        warnings.push_back("--target-select " + target.path + " is byte for byte the --pool file " +
                           pool.path +
                           ": the selector has nothing to tell apart, and a trial measures "
                           "nothing about selection");
      }
    }
  }
  return warnings;
}

}  // namespace preflight::trial
