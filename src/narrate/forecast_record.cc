#include "narrate/forecast_record.h"

#include <fmt/format.h>

#include <sstream>

namespace preflight::narrate {
namespace {

constexpr size_t kRecordColumn = 29;  // where the numbers block's values start
constexpr size_t kRecordWidth = 100;

}  // namespace

std::string ForecastRecordSentence(const forecast::HoldoutRecord& r) {
  const std::string caught = r.did_not_pay_random == r.did_not_pay
                                 ? fmt::format("all {}", r.did_not_pay)
                                 : fmt::format("{} of {}", r.did_not_pay_random, r.did_not_pay);
  return fmt::format(
      "On {} targets from {} corpora its calibration had not seen (bench/holdout/, since added "
      "to it), the forecast was right on {} of {} clear cases against {} for always curating, "
      "called {} that did not pay `random`, and spent {:.3f} random-arm runs per target against "
      "{:.3f}.",
      r.targets, r.corpora, r.right, r.clear, r.always_curate_right, caught, r.runs_following,
      r.runs_always_curate);
}

std::string ForecastRecordLines(const forecast::HoldoutRecord& r) {
  std::istringstream words(ForecastRecordSentence(r));
  const std::string indent(kRecordColumn, ' ');
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && kRecordColumn + line.size() + 1 + word.size() > kRecordWidth) {
      out += indent + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

}  // namespace preflight::narrate
