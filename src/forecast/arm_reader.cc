#include "forecast/arm_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "corpus/scanner.h"

namespace preflight::forecast {

Result<std::vector<std::string>> ReadTexts(const std::string& path, const std::string& field) {
  std::vector<std::string> texts;
  corpus::ReadOptions read;
  read.text_field = field;
  read.threads = 1;
  PF_RETURN_IF_ERROR(
      corpus::ScanDocuments({path}, read, [&](int, const corpus::Record&, std::string_view text) {
        texts.emplace_back(text);
      }).status());
  return texts;
}

Result<std::vector<std::string>> ReadSample(const std::string& path, const std::string& field,
                                            uint64_t budget) {
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec || budget == 0 || bytes <= budget) return ReadTexts(path, field);
  const double r = static_cast<double>(budget) / static_cast<double>(bytes);
  std::vector<std::string> texts;
  corpus::ReadOptions read;
  read.text_field = field;
  uint64_t k = 0;
  PF_RETURN_IF_ERROR(corpus::ScanLines({path}, read, [&](const corpus::Record& rec) -> Status {
    const double at = static_cast<double>(k++);
    if (std::floor((at + 1) * r) <= std::floor(at * r)) return Status::Ok();
    PF_ASSIGN_OR_RETURN(
        std::string text,
        corpus::ParseTextField(rec.line, read, fmt::format("{}:{}", path, rec.line_no)));
    texts.push_back(std::move(text));
    return Status::Ok();
  }));
  return texts;
}

}  // namespace preflight::forecast
